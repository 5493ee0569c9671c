// Package tracing turns wirecheck's OpenTelemetry tracing on from the standard OTEL_* variables and
// carries a W3C trace context through an envelope's `trace` member. It is off by default: unless
// Setup installs an exporter, the global provider is OpenTelemetry's no-op one, every span is
// non-recording, no span context is valid and nothing is stamped on a frame.
package tracing

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of every wirecheck span.
const Scope = "github.com/wirecheck/wirecheck"

// Tracer is wirecheck's tracer from the global provider, looked up at each use: a tracer kept from
// an earlier provider would keep tracing into it after a test or Setup installs another.
func Tracer() trace.Tracer { return otel.GetTracerProvider().Tracer(Scope) }

// Enabled reports whether Setup would install an exporter: an OTLP endpoint is set and the SDK is
// not disabled.
func Enabled() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs an OTLP/HTTP exporter behind a batch processor as the global provider when
// Enabled; the exporter reads the other OTEL_EXPORTER_OTLP_* variables (headers, timeout,
// protocol paths) itself, and OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override service.
// Otherwise it installs nothing. shutdown flushes what is batched, stops the processor and puts
// back the provider that was there before; it is never nil.
func Setup(ctx context.Context, service string) (shutdown func(context.Context) error, err error) {
	if !Enabled() {
		return func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, errors.Join(errors.New("tracing: the OTLP/HTTP exporter"), err)
	}
	res, err := resource.New(ctx, resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", service)), resource.WithFromEnv())
	if err != nil {
		return nil, errors.Join(errors.New("tracing: the resource"), err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	restore := Use(tp)
	return func(ctx context.Context) error {
		defer restore()
		return tp.Shutdown(ctx)
	}, nil
}

// Use makes tp the global provider and returns what puts the previous one back (tests install an
// SDK provider with a span recorder this way).
func Use(tp trace.TracerProvider) (restore func()) {
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	return func() { otel.SetTracerProvider(prev) }
}

var w3c = propagation.TraceContext{}

// Traceparent is the W3C traceparent of ctx's span ("00-<trace id>-<span id>-<flags>"), or "" when
// ctx carries no valid span context (tracing off).
func Traceparent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	w3c.Inject(ctx, c)
	return c.Get("traceparent")
}

// FromTrace returns ctx with the remote span context an envelope's trace names, so spans started
// from it join that trace. A missing or unparsable trace leaves ctx as it is (a fresh local trace
// starts there): a trace is diagnostic, never a reason to refuse a frame.
func FromTrace(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return w3c.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}

// Stamp returns frame with a `trace` member holding ctx's traceparent, appended as the object's
// last member; frame itself is not modified. frame must be a JSON object without a trace (the
// caller knows it rendered one). Tracing off (no valid span context), something that does not end
// in '}', or a result over maxBytes: frame is returned unchanged, so a frame written to sit at a
// size limit keeps its size.
func Stamp(ctx context.Context, frame []byte, maxBytes int) []byte {
	tp := Traceparent(ctx)
	if tp == "" {
		return frame
	}
	end := len(frame) - 1
	if end < 1 || frame[end] != '}' || frame[0] != '{' {
		return frame
	}
	sep := ","
	if len(bytes.TrimSpace(frame[1:end])) == 0 {
		sep = ""
	}
	member := sep + `"trace":"` + tp + `"}`
	if len(frame)-1+len(member) > maxBytes {
		return frame
	}
	out := make([]byte, 0, len(frame)-1+len(member))
	out = append(out, frame[:end]...)
	return append(out, member...)
}
