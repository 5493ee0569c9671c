package daemon

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/tracing"
)

// Span and attribute names of the reference Runtime (docs/tracing.md). Every span is parented by
// the trace of the envelope that caused it, so it joins the Core's trace; a frame without a
// usable trace starts a fresh local one.
const (
	SpanAdmission = "wirecheck.runtime.admission"
	SpanRun       = "wirecheck.runtime.run"
	AttrType      = "wirecheck.frame.type"
	AttrRequestID = "wirecheck.frame.id"
	AttrRunID     = "wirecheck.run.id"
)

// traceAdmission opens a span for an admission request (execution_prepare, execution_start,
// execution_release, prompt_request) while its handler runs; other frames get none.
func traceAdmission(env proto.Envelope) (end func()) {
	switch env.Type {
	case proto.TypeExecutionPrepare, proto.TypeExecutionStart, proto.TypeExecutionRelease, proto.TypePromptRequest:
	default:
		return nothing
	}
	_, span := tracing.Tracer().Start(tracing.FromTrace(context.Background(), env.Trace), SpanAdmission)
	if !span.IsRecording() {
		return nothing // tracing off: a non-recording span needs no end
	}
	span.SetAttributes(attribute.String(AttrType, env.Type), attribute.String(AttrRequestID, env.ID))
	return func() { span.End() }
}

func nothing() {}

// runTrace is the trace a Run's outbound frames carry: the trace of the request that started it
// (facts §2.1), copied as it came. One longer than a reply may echo (WS-15) is dropped here too,
// rather than repeated on every frame of the stream.
func runTrace(requestTrace string) string {
	if len(requestTrace) > proto.TraceEchoMaxChars {
		return ""
	}
	return requestTrace
}

// startRunSpan opens the span of a Run, from its starting request's trace to its done.
func startRunSpan(runID, requestTrace string) trace.Span {
	_, span := tracing.Tracer().Start(tracing.FromTrace(context.Background(), requestTrace), SpanRun)
	if span.IsRecording() {
		span.SetAttributes(attribute.String(AttrRunID, runID))
	}
	return span
}

// sendRun writes one of a Run's outbound frames, carrying the Run's trace unless it has its own.
func (r *router) sendRun(rn *run, env proto.Envelope) error {
	if env.Trace == "" {
		env.Trace = rn.trace
	}
	return r.send(env)
}

// finish marks the Run finished (its done written, or never to be) and ends its span.
func (rn *run) finish() {
	rn.once.Do(func() {
		close(rn.finished)
		rn.span.End()
	})
}
