package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Against the in-process reference, await_stall and advance wait for what the kernel states (a
// write blocked on the stalled socket; every frame Core sent read and handled by the daemon), not
// for real time to pass: the stall scenarios pass, several times over, with no real-time wait for
// a due timer at all (DueWait 1 ns). The advance then comes microseconds after Core wrote
// execution_prepare; the send budget of its preparation_status must already be running. Busy
// goroutines starve the daemon of CPU, so that it is slow to read that frame; the step bound is
// raised so that the megabytes of output, once Core reads again, are not what runs out of time.
func TestStallStepsWaitForTheKernelNotForRealTime(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	scs := runner.Select(cat, runner.Options{Run: []string{"runtime/stall/status-send-*", "runtime/stall/write-blocked-*"}})
	if len(scs) != 4 {
		t.Fatalf("%d stall scenarios selected; want the 4 with await_stall and advance", len(scs))
	}
	defer hogCPUs()()

	var plays []*scenarios.Scenario
	for range 3 {
		plays = append(plays, scs...)
	}
	for _, r := range runner.RunRuntime(context.Background(), plays, runner.ReferenceRuntime{DueWait: time.Nanosecond}, runner.Options{Seed: "stall", Parallel: 2, Step: 20 * time.Second}) {
		if r.Verdict != scenarios.Pass {
			t.Errorf("%s", r)
		}
	}
}
