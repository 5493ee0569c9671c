package certify

import (
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Test certifies cfg.Target from a Go test: one parallel subtest per selected scenario, named by
// its id (so `go test -run 'TestMyDaemon/admission/'` selects scenarios), failing with the same
// text `wirecheck certify` prints. A scenario whose capabilities the daemon does not declare is
// skipped with the reason; a known-failing scenario that fails is skipped, one that passes fails.
// When every subtest is done, the profile line is logged and, if the run is not certified, the
// test fails with it. `go test -parallel N` bounds how many daemons run at once.
func Test(t *testing.T, cfg Config) {
	t.Helper()
	sel, err := check(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wirecheck certify: %s", sel.Describe(cfg.Target))
	var (
		mu      sync.Mutex
		results = make([]*scenarios.Result, len(sel.Scenarios))
	)
	started := time.Now()
	// One trace for the whole test, as for `wirecheck certify` (docs/tracing.md).
	_, span := runner.StartRunSpan(t.Context(), cfg.Target.Describe(), sel.Options.Seed, len(sel.Scenarios))
	t.Cleanup(func() {
		runner.EndRunSpan(span, results)
		run := newRun(cfg, sel, started, results)
		if t.Failed() || run.ExitCode() == reports.ExitCertified {
			t.Log(run.ProfileLine())
			return
		}
		t.Error(run.ProfileLine())
	})
	for i, sc := range sel.Scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			t.Parallel()
			r := runner.PlayRuntime(trace.ContextWithSpan(t.Context(), span), sc, i, cfg.Target, sel.Options)
			mu.Lock()
			results[i] = r
			mu.Unlock()
			if sel.Options.Progress != nil {
				sel.Options.Progress(r)
			}
			judge(t, r, cfg.KnownFailing.Has(sc.ID))
		})
	}
}

// judge turns one result into the subtest's outcome.
func judge(t *testing.T, r *scenarios.Result, knownFailing bool) {
	t.Helper()
	switch {
	case r.Verdict == scenarios.NotApplicable:
		t.Skip(r.Failure.Message)
	case knownFailing && r.Verdict == scenarios.Pass:
		t.Errorf("%s is listed as known failing but passed: take it off the list", r.Scenario)
	case knownFailing && r.Verdict == scenarios.Fail:
		t.Skipf("known failing:\n%s", r)
	case r.Verdict != scenarios.Pass:
		t.Errorf("%s", r)
	}
}
