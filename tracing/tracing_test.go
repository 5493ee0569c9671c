package tracing_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/tracing"
	"github.com/wirecheck/wirecheck/tracing/tracingtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func unsetOTel(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED"} {
		t.Setenv(v, "")
	}
}

// Off by default: without an OTLP endpoint (or with the SDK disabled) Setup installs nothing,
// spans do not record, no traceparent exists and a frame is returned as it was, the same bytes.
func TestOffByDefault(t *testing.T) {
	unsetOTel(t)
	for _, env := range []map[string]string{{}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "TRUE"}} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		before := otel.GetTracerProvider()
		shutdown, err := tracing.Setup(context.Background(), "wirecheck")
		if err != nil {
			t.Fatal(err)
		}
		if otel.GetTracerProvider() != before {
			t.Fatalf("%v: Setup installed a provider", env)
		}
		ctx, span := tracing.Tracer().Start(context.Background(), "x")
		if span.IsRecording() || tracing.Traceparent(ctx) != "" {
			t.Fatalf("%v: a span records or has a traceparent with tracing off", env)
		}
		frame := []byte(`{"id":"r1","type":"execution_prepare"}`)
		if got := tracing.Stamp(ctx, frame, 1<<20); &got[0] != &frame[0] || !bytes.Equal(got, frame) {
			t.Fatalf("%v: Stamp changed a frame with tracing off: %s", env, got)
		}
		span.End()
		if err := shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// With a span, Stamp appends the span's traceparent as the frame's last member, unless the result
// would pass the size limit or the frame is not an object.
func TestStamp(t *testing.T) {
	tracingtest.Record(t)
	ctx, span := tracing.Tracer().Start(context.Background(), "step")
	defer span.End()
	tp := tracing.Traceparent(ctx)
	sc := span.SpanContext()
	if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; tp != want {
		t.Fatalf("traceparent %q, want %q", tp, want)
	}
	member := `,"trace":"` + tp + `"}`
	for _, c := range []struct {
		name, in, want string
		max            int
	}{
		{"appended", `{"type":"a"}`, `{"type":"a"` + member, 1 << 20},
		{"empty object", `{ }`, `{ "trace":"` + tp + `"}`, 1 << 20},
		{"exactly at the limit", `{"type":"a"}`, `{"type":"a"` + member, len(`{"type":"a"`) + len(member)},
		{"one over the limit", `{"type":"a"}`, `{"type":"a"}`, len(`{"type":"a"`) + len(member) - 1},
		{"not an object", `garbage`, `garbage`, 1 << 20},
		{"empty", ``, ``, 1 << 20},
	} {
		if diff := cmp.Diff(c.want, string(tracing.Stamp(ctx, []byte(c.in), c.max))); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, diff)
		}
	}
}

// An envelope's trace parents spans when it is a W3C traceparent; anything else is ignored and a
// span started from it begins a fresh trace, never an error.
func TestFromTrace(t *testing.T) {
	tracingtest.Record(t)
	valid := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := tracing.FromTrace(context.Background(), valid)
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsRemote() || sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || sc.SpanID().String() != "00f067aa0ba902b7" {
		t.Fatalf("span context %+v from %q", sc, valid)
	}
	_, child := tracing.Tracer().Start(ctx, "child")
	if child.SpanContext().TraceID() != sc.TraceID() {
		t.Fatal("a span under an envelope's trace does not join it")
	}
	child.End()
	for _, bad := range []string{"", "00-xyz", strings.Repeat("x", 257), "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
		ctx := tracing.FromTrace(context.Background(), bad)
		if trace.SpanContextFromContext(ctx).IsValid() {
			t.Errorf("%q gave a valid span context", bad)
		}
		_, s := tracing.Tracer().Start(ctx, "fresh")
		if !s.SpanContext().IsValid() || s.SpanContext().TraceID() == sc.TraceID() {
			t.Errorf("%q: no fresh local trace", bad)
		}
		s.End()
	}
}

// The standard variable turns tracing on: Setup installs an OTLP/HTTP exporter that sends the
// batched spans, with the service name, to the endpoint when shut down, and then puts the no-op
// provider back.
func TestSetupExportsToTheOTLPEndpoint(t *testing.T) {
	unsetOTel(t)
	got := make(chan []byte, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/traces" {
			got <- body
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	before := otel.GetTracerProvider()
	shutdown, err := tracing.Setup(context.Background(), "wirecheck-test-service")
	if err != nil {
		t.Fatal(err)
	}
	_, span := tracing.Tracer().Start(context.Background(), "exported-span")
	span.End()
	if err := shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if otel.GetTracerProvider() != before {
		t.Fatal("shutdown did not put the previous provider back")
	}
	select {
	case body := <-got:
		for _, want := range []string{"exported-span", "wirecheck-test-service"} {
			if !bytes.Contains(body, []byte(want)) {
				t.Errorf("the export does not carry %q", want)
			}
		}
	default:
		t.Fatal("nothing was exported to the endpoint")
	}
}
