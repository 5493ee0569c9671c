package runner_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/tracing"
)

// tracingModes are the benchmarks' two settings: off (the default no-op provider, what every
// run pays) and on (an SDK provider whose recorder keeps every span, as a test does).
var tracingModes = []struct {
	name string
	on   bool
}{{"off", false}, {"on", true}}

func traced(b *testing.B, on bool) {
	if !on {
		return
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	restore := tracing.Use(tp)
	b.Cleanup(func() { restore(); _ = tp.Shutdown(context.Background()) })
}

// BenchmarkTracingStepHooks is what tracing adds to one step that sends a frame and reads one: the
// step span, the stamp, and two transcript entries as span events. "untraced" is the same
// transcript work without any tracing call (what the step cost before tracing existed); off - untraced
// is the cost every run pays for the hooks being there (docs/performance.md, Tracing).
func BenchmarkTracingStepHooks(b *testing.B) {
	sent := []byte(`{"id":"prepare-1","payload":{"session_id":"s","configuration":{"agent_kind":"contract"}},"type":"execution_prepare"}`)
	read := []byte(`{"id":"prepare-1","payload":{"executor_id":"e","handle":"h","revision":1,"state":"ready","expires_at":"2026-01-01T00:00:00Z"},"type":"preparation_status"}`)
	b.Run("untraced", func(b *testing.B) {
		for b.Loop() {
			rec := script.NewRecorder()
			rec.Frame(scenarios.CoreToRuntime, sent)
			rec.Frame(scenarios.RuntimeToCore, read)
		}
	})
	for _, m := range tracingModes {
		b.Run(m.name, func(b *testing.B) {
			traced(b, m.on)
			ctx, scenario := tracing.Tracer().Start(context.Background(), runner.SpanScenario)
			defer scenario.End()
			for b.Loop() {
				rec := script.NewRecorder() // a fresh transcript: the span events, not its growth, are measured
				rec.Trace(scenario)
				// What scriptedcore's tracedStep and the player do around a step's frames.
				sctx, step := ctx, scenario
				if scenario.IsRecording() {
					sctx, step = tracing.Tracer().Start(ctx, scriptedcore.SpanStep, trace.WithAttributes(attribute.Int(scriptedcore.AttrStepIndex, 1),
						attribute.String(scriptedcore.AttrStepKind, "core"), attribute.String(scriptedcore.AttrStepPos, "bench.yaml:1")))
					rec.Trace(step)
				}
				rec.Frame(scenarios.CoreToRuntime, tracing.Stamp(sctx, sent, proto.MaxFrameBytes))
				rec.Frame(scenarios.RuntimeToCore, read)
				if scenario.IsRecording() {
					rec.Trace(scenario)
					step.End()
				}
			}
		})
	}
}

// BenchmarkTracingPlay plays one scenario (a prepared Run to done: 9 steps, 11 frames) against the
// reference Runtime in process, tracing off and on, side by side.
func BenchmarkTracingPlay(b *testing.B) {
	cat, err := scenarios.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	sc, _ := cat.Get("runs/prepared/completes-and-releases-before-done")
	for _, m := range tracingModes {
		b.Run(m.name, func(b *testing.B) {
			traced(b, m.on)
			i := 0
			for b.Loop() {
				i++
				if r := runner.PlayRuntime(context.Background(), sc, i, runner.ReferenceRuntime{}, runner.Options{Seed: "bench"}); r.Verdict != scenarios.Pass {
					b.Fatalf("%s", r)
				}
			}
		})
	}
}
