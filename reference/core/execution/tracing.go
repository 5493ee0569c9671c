package execution

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/tracing"
)

// Span and attribute names of what Core runs on a connection (docs/tracing.md).
const (
	SpanTurn        = "wirecheck.core.turn"
	SpanPreparation = "wirecheck.core.preparation" // a connection's Environment preparation
	SpanWorkspace   = "wirecheck.core.workspace"   // a workspace read, write or export
	SpanSuspension  = "wirecheck.core.suspension"  // a quiesce or resume request
	EventSent       = "sent"
	AttrTurnID      = "wirecheck.turn.id"
	AttrRunID       = "wirecheck.run.id"
	AttrDeviceID    = "wirecheck.device.id"
	AttrPhase       = "wirecheck.turn.phase"
	AttrOutcome     = "wirecheck.turn.outcome"
	AttrReason      = "wirecheck.turn.error_code"
	AttrOpID        = "wirecheck.op.id"
	AttrOpKind      = "wirecheck.op.kind"
	AttrOpState     = "wirecheck.op.state"
	AttrOpCode      = "wirecheck.op.error_code"
	AttrConnection  = "wirecheck.connection"
	AttrFrameType   = "wirecheck.frame.type"
	AttrFrameID     = "wirecheck.frame.id"
	AttrSendFailed  = "wirecheck.frame.send_failed"
)

// opTrace is the span of one thing Core runs on a connection (a Turn, a preparation, a workspace
// operation, a suspension request) and its traceparent, which the frames it sends carry, so that
// a Runtime's spans join its trace. Tracing off, the span does not record and the traceparent is
// empty: frames go out unchanged.
type opTrace struct {
	span        trace.Span
	traceparent string
}

// startOp opens an operation's span, a child of parent's (a W3C traceparent; empty: a new trace).
func startOp(parent, name string, attrs ...attribute.KeyValue) opTrace {
	ctx, span := tracing.Tracer().Start(tracing.FromTrace(context.Background(), parent), name, trace.WithAttributes(attrs...))
	return opTrace{span: span, traceparent: tracing.Traceparent(ctx)}
}

// recording reports whether the span records (tracing is on).
func (o opTrace) recording() bool { return o.span != nil && o.span.IsRecording() }

// stamp is env carrying the operation's trace unless it has its own (facts §2.1: Core stamps its
// context's trace when absent).
func (o opTrace) stamp(env proto.Envelope) proto.Envelope {
	if env.Trace == "" {
		env.Trace = o.traceparent
	}
	return env
}

// sent records a frame the operation sent (or failed to send) as an event of its span: type and
// id only, never a payload (an execution_prepare carries credentials).
func (o opTrace) sent(env proto.Envelope, err error) {
	if !o.recording() {
		return
	}
	o.span.AddEvent(EventSent, trace.WithAttributes(attribute.String(AttrFrameType, env.Type),
		attribute.String(AttrFrameID, env.ID), attribute.Bool(AttrSendFailed, err != nil)))
}

// end closes an operation's span with the state it ended in; failed marks it an error with its code.
func (o opTrace) end(state, code string, failed bool) {
	if !o.recording() {
		return
	}
	o.span.SetAttributes(attribute.String(AttrOpState, state), attribute.String(AttrOpCode, code))
	if failed {
		o.span.SetStatus(codes.Error, state+" "+code)
	}
	o.span.End()
}

// traceTurn opens the span of a Turn, from its claim to its outcome, a child of the admission
// request's span. The returned func ends it with the phase the Turn ended in.
func (r *runner) traceTurn() (end func()) {
	r.trace = startOp(r.parentTrace, SpanTurn)
	if !r.trace.recording() {
		return func() {} // nothing to describe, and a non-recording span needs no end
	}
	span := r.trace.span
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
