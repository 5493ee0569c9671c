package execution

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/tracing"
)

// Span and attribute names of a Turn (docs/tracing.md).
const (
	SpanTurn       = "wirecheck.core.turn"
	EventSent      = "sent"
	AttrTurnID     = "wirecheck.turn.id"
	AttrRunID      = "wirecheck.run.id"
	AttrDeviceID   = "wirecheck.device.id"
	AttrPhase      = "wirecheck.turn.phase"
	AttrOutcome    = "wirecheck.turn.outcome"
	AttrReason     = "wirecheck.turn.error_code"
	AttrFrameType  = "wirecheck.frame.type"
	AttrFrameID    = "wirecheck.frame.id"
	AttrSendFailed = "wirecheck.frame.send_failed"
)

// traceTurn opens the span of a Turn, from its claim to its outcome, and keeps its traceparent
// for the frames the Turn sends (stamped), so a Runtime's spans join the Turn's trace. The
// returned func ends it with the phase the Turn ended in.
func (r *runner) traceTurn() (end func()) {
	ctx, span := tracing.Tracer().Start(tracing.FromTrace(context.Background(), r.parentTrace), SpanTurn)
	r.span = span
	r.traceparent = tracing.Traceparent(ctx) // "" when tracing is off
	if !span.IsRecording() {
		return func() {} // nothing to describe, and a non-recording span needs no end
	}
	span.SetAttributes(attribute.String(AttrTurnID, r.rec.ID), attribute.String(AttrRunID, r.rec.RunID), attribute.String(AttrDeviceID, r.deviceID))
	return func() {
		span.SetAttributes(attribute.String(AttrPhase, r.rec.Phase))
		if o := r.rec.Outcome; o != nil {
			span.SetAttributes(attribute.String(AttrOutcome, o.Status), attribute.String(AttrReason, o.Reason))
			if o.Status == proto.TurnFailed {
				span.SetStatus(codes.Error, o.Reason)
			}
		}
		span.End()
	}
}

// stamped is env carrying the Turn's trace unless it has its own (facts §2.1: Core stamps its
// context's trace when absent); tracing off, it is env unchanged.
func (r *runner) stamped(env proto.Envelope) proto.Envelope {
	if env.Trace == "" {
		env.Trace = r.traceparent
	}
	return env
}

// traceSent records a frame the Turn sent (or failed to send) as an event of its span: type and
// id only, never a payload (an execution_prepare carries credentials).
func (r *runner) traceSent(env proto.Envelope, err error) {
	if r.span == nil || !r.span.IsRecording() {
		return
	}
	r.span.AddEvent(EventSent, trace.WithAttributes(attribute.String(AttrFrameType, env.Type),
		attribute.String(AttrFrameID, env.ID), attribute.Bool(AttrSendFailed, err != nil)))
}
