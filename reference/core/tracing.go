package core

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/tracing"
)

// SpanAdmission is the span of a Turn's admission by Core (device selection and policy, before the
// Turn is queued); the Turn itself is execution.SpanTurn (docs/tracing.md).
const (
	SpanAdmission = "wirecheck.core.admission"
	AttrDenied    = "wirecheck.admission.denied"
)

// startTurn admits and queues a Turn inside an admission span: a denial or an offline device ends
// it in error.
func (c *Core) startTurn(req execution.StartRequest) (*store.Turn, error) {
	ctx, span := tracing.Tracer().Start(context.Background(), SpanAdmission)
	defer span.End()
	req.Trace = tracing.Traceparent(ctx)
	t, err := c.engine.Start(req)
	if !span.IsRecording() {
		return t, err // tracing off: nothing to describe
	}
	span.SetAttributes(attribute.String(execution.AttrDeviceID, req.DeviceID), attribute.String("wirecheck.agent_kind", req.Configuration.AgentKind))
	var denied *execution.DeniedError
	switch {
	case errors.As(err, &denied):
		span.SetAttributes(attribute.String(AttrDenied, denied.Decision.String()))
		span.SetStatus(codes.Error, err.Error())
	case err != nil:
		span.SetStatus(codes.Error, err.Error())
	default:
		span.SetAttributes(attribute.String(execution.AttrTurnID, t.ID), attribute.String(execution.AttrRunID, t.RunID))
	}
	return t, err
}
