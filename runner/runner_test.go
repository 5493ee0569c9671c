package runner_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/catalogsample"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/tracing/tracingtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A sample of the runtime-side catalog with all its variety (every family, label, step kind and
// frame type) against the in-process reference Runtime, four at a time: every scenario passes, in
// the order selected, each with its own device. Tracing is on, so this is also the proof that
// stamping traces and recording spans change no verdict of any kind of step or frame (the gate
// plays the whole catalog with tracing off); every scenario's span carries its verdict.
func TestReferenceRuntimeCertifiesInParallel(t *testing.T) {
	spans := tracingtest.Record(t)
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	// A sample with the catalog's variety: the claim is about parallel plays, their order, progress,
	// profiles and spans; the gate plays every scenario against the in-process reference.
	scs := catalogsample.Cover(runner.Select(cat, runner.Options{}))
	var mu sync.Mutex
	var seen []string
	results := runner.RunRuntime(context.Background(), scs, runner.ReferenceRuntime{}, runner.Options{
		Parallel: 4, Seed: "test", Progress: func(r *scenarios.Result) { mu.Lock(); seen = append(seen, r.Scenario); mu.Unlock() }})
	if len(results) != len(scs) {
		t.Fatalf("%d results for %d scenarios", len(results), len(scs))
	}
	for i, r := range results {
		if r.Scenario != scs[i].ID {
			t.Fatalf("result %d is %s, want %s", i, r.Scenario, scs[i].ID)
		}
		if r.Verdict != scenarios.Pass {
			t.Errorf("%s", r)
		}
		rejected := scs[i].Handshake != nil && scs[i].Handshake.Expect != nil
		if !rejected && !r.Profile.Advertised {
			t.Errorf("%s: no declared profile recorded", r.Scenario)
		}
	}
	sort.Strings(seen)
	if len(seen) != len(scs) {
		t.Fatalf("progress saw %d results", len(seen))
	}
	ok := 0
	for _, s := range named(spans.Ended(), runner.SpanScenario) {
		if s.Status().Code == codes.Ok {
			ok++
		}
	}
	if ok != len(scs) {
		t.Errorf("%d scenario spans end Ok for %d passing scenarios", ok, len(scs))
	}
}

// An interrupted run keeps what finished and reports the rest as harness errors, never as fails.
func TestInterruptedRunKeepsPartialResults(t *testing.T) {
	cat, _ := scenarios.Embedded()
	scs := runner.Select(cat, runner.Options{Run: []string{"admission"}})
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	results := runner.RunRuntime(ctx, scs, runner.ReferenceRuntime{}, runner.Options{Seed: "int", Timeout: 30 * time.Second,
		Progress: func(*scenarios.Result) {
			if n++; n == 3 {
				cancel()
			}
		}})
	cancel()
	var pass, harness int
	for _, r := range results {
		switch r.Verdict {
		case scenarios.Pass:
			pass++
		case scenarios.HarnessError:
			harness++
		default:
			t.Errorf("an interruption must never fail a scenario:\n%s", r)
		}
	}
	if pass < 3 || harness == 0 || pass+harness != len(scs) {
		t.Fatalf("pass=%d harness=%d of %d", pass, harness, len(scs))
	}
}

// Every fault step of the catalog is decoded as it loads, as a rule of the fault schedule
// language (package fault registers the decoder; a broken rule is a load error).
func TestCatalogFaultStepsDecode(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sc := range cat.Scenarios {
		for _, st := range sc.Steps {
			if st.Fault == nil {
				continue
			}
			n++
			if _, ok := st.Fault.Rule.(fault.Rule); !ok {
				t.Errorf("%s: step %d: the fault step holds %T, not a fault.Rule", sc.ID, st.Index, st.Fault.Rule)
			}
		}
	}
	if n == 0 {
		t.Fatal("the catalog holds no fault step")
	}
}
