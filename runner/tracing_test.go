package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/tracing"
	"github.com/wirecheck/wirecheck/tracing/tracingtest"
)

func named(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func attr(kvs []attribute.KeyValue, key string) (attribute.Value, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func attrString(kvs []attribute.KeyValue, key string) string {
	v, _ := attr(kvs, key)
	return v.String()
}

func catalogScenarios(t *testing.T, ids ...string) []*scenarios.Scenario {
	t.Helper()
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var out []*scenarios.Scenario
	for _, id := range ids {
		sc, ok := cat.Get(id)
		if !ok {
			t.Fatalf("no scenario %s", id)
		}
		out = append(out, sc)
	}
	return out
}

// envelopeTrace is the trace member of a transcript frame ("" when it has none).
func envelopeTrace(t *testing.T, raw string) string {
	t.Helper()
	var env struct {
		Trace *string `json:"trace"`
	}
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		t.Fatalf("a transcript frame is not JSON: %v", err)
	}
	if env.Trace == nil {
		return ""
	}
	return *env.Trace
}

const traceCredential = "wck_tracing_test_credential_never_in_a_span"

// A run against the reference Runtime in process is one trace: the run's span, a child per
// scenario with its verdict as status, a child per step, and the transcript's frames and events
// as the steps' span events (the same count as the transcript, never a payload). The scripted
// Core stamps each frame it sends with its step's traceparent; the reference Runtime's admission
// and Run spans join under the step that sent the request, and the Run's frames carry the trace of
// the request that started it.
func TestTracingSpansRunScenarioStepFrames(t *testing.T) {
	rec := tracingtest.Record(t)
	scs := catalogScenarios(t, "runs/prepared/completes-and-releases-before-done", "runs/prompt-request/streams-in-order-then-done")
	results := runner.RunRuntime(context.Background(), scs, runner.ReferenceRuntime{}, runner.Options{Seed: "trace", Credential: traceCredential})
	for _, r := range results {
		if r.Verdict != scenarios.Pass {
			t.Fatalf("with tracing on: %s", r)
		}
	}
	spans := rec.Ended()
	runs := named(spans, runner.SpanRun)
	if len(runs) != 1 {
		t.Fatalf("%d run spans", len(runs))
	}
	run := runs[0]
	if run.Status().Code != codes.Ok || attrString(run.Attributes(), runner.AttrSeed) != "trace" {
		t.Errorf("run span: status %v, attributes %v", run.Status(), run.Attributes())
	}
	traceID := run.SpanContext().TraceID()
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byID[s.SpanContext().SpanID()] = s
		if s.SpanContext().TraceID() != traceID {
			t.Errorf("span %s is in trace %s, not the run's", s.Name(), s.SpanContext().TraceID())
		}
		for _, kv := range allAttributes(s) {
			if strings.Contains(kv.Value.String(), traceCredential) {
				t.Errorf("span %s carries the credential in %s", s.Name(), kv.Key)
			}
		}
	}
	for i, sc := range scs {
		t.Run(sc.ID, func(t *testing.T) {
			checkScenarioTrace(t, spans, byID, run, sc, results[i])
		})
	}
}

func allAttributes(s sdktrace.ReadOnlySpan) []attribute.KeyValue {
	out := slices.Clone(s.Attributes())
	for _, ev := range s.Events() {
		out = append(out, ev.Attributes...)
	}
	return out
}

func checkScenarioTrace(t *testing.T, spans []sdktrace.ReadOnlySpan, byID map[trace.SpanID]sdktrace.ReadOnlySpan,
	run sdktrace.ReadOnlySpan, sc *scenarios.Scenario, res *scenarios.Result) {
	var scSpan sdktrace.ReadOnlySpan
	for _, s := range named(spans, runner.SpanScenario) {
		if attrString(s.Attributes(), runner.AttrScenarioID) == sc.ID {
			scSpan = s
		}
	}
	if scSpan == nil {
		t.Fatal("no scenario span")
	}
	if scSpan.Parent().SpanID() != run.SpanContext().SpanID() {
		t.Error("the scenario span is not the run span's child")
	}
	if v, _ := attr(scSpan.Attributes(), runner.AttrRules); !slices.Equal(v.AsStringSlice(), sc.Rules) {
		t.Errorf("rules attribute %v, want %v", v.AsStringSlice(), sc.Rules)
	}
	if scSpan.Status().Code != codes.Ok || attrString(scSpan.Attributes(), runner.AttrVerdict) != "pass" {
		t.Errorf("scenario span status %v, verdict %q", scSpan.Status(), attrString(scSpan.Attributes(), runner.AttrVerdict))
	}
	steps := map[int]sdktrace.ReadOnlySpan{} // by step index
	frames := len(scSpan.Events())
	for _, s := range named(spans, scriptedcore.SpanStep) {
		if s.Parent().SpanID() == scSpan.SpanContext().SpanID() {
			v, _ := attr(s.Attributes(), scriptedcore.AttrStepIndex)
			steps[int(v.AsInt64())] = s
			frames += len(s.Events())
		}
	}
	if len(steps) != len(sc.Steps) {
		t.Errorf("%d step spans for %d steps", len(steps), len(sc.Steps))
	}
	if frames != len(res.Transcript) {
		t.Errorf("%d span events for %d transcript entries", frames, len(res.Transcript))
	}
	// Every frame the scripted Core sent carries the traceparent of its step's span, and its span
	// event says what it was.
	var startTrace string
	for _, e := range res.Transcript {
		if e.Dir != scenarios.CoreToRuntime || e.Type == proto.TypeHeartbeat {
			continue
		}
		step := steps[e.Step]
		if step == nil {
			t.Fatalf("a %s frame of step %d has no step span", e.Type, e.Step)
		}
		if got, want := envelopeTrace(t, e.Frame), tracing.Traceparent(trace.ContextWithSpanContext(context.Background(), step.SpanContext())); got != want {
			t.Errorf("the %s frame of step %d carries trace %q, want its step's %q", e.Type, e.Step, got, want)
		}
		if e.Type == proto.TypeExecutionStart || e.Type == proto.TypePromptRequest {
			startTrace = envelopeTrace(t, e.Frame)
		}
		if !slices.ContainsFunc(step.Events(), func(ev sdktrace.Event) bool {
			return ev.Name == script.EventFrame && attrString(ev.Attributes, script.AttrFrameType) == e.Type &&
				attrString(ev.Attributes, script.AttrDirection) == string(scenarios.CoreToRuntime) &&
				attrString(ev.Attributes, script.AttrVerdict) == "ok" && attrString(ev.Attributes, script.AttrFrameConn) == "1"
		}) {
			t.Errorf("step %d's span has no frame event for its %s: %v", e.Step, e.Type, step.Events())
		}
	}
	// The Run's frames carry the trace of the request that started it.
	runFrames := 0
	for _, e := range res.Transcript {
		if e.Dir == scenarios.RuntimeToCore && (e.Type == proto.TypeDone || e.Type == proto.TypeDelta) {
			runFrames++
			if got := envelopeTrace(t, e.Frame); got != startTrace {
				t.Errorf("the Run's %s carries trace %q, want the starting request's %q", e.Type, got, startTrace)
			}
		}
	}
	if runFrames == 0 || startTrace == "" {
		t.Fatalf("no Run frames (%d) or no starting request trace (%q)", runFrames, startTrace)
	}
	// The daemon's spans join the trace under the step whose frame caused them.
	var daemonSpans int
	for _, s := range spans {
		if s.Name() != daemon.SpanAdmission && s.Name() != daemon.SpanRun {
			continue
		}
		parent, ok := byID[s.Parent().SpanID()]
		if !ok || parent.Name() != scriptedcore.SpanStep || parent.Parent().SpanID() != scSpan.SpanContext().SpanID() {
			continue // another scenario's
		}
		daemonSpans++
		if !s.Parent().IsRemote() {
			t.Errorf("%s is parented by a local span, not the envelope's trace", s.Name())
		}
		if s.Name() == daemon.SpanRun && tracing.Traceparent(trace.ContextWithSpanContext(context.Background(), parent.SpanContext())) != startTrace {
			t.Errorf("the Run span's parent is not the step that started the Run")
		}
	}
	if daemonSpans < 2 {
		t.Errorf("%d reference Runtime spans joined the scenario's steps, want an admission and a Run at least", daemonSpans)
	}
}

// A failing scenario's span ends in error naming its rules and the failure; its run's span too,
// and the failing step's. A scenario that is not applicable leaves the status unset and says so.
func TestTracingVerdictIsTheScenarioStatus(t *testing.T) {
	rec := tracingtest.Record(t)
	good := catalogScenarios(t, "prefix/started")[0]
	bad := *good
	bad.ID = "prefix/started-expecting-done"
	bad.Steps = slices.Clone(good.Steps)
	last := *bad.Steps[len(bad.Steps)-1]
	ft := *last.Frame
	ft.Type = proto.TypeDone // the reference sends preparation_status here
	last.Frame = &ft
	bad.Steps[len(bad.Steps)-1] = &last
	o := runner.Options{Seed: "verdict", Step: 500e6}
	failed := runner.RunRuntime(context.Background(), []*scenarios.Scenario{&bad}, runner.ReferenceRuntime{}, o)[0]
	if failed.Verdict != scenarios.Fail {
		t.Fatalf("the broken scenario: %s", failed)
	}
	na := runner.RunRuntime(context.Background(), []*scenarios.Scenario{good}, runner.ReferenceRuntime{Without: []string{"preparation"}}, o)[0]
	if na.Verdict != scenarios.NotApplicable {
		t.Fatalf("without preparation: %s", na)
	}
	var sawFail, sawNA bool
	for _, s := range named(rec.Ended(), runner.SpanScenario) {
		switch attrString(s.Attributes(), runner.AttrScenarioID) {
		case bad.ID:
			sawFail = true
			st := s.Status()
			if st.Code != codes.Error || !strings.HasPrefix(st.Description, strings.Join(good.Rules, ",")+": ") ||
				!strings.Contains(st.Description, failed.Failure.Message) {
				t.Errorf("failing scenario's status %v, want an error naming %v and %q", st, good.Rules, failed.Failure.Message)
			}
			if attrString(s.Attributes(), runner.AttrVerdict) != "fail" {
				t.Errorf("verdict attribute %q", attrString(s.Attributes(), runner.AttrVerdict))
			}
		case good.ID:
			sawNA = true
			if s.Status().Code != codes.Unset || attrString(s.Attributes(), runner.AttrVerdict) != "not_applicable" {
				t.Errorf("not applicable: status %v, verdict %q", s.Status(), attrString(s.Attributes(), runner.AttrVerdict))
			}
		}
	}
	if !sawFail || !sawNA {
		t.Fatalf("scenario spans: fail %v, not applicable %v", sawFail, sawNA)
	}
	var failedSteps, failedRuns int
	for _, s := range rec.Ended() {
		if s.Status().Code == codes.Error && s.Name() == scriptedcore.SpanStep {
			failedSteps++
			if v, _ := attr(s.Attributes(), scriptedcore.AttrStepIndex); int(v.AsInt64()) != failed.Failure.Step {
				t.Errorf("step %d's span is in error, but step %d failed", v.AsInt64(), failed.Failure.Step)
			}
		}
		if s.Status().Code == codes.Error && s.Name() == runner.SpanRun {
			failedRuns++
		}
	}
	if failedSteps != 1 || failedRuns != 1 {
		t.Errorf("%d step spans and %d run spans in error, want 1 and 1", failedSteps, failedRuns)
	}
}

// The reference Core traces a Turn's admission and the Turn itself, and stamps the Turn's
// traceparent on the frames the Turn sends, so a Runtime's spans would join it.
func TestTracingReferenceCoreTurn(t *testing.T) {
	rec := tracingtest.Record(t)
	sc := catalogScenarios(t, "core/admission/opt-ins-follow-the-declaration")[0]
	res := runner.PlayReferenceCore(context.Background(), sc, "core-trace")
	if res.Verdict != scenarios.Pass {
		t.Fatalf("with tracing on: %s", res)
	}
	// The scripted Runtime's side: one scenario span (the Core under test, passed) over its steps.
	scs := named(rec.Ended(), runner.SpanScenario)
	if len(scs) != 1 || attrString(scs[0].Attributes(), runner.AttrSide) != string(scenarios.SideCore) || scs[0].Status().Code != codes.Ok {
		t.Fatalf("scenario spans %d, want 1 for side core with status Ok", len(scs))
	}
	steps := named(rec.Ended(), scriptedcore.SpanStep)
	if len(steps) != len(sc.Steps) {
		t.Errorf("%d step spans for %d steps", len(steps), len(sc.Steps))
	}
	stepEvents := 0
	for _, s := range steps {
		if s.Parent().SpanID() != scs[0].SpanContext().SpanID() {
			t.Errorf("step span %v is not a child of the scenario span", s.Attributes())
		}
		stepEvents += len(s.Events())
	}
	if stepEvents == 0 {
		t.Error("the scripted Runtime's steps carry no frame events")
	}
	turns := named(rec.Ended(), execution.SpanTurn)
	admissions := named(rec.Ended(), core.SpanAdmission)
	if len(turns) != 1 || len(admissions) != 1 {
		t.Fatalf("%d Turn spans and %d admission spans, want 1 and 1", len(turns), len(admissions))
	}
	turn, adm := turns[0], admissions[0]
	runID := attrString(turn.Attributes(), execution.AttrRunID)
	if runID == "" || attrString(adm.Attributes(), execution.AttrRunID) != runID || adm.Status().Code == codes.Error {
		t.Errorf("admission span %v does not name the Turn's Run %q", adm.Attributes(), runID)
	}
	if turn.Parent().SpanID() != adm.SpanContext().SpanID() || turn.SpanContext().TraceID() != adm.SpanContext().TraceID() {
		t.Errorf("the Turn span is not a child of its admission span: parent %v, admission %v", turn.Parent(), adm.SpanContext())
	}
	if attrString(turn.Attributes(), execution.AttrOutcome) != "completed" || attrString(turn.Attributes(), execution.AttrPhase) != "done" {
		t.Errorf("Turn span attributes %v", turn.Attributes())
	}
	want := tracing.Traceparent(trace.ContextWithSpanContext(context.Background(), turn.SpanContext()))
	sent := 0
	for _, e := range res.Transcript {
		if e.Dir == scenarios.CoreToRuntime && (e.Type == proto.TypeExecutionPrepare || e.Type == proto.TypeExecutionStart) {
			sent++
			if got := envelopeTrace(t, e.Frame); got != want {
				t.Errorf("Core's %s carries trace %q, want the Turn's %q", e.Type, got, want)
			}
		}
	}
	var events int
	for _, ev := range turn.Events() {
		if ev.Name == execution.EventSent {
			events++
		}
	}
	if sent != 2 || events != 2 {
		t.Errorf("%d stamped frames and %d sent events, want 2 and 2", sent, events)
	}
}

// Outside a Turn the reference Core traces each thing it runs on a connection (a preparation, a
// workspace operation, a suspension request) in a span of its own, and every frame that thing
// sends, bulk chunks included, carries that span's traceparent.
func TestTracingReferenceCoreOperations(t *testing.T) {
	for _, c := range []struct {
		scenario, span, state string
		types                 []string
	}{
		{"core/runtime-prepare/multi-chunk-file", execution.SpanPreparation, "completed", []string{proto.TypeRuntimePrepare}},
		{"core/workspace/write-chunked", execution.SpanWorkspace, "completed", []string{proto.TypeWorkspaceWrite}},
		{"core/suspension/quiesce-accepted-fences-work", execution.SpanSuspension, "accepted", []string{proto.TypeEnvironmentQuiesce}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			rec := tracingtest.Record(t)
			sc := catalogScenarios(t, c.scenario)[0]
			res := runner.PlayReferenceCore(context.Background(), sc, "core-op-trace")
			if res.Verdict != scenarios.Pass {
				t.Fatalf("with tracing on: %s", res)
			}
			byTrace := map[string]sdktrace.ReadOnlySpan{}
			for _, s := range named(rec.Ended(), c.span) {
				byTrace[tracing.Traceparent(trace.ContextWithSpanContext(context.Background(), s.SpanContext()))] = s
			}
			frames := 0
			var span sdktrace.ReadOnlySpan
			for _, e := range res.Transcript {
				if e.Dir != scenarios.CoreToRuntime || !slices.Contains(c.types, e.Type) {
					continue
				}
				frames++
				got := envelopeTrace(t, e.Frame)
				s, ok := byTrace[got]
				if !ok {
					t.Fatalf("Core's %s carries trace %q, which is no %s span's", e.Type, got, c.span)
				}
				if span != nil && s != span {
					t.Fatalf("the operation's frames carry the traces of two spans")
				}
				span = s
			}
			if frames == 0 {
				t.Fatalf("Core sent no %v", c.types)
			}
			if got := attrString(span.Attributes(), execution.AttrOpState); got != c.state {
				t.Errorf("the %s span ended in state %q, want %q (attributes %v)", c.span, got, c.state, span.Attributes())
			}
			if span.Status().Code == codes.Error {
				t.Errorf("the %s span is in error: %v", c.span, span.Status())
			}
			sent := 0
			for _, ev := range span.Events() {
				if ev.Name == execution.EventSent {
					sent++
				}
			}
			if sent == 0 || sent > frames {
				t.Errorf("%d sent events for %d frames (bulk chunks are not events)", sent, frames)
			}
		})
	}
}

// Tracing off (the default): nothing records, and no frame carries a trace but those a scenario
// writes itself (WS-15's), so the scripted Core's frames are what the scenario renders and the
// reference Runtime adds none.
func TestTracingOffChangesNoFrame(t *testing.T) {
	scs := catalogScenarios(t, "runs/prepared/completes-and-releases-before-done", "workspace/runtime/read-reply-trace-over-256-is-dropped")
	for i, r := range runner.RunRuntime(context.Background(), scs, runner.ReferenceRuntime{}, runner.Options{Seed: "off"}) {
		if r.Verdict != scenarios.Pass {
			t.Fatalf("%s", r)
		}
		written := map[int]bool{} // steps whose frame template writes a trace
		for _, st := range scs[i].Steps {
			written[st.Index] = st.Frame != nil && st.Frame.Trace != nil
		}
		for _, e := range r.Transcript {
			if (e.Dir == scenarios.CoreToRuntime || e.Dir == scenarios.RuntimeToCore) && !written[e.Step] {
				if got := envelopeTrace(t, e.Frame); got != "" {
					t.Errorf("%s: the %s %s of step %d carries trace %q with tracing off", r.Scenario, e.Dir, e.Type, e.Step, got)
				}
			}
		}
	}
}

// The reference Core's side of the catalog with tracing on, four at a time: stamping the Turn's
// trace on Core's frames changes no verdict (the gate plays it with tracing off).
func TestReferenceCoreCatalogPassesWithTracingOn(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the Core side of the catalog")
	}
	tracingtest.Record(t)
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	p := runner.ReferenceCorePairing()
	var jobs []runner.Job
	for _, sc := range cat.Select(nil, nil) {
		if p.Covers(sc) && p.Skip(sc) == "" {
			jobs = append(jobs, runner.Job{Key: sc.ID, Play: func(ctx context.Context) *scenarios.Result { return p.Play(ctx, sc, "core-traced") }})
		}
	}
	for _, r := range runner.StartBatch(context.Background(), jobs, 4, nil).Results() {
		if r == nil || r.Verdict != scenarios.Pass {
			t.Errorf("with tracing on: %v", r)
		}
	}
	if len(jobs) == 0 {
		t.Fatal("no Core scenarios")
	}
}

// Traced traffic is judged as untraced traffic is: through a relay that does nothing, a monitor
// raises no alarm against the reference Runtime, and every scenario's journal rejudges to its
// recorded verdict with no difference (the scenarios fault/transparent_test.go monitors).
func TestTracedTrafficMonitorsAndRejudgesClean(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the Runtime side of the catalog")
	}
	tracingtest.Record(t)
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var scs []*scenarios.Scenario
	for _, sc := range runner.Select(cat, runner.Options{}) {
		stalls := slices.ContainsFunc(sc.Steps, func(st *scenarios.Step) bool { return st.Kind == scenarios.StepAwaitStall })
		if !sc.HasFaults() && !stalls && (sc.BootstrapAnswer == nil || sc.BootstrapAnswer.StalledUpgrades == 0) {
			scs = append(scs, sc)
		}
	}
	var mu sync.Mutex
	mons := map[string]*monitor.Monitor{}
	o := runner.Options{Parallel: 4, Seed: "traced", Faults: &fault.Schedule{}, Tap: func(sc *scenarios.Scenario) fault.Tap {
		m := monitor.New(nil)
		mu.Lock()
		mons[sc.ID] = m
		mu.Unlock()
		return m
	}}
	stamped := 0
	for _, r := range runner.RunRuntime(context.Background(), scs, runner.ReferenceRuntime{}, o) {
		if r.Verdict != scenarios.Pass {
			t.Errorf("with tracing on, through the relay: %s", r)
			continue
		}
		for _, e := range r.Transcript {
			if e.Dir == scenarios.CoreToRuntime && strings.Contains(e.Frame, `"trace":"00-`) {
				stamped++
			}
		}
		for _, a := range mons[r.Scenario].Alarms() {
			if a.From == proto.Runtime {
				t.Errorf("%s: the monitor blamed the reference Runtime: %s", r.Scenario, a)
			}
		}
		var b bytes.Buffer
		if _, err := journal.Write(&b, journal.Header{Wire: proto.Version, Clock: "virtual"}, r, nil); err != nil {
			t.Fatal(err)
		}
		recs, err := journal.Read(&b)
		if err != nil {
			t.Fatal(err)
		}
		if got := journal.Rejudge(recs, cat); len(got.Differences) > 0 || got.Now != "pass" {
			t.Errorf("%s: rejudged %q with differences %v", r.Scenario, got.Now, got.Differences)
		}
	}
	if stamped == 0 {
		t.Fatal("no frame carried a trace: tracing was not on")
	}
}
