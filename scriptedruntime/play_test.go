package scriptedruntime_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func load(t *testing.T) *scenarios.Catalog {
	t.Helper()
	cat, err := scenarios.LoadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

type peer struct {
	done   chan struct{}
	cancel context.CancelFunc
	once   sync.Once
}

func (p *peer) Done() <-chan struct{} { return p.done }
func (p *peer) Stop(context.Context) error {
	<-p.done
	p.once.Do(p.cancel)
	return nil
}

// pair plays coreID as the scripted Core and runtimeID as the scripted Runtime.
func pair(t *testing.T, coreID, runtimeID string, cfg scriptedcore.Config) (core, runtime *scenarios.Result) {
	t.Helper()
	return pairDriven(t, coreID, runtimeID, cfg, nil)
}

// pairDriven is pair with a CoreDriver for the scripted Runtime.
func pairDriven(t *testing.T, coreID, runtimeID string, cfg scriptedcore.Config, d scriptedruntime.CoreDriver) (core, runtime *scenarios.Result) {
	t.Helper()
	return pairRuntime(t, coreID, runtimeID, cfg, scriptedruntime.Config{Driver: d})
}

// pairRuntime is pair with the scripted Runtime's Driver and Kinds taken from rcfg.
func pairRuntime(t *testing.T, coreID, runtimeID string, cfg scriptedcore.Config, rcfg scriptedruntime.Config) (core, runtime *scenarios.Result) {
	t.Helper()
	cat := load(t)
	csc, _ := cat.Get(coreID)
	rsc, _ := cat.Get(runtimeID)
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		ctx, cancel := context.WithCancel(ctx)
		p := &peer{done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(p.done)
			runtime = scriptedruntime.Play(ctx, rsc, scriptedruntime.Config{ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Timeout: 500 * time.Millisecond,
				Driver: rcfg.Driver, Kinds: rcfg.Kinds})
		}()
		return p, nil
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 500 * time.Millisecond
	}
	core = scriptedcore.Play(context.Background(), csc, cfg, launch)
	return core, runtime
}

// A Core that starts with a handle the Runtime never issued fails on the Runtime side, at the
// step and line, with a diff.
func TestCoreSendingAForeignHandleFails(t *testing.T) {
	_, rt := pair(t, "broken/foreign-handle", "expect/start", scriptedcore.Config{})
	if rt.Verdict != scenarios.Fail {
		t.Fatalf("verdict %s:\n%s", rt.Verdict, rt)
	}
	t.Logf("as a user sees it:\n%s", rt)
	if f := rt.Failure; f.Step != 2 || f.Pos.Line != 7 || !strings.Contains(f.Message, `payload.handle: want ${handle} = "handle" (bound earlier), got "stale-handle"`) {
		t.Fatalf("failure: %+v", f)
	}
}

// A real daemon always presents proto.Version; with ShiftVersion the scripted Core requires another
// version so the mismatch, and the daemon's single attempt, can still be tested.
func TestShiftVersionRejectsADaemonPresentingTheRealVersion(t *testing.T) {
	cat := load(t)
	csc, _ := cat.Get("version/dev")
	rsc, _ := cat.Get("plain/connect")
	var rt *scenarios.Result
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		ctx, cancel := context.WithCancel(ctx)
		p := &peer{done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(p.done)
			rt = scriptedruntime.Play(ctx, rsc, scriptedruntime.Config{ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Timeout: 500 * time.Millisecond})
		}()
		return p, nil
	}
	core := scriptedcore.Play(context.Background(), csc, scriptedcore.Config{ShiftVersion: true, Timeout: 500 * time.Millisecond}, launch)
	if core.Verdict != scenarios.Pass {
		t.Fatalf("scripted Core:\n%s", core)
	}
	if rt.Verdict != scenarios.Fail || !strings.Contains(rt.Failure.Message, "426 incompatible_version") {
		t.Fatalf("the daemon should have been refused with 426:\n%s", rt)
	}
}

// A daemon that tries again after a permanent rejection is caught.
func TestRetryAfterPermanentRejectionIsCaught(t *testing.T) {
	cat := load(t)
	csc, _ := cat.Get("version/dev")
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		p := &peer{done: make(chan struct{}), cancel: func() {}}
		go func() {
			defer close(p.done)
			for range 2 { // a broken reconnect loop: it ignores 426
				req, _ := http.NewRequest(http.MethodGet, c.ServerURL+"/agent-daemon/ws?device_id="+c.DeviceID+"&version=0.11.0-dev", nil)
				req.Header.Set("Authorization", "Bearer "+c.Credential)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}()
		return p, nil
	}
	core := scriptedcore.Play(context.Background(), csc, scriptedcore.Config{Timeout: 500 * time.Millisecond, RetryWindow: 500 * time.Millisecond}, launch)
	if core.Verdict != scenarios.Fail || !strings.Contains(core.Failure.Message, "tried again (dial)") {
		t.Fatalf("a retry after 426 must fail the daemon:\n%s", core)
	}
}

// A check the driver cannot answer makes the run not applicable, but the scripted Runtime plays
// the steps after it: the scripted Core still receives the done that follows.
func TestUnanswerableCheckIsNotApplicableAndPlayGoesOn(t *testing.T) {
	core, rt := pair(t, "check/then-frame", "check/then-frame", scriptedcore.Config{})
	if core.Verdict != scenarios.Pass {
		t.Fatalf("the scripted Core should have received the frame after the check:\n%s", core)
	}
	if rt.Verdict != scenarios.NotApplicable || rt.Failure == nil || rt.Failure.Step != 1 {
		t.Fatalf("the scripted Runtime should report the check as not applicable:\n%s", rt)
	}
}

// A reconnect while the first connection is open is a second connection for the device: the
// scripted Core replaces the first (closes it), which the scripted Runtime requires.
func TestSecondConnectionReplacesTheFirst(t *testing.T) {
	core, rt := pair(t, "replace/second-connection", "replace/second-connection", scriptedcore.Config{})
	if core.Verdict != scenarios.Pass || rt.Verdict != scenarios.Pass {
		t.Fatalf("scripted Core:\n%s\nscripted Runtime:\n%s", core, rt)
	}
}

// readWatchedDriver records, in order, the driver calls an advance makes.
type readWatchedDriver struct {
	mu    sync.Mutex
	calls []string
}

func (d *readWatchedDriver) record(call string) {
	d.mu.Lock()
	d.calls = append(d.calls, call)
	d.mu.Unlock()
}
func (d *readWatchedDriver) Begin(context.Context, *scenarios.Scenario) error { return nil }
func (d *readWatchedDriver) Trigger(context.Context, *scenarios.Step, *scenarios.Bindings) error {
	return nil
}
func (d *readWatchedDriver) Check(context.Context, *scenarios.Check, *scenarios.Bindings) error {
	return scriptedruntime.ErrNotApplicable
}
func (d *readWatchedDriver) Advance(time.Duration)                                  { d.record("advance") }
func (d *readWatchedDriver) Disconnect(context.Context, *scenarios.CloseSpec) error { return nil }
func (d *readWatchedDriver) Restart(context.Context) error                          { return nil }
func (d *readWatchedDriver) AwaitReadAll(context.Context) error {
	d.record("await-read-all")
	return nil
}

// An advance against a Core whose sockets are watched waits for Core to have read what the
// Runtime sent before it moves Core's clock (the flake of core/preparation/capacity-rejection-
// leaves-the-turn-unclaimed at a load average of 20: Core routed the rejection after the advance,
// and its retry fell due 30 s late).
func TestAdvanceWaitsForCoreToReadWhatWasSent(t *testing.T) {
	d := &readWatchedDriver{}
	core, rt := pairDriven(t, "advance/after-a-frame", "advance/after-a-frame", scriptedcore.Config{}, d)
	if core.Verdict != scenarios.Pass || rt.Verdict != scenarios.Pass {
		t.Fatalf("scripted Core:\n%s\nscripted Runtime:\n%s", core, rt)
	}
	if want := []string{"await-read-all", "advance"}; !slices.Equal(d.calls, want) {
		t.Fatalf("driver calls %v, want %v", d.calls, want)
	}
}

// unavailable_kinds: the scenario is played against a Runtime that advertises the kind with
// available: false, and not applicable against one that does not advertise it.
func TestUnavailableKindsDecideApplicability(t *testing.T) {
	core, _ := pair(t, "unavailable/needed", "unavailable/needed", scriptedcore.Config{})
	if core.Verdict != scenarios.Pass {
		t.Fatalf("a Runtime advertising the kind unavailable plays the scenario:\n%s", core)
	}
	core, _ = pair(t, "unavailable/needed", "unavailable/not-advertised", scriptedcore.Config{})
	if core.Verdict != scenarios.NotApplicable || core.Failure == nil || !strings.Contains(core.Failure.Cause, `"elsewhere"`) {
		t.Fatalf("a Runtime that does not advertise the kind finds the scenario not applicable:\n%s", core)
	}
	// The unavailable kind must declare what the scenario requires, as kind contract must.
	core, _ = pair(t, "unavailable/needs-preparation", "unavailable/needs-preparation", scriptedcore.Config{})
	if core.Verdict != scenarios.Pass {
		t.Fatalf("a Runtime whose unavailable kind declares what the scenario requires plays it:\n%s", core)
	}
	contract, bare := proto.MustDeclareCapabilities("preparation"), proto.MustDeclareCapabilities()
	core, _ = pairRuntime(t, "unavailable/needs-preparation", "unavailable/needs-preparation", scriptedcore.Config{}, scriptedruntime.Config{Kinds: []proto.SupportedAgentKind{
		{Kind: "contract", Available: true, Version: "scripted", Capabilities: &contract},
		{Kind: "elsewhere", Available: false, Version: "scripted", Capabilities: &bare},
	}})
	if core.Verdict != scenarios.NotApplicable || core.Failure == nil || !strings.Contains(core.Failure.Cause, `kind "elsewhere" does not declare [preparation]`) ||
		!slices.Equal(core.Failure.Missing, []string{"preparation"}) {
		t.Fatalf("a Runtime whose unavailable kind lacks a required capability finds the scenario not applicable:\n%s", core)
	}
}

// triggerDriver records the steps it is asked to make Core send, and whether the scripted
// Runtime was reading then.
type triggerDriver struct {
	readWatchedDriver
	triggered []int
}

func (d *triggerDriver) Trigger(_ context.Context, st *scenarios.Step, _ *scenarios.Bindings) error {
	d.triggered = append(d.triggered, st.Index)
	return nil
}

// A core frame step played while the scripted Runtime reads nothing makes Core send its frame at
// once (the driver is asked at the step) and is read at resume_reading, in step order: a
// mismatch is the step's own failure, at its line.
func TestCoreFramesSentWhileNotReadingAreReadOnResume(t *testing.T) {
	d := &triggerDriver{}
	core, rt := pairDriven(t, "stall/frames-read-on-resume", "stall/frames-read-on-resume", scriptedcore.Config{}, d)
	if core.Verdict != scenarios.Pass || rt.Verdict != scenarios.Pass {
		t.Fatalf("scripted Core:\n%s\nscripted Runtime:\n%s", core, rt)
	}
	if want := []int{2, 3, 4, 6}; !slices.Equal(d.triggered, want) {
		t.Fatalf("triggered steps %v, want %v", d.triggered, want)
	}
	_, rt = pair(t, "stall/other-frame-on-resume", "stall/frames-read-on-resume", scriptedcore.Config{})
	if rt.Verdict != scenarios.Fail || rt.Failure.Step != 4 || !strings.Contains(rt.Failure.Message, "differs") {
		t.Fatalf("the third frame differs: want a failure at step 4:\n%s", rt)
	}
}
