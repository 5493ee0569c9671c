package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A pass must be trustworthy: the reference Runtime, made wrong in one way at a time by a fault
// rule on its output, is failed by the scenarios that own that rule. Each mutant is a Runtime that
// breaks one promise of the protocol.
func TestBrokenRuntimesAreCaught(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name, schedule string
		caughtBy       []string
	}{
		{"receipt overtakes done", `rules: [{name: m, match: {direction: runtime→core, type: done}, reorder: {}}]`,
			[]string{"execution/cancellation-waits-for-settlement", "cancellation/settled-without-outcome-is-cancel-outcome-unavailable"}},
		{"started never sent", `rules: [{name: m, match: {direction: runtime→core, type: preparation_status, payload: {state: started}}, drop: {}}]`,
			[]string{"prefix/started", "admission/start/duplicate-start-republishes"}},
		{"done sent twice", `rules: [{name: m, match: {direction: runtime→core, type: done}, duplicate: {}}]`,
			[]string{"runs/prompt-request/streams-in-order-then-done", "cancellation/legacy-cancel-has-no-receipt"}},
		{"statuses that break the wire", `rules: [{name: m, match: {direction: runtime→core, type: preparation_status, nth: 2}, corrupt: {kind: invalid_frame}}]`,
			[]string{"prefix/prepared", "admission/release/after-started-does-not-cancel"}},
		{"a rejection that never comes", `rules: [{name: m, match: {direction: runtime→core, type: preparation_status, payload: {state: rejected}}, drop: {}}]`,
			[]string{"admission/start/unknown-handle-is-unknown-preparation", "admission/prepare/history-unavailable"}},
		{"the stream reordered", `rules: [{name: m, match: {direction: runtime→core, type: delta, nth: 1}, reorder: {}}]`,
			[]string{"runs/prompt-request/streams-in-order-then-done"}},
	} {
		t.Run(m.name, func(t *testing.T) {
			sched, err := fault.LoadSchedule("mutant.yaml", []byte(m.schedule))
			if err != nil {
				t.Fatal(err)
			}
			scs := runner.Select(cat, runner.Options{Run: m.caughtBy})
			if len(scs) != len(m.caughtBy) {
				t.Fatalf("selected %d scenarios for %v", len(scs), m.caughtBy)
			}
			for _, r := range runner.RunRuntime(context.Background(), scs, runner.ReferenceRuntime{}, runner.Options{Seed: "mutant", Faults: sched, Parallel: 2, Step: time.Second}) {
				t.Logf("%s: %s", r.Scenario, r.Failure.Message)
				if r.Verdict != scenarios.Fail {
					t.Errorf("%s did not catch the mutant (verdict %s):\n%s", r.Scenario, r.Verdict, r)
				}
			}
		})
	}
}
