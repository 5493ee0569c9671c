package reports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/catalogsample"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

var started = time.Date(2026, 5, 4, 9, 30, 0, 0, time.UTC)

// A secret the fixtures plant in frames, notes, bindings and the target; it must never reach a report.
const secret = "sk-live-7f3a9c1e"

// hostile is what a malicious daemon sends to break out of HTML and XML.
const hostile = `</script><script>alert(1)</script> ]]> <img src=x onerror=alert(2)> & "quoted" 'single'`

func heartbeatFrame(supported ...string) string {
	caps := proto.MustDeclareCapabilities(supported...)
	env := proto.MustEnvelope("heartbeat", "", &proto.HeartbeatPayload{
		TS: 1767225600, DaemonVersion: "mydaemon 1.4.2",
		SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Version: "contract-1", Capabilities: &caps}},
	})
	b, err := env.Encode()
	if err != nil {
		panic(err)
	}
	return string(b)
}

func connect(hb string) []scenarios.Exchange {
	return []scenarios.Exchange{
		{At: 120 * time.Microsecond, Dir: scenarios.Event, Type: "attempt", Note: "bootstrap"},
		{At: 410 * time.Microsecond, Dir: scenarios.Event, Type: "connected", Note: "device runtime"},
		{At: 530 * time.Microsecond, Dir: scenarios.RuntimeToCore, Type: "heartbeat", Frame: hb},
	}
}

func result(id string, v scenarios.Verdict, f *scenarios.Failure, t []scenarios.Exchange) *scenarios.Result {
	return &scenarios.Result{
		Scenario: id, Title: "The scenario " + id, Spec: []string{"runtime-protocol.md#preparation-and-execution-order"},
		Labels: []string{"preparation"}, Played: scenarios.SideCore, Verdict: v, Failure: f, Transcript: t,
		Seed: "42", Duration: 12500 * time.Microsecond,
	}
}

// handRun has one case of every outcome, a hostile frame and a planted secret.
func handRun() *reports.Run {
	hb := heartbeatFrame("preparation", "environment_none", "streaming")
	prepare := `{"type":"execution_prepare","id":"prepare","payload":{"session_id":"session"}}`
	status := func(rev int) string {
		return fmt.Sprintf(`{"type":"preparation_status","id":"prepare","payload":{"executor_id":"executor-1","handle":"handle-%s","revision":%d,"state":"ready"}}`, secret, rev)
	}
	failT := append(connect(hb),
		scenarios.Exchange{At: time.Millisecond, Dir: scenarios.CoreToRuntime, Step: 1, Type: "execution_prepare", Frame: prepare},
		scenarios.Exchange{At: 2 * time.Millisecond, Dir: scenarios.RuntimeToCore, Step: 2, Type: "preparation_status", Frame: status(1)},
		scenarios.Exchange{At: 3 * time.Millisecond, Dir: scenarios.RuntimeToCore, Step: 3, Type: "preparation_status", Frame: status(3)},
	)
	fail := &scenarios.Failure{
		Step: 3, StepDesc: "runtime sends preparation_status", Pos: scenarios.Pos{File: "catalog/admission/prepare.yaml", Line: 13},
		Message:  "preparation_status payload.revision: want 2, got 3",
		Expected: map[string]any{"type": "preparation_status", "id": "prepare", "payload": map[string]any{"revision": float64(2)}},
		Actual:   map[string]any{"type": "preparation_status", "id": "prepare", "payload": map[string]any{"revision": float64(3)}},
		Diff:     "  {\n    \"id\": \"prepare\",\n-   \"revision\": 2,\n+   \"revision\": 3\n  }\n",
		Bindings: map[string]string{"executor": "executor-1", "handle": "handle-" + secret, "prepare": "prepare"},
	}
	hostileT := append(connect(hb),
		scenarios.Exchange{At: time.Millisecond, Dir: scenarios.CoreToRuntime, Step: 1, Type: "execution_prepare", Frame: prepare},
		scenarios.Exchange{At: 2 * time.Millisecond, Dir: scenarios.RuntimeToCore, Step: 2, Type: "(not an envelope)", Frame: hostile + "\x00\x1b"},
	)
	hostileF := &scenarios.Failure{
		Step: 2, StepDesc: "runtime sends preparation_status", Pos: scenarios.Pos{File: "catalog/x.yaml", Line: 7},
		Message: "the frame breaks a wire rule: envelope: malformed JSON: " + hostile, Actual: hostile,
		Expected: map[string]any{"type": "preparation_status", "id": "prepare"},
		Bindings: map[string]string{"note": hostile},
	}
	silentT := append(connect(hb),
		scenarios.Exchange{At: time.Millisecond, Dir: scenarios.CoreToRuntime, Step: 1, Type: "execution_prepare", Frame: prepare},
		scenarios.Exchange{At: 5 * time.Millisecond, Dir: scenarios.Event, Step: 2, Type: "advance", Note: "5m0s"},
	)
	return &reports.Run{
		Tool: "wirecheck 0.0.0-test", WireVersion: proto.Version,
		Target: "command: ./mydaemon --core {core_url} --token " + secret, Seed: "42",
		Started: started, Finished: started.Add(2*time.Second + 345*time.Millisecond),
		Profile: reports.ProfileFromHeartbeat([]byte(hb)),
		Selection: reports.Selection{Run: []string{"admission/"}, Skip: []string{"connection/version/"}, Labels: "!long-timer",
			KnownFailing: []string{"runs/known/still-broken", "runs/known/fixed-meanwhile"}},
		Redact: []string{secret},
		Cases: []reports.Case{
			{Result: result("admission/prepare/passes", scenarios.Pass, nil, connect(hb))},
			{Result: result("admission/prepare/wrong-revision", scenarios.Fail, fail, failT)},
			{Result: result("admission/prepare/hostile-frame", scenarios.Fail, hostileF, hostileT)},
			{Result: result("runs/needs-steering", scenarios.NotApplicable, &scenarios.Failure{
				Message: `kind "contract" does not declare [steering]`, Missing: []string{"steering"}}, connect(hb))},
			{Result: result("cancellation/deadline-after-dispatch", scenarios.Inconclusive, &scenarios.Failure{
				Step: 2, StepDesc: "the clock advances 5m0s", Pos: scenarios.Pos{File: "catalog/c.yaml", Line: 9},
				Message:  "the deadline passed after dispatch: the effect is unknown",
				Expected: map[string]any{"type": "preparation_status", "id": "prepare"}}, silentT)},
			{Result: result("connection/daemon-never-started", scenarios.HarnessError, &scenarios.Failure{
				Message: "launch: exec: ./mydaemon: permission denied"}, nil)},
			{Result: result("runs/known/still-broken", scenarios.Fail, fail, failT), KnownFailing: true},
			{Result: result("runs/known/fixed-meanwhile", scenarios.Pass, nil, connect(hb)), KnownFailing: true},
		},
	}
}

// realResults plays real scenarios once: the reference Runtime over a sample of the catalog, the
// self-check on a few, and the broken pairs of scriptedcore/testdata for real failures.
//
// The sample (catalogsample.Cover) shows every family, label, step kind and frame type of the
// Runtime side of the catalog in about 40 scenarios instead of 250: what these specs check is how
// real transcripts are rendered, bundled and read back, which takes the catalog's variety, not
// each of its scenarios (the gate plays each of them). The whole catalog made every report these
// specs render, many times over, cost seconds: it was most of this package's time.
var realResults = sync.OnceValue(func() []reports.Case {
	cat, err := scenarios.Embedded()
	if err != nil {
		panic(err)
	}
	// A safety net, not a budget: every scenario has its own bounds, and a loaded machine takes
	// minutes over the catalog.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var out []reports.Case
	sample := catalogsample.Cover(runner.Select(cat, runner.Options{}))
	for _, r := range runner.RunRuntime(ctx, sample, runner.ReferenceRuntime{}, runner.Options{Seed: "42", Parallel: 4}) {
		out = append(out, reports.Case{Result: r})
	}
	// Scenarios that test a Core: the self-check is the only pairing here that plays them, from
	// both sides.
	for _, id := range []string{"connection/credential/missing", "connection/heartbeat/no-capabilities-before-the-first-heartbeat"} {
		sc, _ := cat.Get(id)
		core, runtime := runner.SelfCheck(ctx, sc, runner.Options{Seed: "42"})
		out = append(out, reports.Case{Result: core}, reports.Case{Result: runtime})
	}
	pairs, err := scenarios.LoadDir("../scriptedcore/testdata")
	if err != nil {
		panic(err)
	}
	for _, broken := range []string{"broken/wrong-revision", "broken/silent", "broken/garbage"} {
		r := playBroken(ctx, pairs, "expect/ready", broken)
		r.Scenario = broken // name the case after the broken script it met
		out = append(out, reports.Case{Result: r})
	}
	return out
})

// playBroken plays `core` with the scripted Core against a scripted Runtime playing `runtime`, a
// broken script (as scriptedcore's own failure tests do).
func playBroken(ctx context.Context, cat *scenarios.Catalog, core, runtime string) *scenarios.Result {
	csc, _ := cat.Get(core)
	rsc, _ := cat.Get(runtime)
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		ctx, cancel := context.WithCancel(ctx)
		p := &peer{done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(p.done)
			scriptedruntime.Play(ctx, rsc, scriptedruntime.Config{ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Timeout: time.Second})
		}()
		return p, nil
	}
	return scriptedcore.Play(ctx, csc, scriptedcore.Config{Timeout: 300 * time.Millisecond, Seed: "42"}, launch)
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

// realRun is a run of real results, with a profile detected from their transcripts.
func realRun() *reports.Run {
	cases := realResults()
	return &reports.Run{
		Tool: "wirecheck 0.0.0-test", WireVersion: proto.Version, Target: "reference runtime (in process)", Seed: "42",
		Started: started, Finished: started.Add(3 * time.Second),
		Profile: reports.DetectProfile(cases), Cases: cases,
	}
}

// mixedRun is the hand-built cases and the real ones together.
func mixedRun() *reports.Run {
	r := handRun()
	r.Cases = append(r.Cases, realResults()...)
	return r
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
