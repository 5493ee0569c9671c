package runner

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/tracing"
)

// Span and attribute names of a run and its scenarios (docs/tracing.md); steps are the scripted
// Core's (scriptedcore.SpanStep), frames the transcript's span events (internal/script).
const (
	SpanRun            = "wirecheck.run"
	SpanScenario       = "wirecheck.scenario"
	AttrTarget         = "wirecheck.target"
	AttrScenarios      = "wirecheck.run.scenarios"
	AttrScenarioID     = "wirecheck.scenario.id"
	AttrRules          = "wirecheck.scenario.rules"
	AttrSide           = "wirecheck.scenario.side"
	AttrPairing        = "wirecheck.pairing"
	AttrSeed           = "wirecheck.seed"
	AttrVerdict        = "wirecheck.verdict"
	AttrFailureStep    = "wirecheck.failure.step"
	AttrFailureMessage = "wirecheck.failure.message"
)

// startRun opens the span of a run of scenarios against t; its scenarios' spans are its children.
func startRun(ctx context.Context, scs []*scenarios.Scenario, t Target, o Options) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, SpanRun, trace.WithAttributes(attribute.String(AttrTarget, t.Describe()),
		attribute.String(AttrSeed, o.Seed), attribute.Int(AttrScenarios, len(scs))))
}

// endRun ends a run's span: in error if any scenario failed or the harness did.
func endRun(span trace.Span, results []*scenarios.Result) {
	counts := map[scenarios.Verdict]int{}
	for _, r := range results {
		counts[r.Verdict]++
	}
	for v, n := range counts {
		span.SetAttributes(attribute.Int(AttrVerdict+"."+string(v), n))
	}
	if n := counts[scenarios.Fail] + counts[scenarios.HarnessError]; n > 0 {
		span.SetStatus(codes.Error, "a scenario did not pass")
	} else {
		span.SetStatus(codes.Ok, "")
	}
	span.End()
}

// startScenario opens the span of one scenario played by the scripted Core against t.
func startScenario(ctx context.Context, sc *scenarios.Scenario, t Target) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, SpanScenario, trace.WithAttributes(attribute.String(AttrScenarioID, sc.ID),
		attribute.StringSlice(AttrRules, sc.Rules), attribute.String(AttrSide, string(scenarios.SideRuntime)),
		attribute.String(AttrPairing, "scripted Core vs "+t.Describe())))
}

// endScenario ends a scenario's span with its verdict as status: a failure is an error naming the
// scenario's rules and the failure's message; a pass is Ok; not applicable (and inconclusive)
// leave it unset, the verdict attribute saying which.
func endScenario(span trace.Span, sc *scenarios.Scenario, r *scenarios.Result) {
	span.SetAttributes(attribute.String(AttrVerdict, string(r.Verdict)), attribute.String(AttrSeed, r.Seed))
	switch r.Verdict {
	case scenarios.Pass:
		span.SetStatus(codes.Ok, "")
	case scenarios.Fail, scenarios.HarnessError:
		msg := ""
		if r.Failure != nil {
			msg = r.Failure.Message
			span.SetAttributes(attribute.Int(AttrFailureStep, r.Failure.Step), attribute.String(AttrFailureMessage, msg))
		}
		span.SetStatus(codes.Error, strings.Join(sc.Rules, ",")+": "+msg)
	}
	span.End()
}
