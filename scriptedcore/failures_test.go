package scriptedcore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// playAgainst plays `core` as the scripted Core against a scripted Runtime that plays `runtime`,
// a different (broken) script.
func playAgainst(t *testing.T, cat *scenarios.Catalog, core, runtime string) *scenarios.Result {
	t.Helper()
	csc, ok := cat.Get(core)
	rsc, ok2 := cat.Get(runtime)
	if !ok || !ok2 {
		t.Fatalf("missing scenario %s or %s", core, runtime)
	}
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		ctx, cancel := context.WithCancel(ctx)
		r := &peer{done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(r.done)
			scriptedruntime.Play(ctx, rsc, scriptedruntime.Config{ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Timeout: time.Second})
		}()
		return r, nil
	}
	return scriptedcore.Play(context.Background(), csc, scriptedcore.Config{Timeout: 300 * time.Millisecond, Seed: "42"}, launch)
}

type peer struct {
	done   chan struct{}
	cancel context.CancelFunc
	once   sync.Once
}

func (p *peer) Done() <-chan struct{} { return p.done }
func (p *peer) Stop(context.Context) error {
	p.once.Do(p.cancel)
	<-p.done
	return nil
}

func load(t *testing.T) *scenarios.Catalog {
	t.Helper()
	cat, err := scenarios.LoadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// A Runtime that breaks the script fails with the scenario, the step, file:line, a diff of the
// frame and the bindings in force.
func TestWrongFrameFailsWithADiff(t *testing.T) {
	r := playAgainst(t, load(t), "expect/ready", "broken/wrong-revision")
	if r.Verdict != scenarios.Fail {
		t.Fatalf("verdict %s, want fail:\n%s", r.Verdict, r)
	}
	t.Logf("the failure as a user sees it:\n%s", r)
	f := r.Failure
	for _, want := range []string{"expect/ready", "step 3", "testdata/pairs.yaml:13", "payload.revision: want 2, got 3", "-", "+", "executor=", "handle="} {
		if !strings.Contains(r.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The diff is of indented JSON; compare it with whitespace collapsed.
	diff := strings.Join(strings.Fields(f.Diff), " ")
	if f.Step != 3 || f.Pos.Line != 13 || !strings.Contains(diff, `- "revision": 2,`) || !strings.Contains(diff, `+ "revision": 3,`) {
		t.Errorf("failure points at step %d line %d, diff:\n%s", f.Step, f.Pos.Line, f.Diff)
	}
}

func TestSilentRuntimeTimesOut(t *testing.T) {
	r := playAgainst(t, load(t), "expect/ready", "broken/silent")
	if r.Verdict != scenarios.Fail || r.Failure.Step != 3 || !strings.Contains(r.Failure.Message, "nothing arrived within 300ms") {
		t.Fatalf("got:\n%s", r)
	}
}

func TestClosingRuntimeFails(t *testing.T) {
	r := playAgainst(t, load(t), "expect/ready", "broken/closes")
	if r.Verdict != scenarios.Fail || r.Failure.Step != 3 || !strings.Contains(r.Failure.Message, "the connection") {
		t.Fatalf("got:\n%s", r)
	}
}

func TestGarbageFromRuntimeFails(t *testing.T) {
	r := playAgainst(t, load(t), "expect/ready", "broken/garbage")
	if r.Verdict != scenarios.Fail || r.Failure.Step != 3 || !strings.Contains(r.Failure.Message, "breaks a wire rule: envelope: malformed JSON") {
		t.Fatalf("got:\n%s", r)
	}
	if r.Failure.Actual != `{"type": "preparation_status", oops` {
		t.Fatalf("the failure keeps the bytes received; got %#v", r.Failure.Actual)
	}
}

// After a may_end step the Runtime may end its transport: a Runtime that drops it passes with the
// steps before, one that stays must still answer, and a wrong frame or a silence on a live
// connection still fails.
func TestMayEndAcceptsOnlyTheEndOfTheTransport(t *testing.T) {
	cat := load(t)
	for _, c := range []struct {
		runtime string
		want    scenarios.Verdict
		says    string
	}{
		{"broken/closes", scenarios.Pass, ""},
		{"expect/ready", scenarios.Pass, ""},
		{"broken/wrong-revision", scenarios.Fail, "revision"},
		{"broken/silent", scenarios.Fail, "nothing arrived within 300ms"},
	} {
		r := playAgainst(t, cat, "expect/ready-or-end", c.runtime)
		if r.Verdict != c.want || (c.says != "" && (r.Failure == nil || !strings.Contains(r.Failure.Message+r.Failure.Diff, c.says))) {
			t.Errorf("against %s: want %s (%q), got:\n%s", c.runtime, c.want, c.says, r)
		}
		ended := false
		for _, e := range r.Transcript {
			ended = ended || (e.Type == "ended" && strings.Contains(e.Note, "which step 3 allows (docs/spec-readings.md, device-shutdown-may-end-the-session)"))
		}
		if ended != (c.runtime == "broken/closes") {
			t.Errorf("against %s: transcript says the Runtime ended as allowed: %v", c.runtime, ended)
		}
	}
}
