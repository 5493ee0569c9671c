package runner_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
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

// The same on Core's side: against the in-process reference Core, await_stall waits until a write
// of Core is blocked in its kernel (its per-frame write deadline armed before the write began), so
// the advance that follows always finds that deadline, however late a starved Core reaches it.
func TestCoreStallStepsWaitForTheKernelNotForRealTime(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var scs []*scenarios.Scenario
	for _, sc := range cat.Scenarios {
		if strings.HasPrefix(sc.ID, "core/stall/write-blocked-") {
			scs = append(scs, sc)
		}
	}
	if len(scs) != 2 {
		t.Fatalf("%d Core stall scenarios selected; want the 2 with await_stall and advance", len(scs))
	}
	defer hogCPUs()()

	results := make(chan *scenarios.Result, 3*len(scs))
	var wg sync.WaitGroup
	for i := range 3 {
		for _, sc := range scs {
			wg.Go(func() { results <- runner.PlayReferenceCore(context.Background(), sc, fmt.Sprint("stall-", i)) })
		}
	}
	wg.Wait()
	close(results)
	for r := range results {
		if r.Verdict != scenarios.Pass {
			t.Errorf("%s", r)
			continue
		}
		if !slices.ContainsFunc(r.Transcript, func(e scenarios.Exchange) bool {
			return e.Type == "stalled" && strings.Contains(e.Note, "a write of Core is blocked")
		}) {
			t.Errorf("%s: await_stall did not ask Core's kernel (no \"stalled\" event naming Core's blocked write)", r.Scenario)
		}
	}
}
