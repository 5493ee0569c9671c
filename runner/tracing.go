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
// peers' (scriptedcore.SpanStep), frames the transcript's span events (internal/script).
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

// StartRunSpan opens the span of a run of n plays against target; the plays' scenario spans are
// its children (RunRuntime opens one; `wirecheck run` opens one over its pairings).
func StartRunSpan(ctx context.Context, target, seed string, n int) (context.Context, trace.Span) {
	return tracing.Tracer().Start(ctx, SpanRun, trace.WithAttributes(attribute.String(AttrTarget, target),
		attribute.String(AttrSeed, seed), attribute.Int(AttrScenarios, n)))
}

// EndRunSpan ends a run's span with a count per verdict: in error if any play failed, the harness
// did, or never ran (nil).
func EndRunSpan(span trace.Span, results []*scenarios.Result) {
	counts := map[scenarios.Verdict]int{}
	for _, r := range results {
		v := scenarios.HarnessError // interrupted before it ran
		if r != nil {
			v = r.Verdict
		}
		counts[v]++
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

// startScenario opens the span of one scenario that tests side in pairing. Attributes are set
// only on a recording span: off, a play pays for no attribute.
func startScenario(ctx context.Context, sc *scenarios.Scenario, side scenarios.Side, pairing string) (context.Context, trace.Span) {
	ctx, span := tracing.Tracer().Start(ctx, SpanScenario)
	if span.IsRecording() {
		span.SetAttributes(attribute.String(AttrScenarioID, sc.ID), attribute.StringSlice(AttrRules, sc.Rules),
			attribute.String(AttrSide, string(side)), attribute.String(AttrPairing, pairing))
	}
	return ctx, span
}

// endScenario ends a scenario's span with its verdict as status: a failure is an error naming the
// scenario's rules and the failure's message; a pass is Ok; not applicable (and inconclusive)
// leave it unset, the verdict attribute saying which.
func endScenario(span trace.Span, sc *scenarios.Scenario, r *scenarios.Result) {
	if !span.IsRecording() {
		span.End()
		return
	}
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
