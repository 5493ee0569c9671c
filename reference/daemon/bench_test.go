package daemon_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/proto"
)

// The benchmarks run the reference daemon in process on the wall clock against a minimal Core on
// loopback (corestub_test.go). Each reports the p50 and p99 of the timed span over its iterations,
// and ns/op is the mean of that span (the untimed setup between spans does not count). docs/performance.md records them against the spec's targets.

// BenchmarkDispatch: execution_start received → first Run event frame written. Each iteration
// prepares the Session's idle Executor again (reused: no native setup, untimed), then times from
// writing execution_start to reading the Turn's first delta, and drains the rest of the Run.
func BenchmarkDispatch(b *testing.B) {
	verifyNoLeaks(b)
	s := startDaemon(b)
	script := map[string]any{"turn": map[string]any{"events": []any{map[string]any{"delta": "x"}}, "content": "x"}}
	var seq int
	run := func(i int) time.Duration {
		ready := s.prepare(&seq, "s1", script)
		runID := fmt.Sprintf("run-%d", i)
		start := time.Now()
		s.send(proto.TypeExecutionStart, fmt.Sprintf("prepare-%d", seq), map[string]any{
			"executor_id": ready.ExecutorID, "handle": ready.Handle, "run_id": runID, "input": helloInput})
		first := s.until("delta", isType(proto.TypeDelta))
		s.until("done", isType(proto.TypeDone))
		return first.at.Sub(start)
	}
	run(-1) // the first prepare sets the Executor up natively; every later one reuses it
	spans := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		spans = append(spans, run(i))
	}
	b.StopTimer()
	reportSpans(b, spans)
}

// BenchmarkTransition: one execution_release round trip, ready → released: from writing the release
// of a ready admission to reading its released status. The Executor goes idle and the next
// iteration's prepare (untimed) reuses it.
func BenchmarkTransition(b *testing.B) {
	verifyNoLeaks(b)
	s := startDaemon(b)
	script := map[string]any{}
	var seq int
	run := func() time.Duration {
		ready := s.prepare(&seq, "s1", script)
		start := time.Now()
		s.send(proto.TypeExecutionRelease, fmt.Sprintf("prepare-%d", seq), map[string]any{"handle": ready.Handle})
		released := s.until("released", isStatus(proto.StateReleased))
		return released.at.Sub(start)
	}
	run()
	spans := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		spans = append(spans, run())
	}
	b.StopTimer()
	reportSpans(b, spans)
}

// reportSpans reports the timed spans' percentiles and replaces ns/op with their mean, so the setup
// between spans (prepare, draining the Run) does not count.
func reportSpans(b *testing.B, spans []time.Duration) {
	if len(spans) == 0 {
		return
	}
	slices.Sort(spans)
	var sum time.Duration
	for _, d := range spans {
		sum += d
	}
	pct := func(p float64) float64 { return float64(spans[int(p*float64(len(spans)-1))].Nanoseconds()) }
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(spans)), "ns/op")
	b.ReportMetric(pct(0.50), "p50-ns")
	b.ReportMetric(pct(0.99), "p99-ns")
}

// verifyNoLeaks checks, after the daemon and the stub Core stopped, that no goroutine outlived them.
func verifyNoLeaks(tb testing.TB) {
	ignore := goleak.IgnoreCurrent()
	tb.Cleanup(func() { goleak.VerifyNone(tb, ignore) })
}
