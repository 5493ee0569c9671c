package script

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/tracing"
)

// Step span and attribute names (docs/tracing.md).
const (
	SpanStep      = "wirecheck.step"
	AttrStepIndex = "wirecheck.step.index"
	AttrStepKind  = "wirecheck.step.kind"
	AttrStepPos   = "wirecheck.step.pos"
)

// StepSpan opens the span of a step, a child of the scenario's span in ctx: the frames the step
// sends in the returned context carry its traceparent (so a peer's spans join under it), and what
// the transcript records meanwhile becomes its events. end closes it, in error when the step
// failed (failure is the message; empty when it passed). Without a recording scenario span
// (tracing off) it returns ctx and an end that does nothing: a step pays for no span.
func (p *Player) StepSpan(ctx context.Context, st *scenarios.Step) (context.Context, func(failure string)) {
	scenarioSpan := trace.SpanFromContext(ctx)
	if !scenarioSpan.IsRecording() {
		return ctx, func(string) {}
	}
	ctx, span := tracing.Tracer().Start(ctx, SpanStep, trace.WithAttributes(attribute.Int(AttrStepIndex, st.Index),
		attribute.String(AttrStepKind, string(st.Kind)), attribute.String(AttrStepPos, st.Pos.String())))
	p.Rec.Trace(span)
	return ctx, func(failure string) {
		if failure != "" {
			span.SetStatus(codes.Error, failure)
		}
		p.Rec.Trace(scenarioSpan)
		span.End()
	}
}

// StepFailure is the failure text of a step's outcome for StepSpan's end: the harness error, or
// the failure's message, or empty.
func StepFailure(f *scenarios.Failure, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case f != nil:
		return f.Message
	}
	return ""
}
