package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A correct daemon is never failed because the machine is slow: here it takes 4 s to start (more
// than the 3 s step bound: start-up has its own bound) and the harness is starved of CPU by
// busy goroutines, while scenarios with silence and settle windows run four at a time. Windows
// open at the frame that opened them, so a late-looking harness still judges by arrival times.
func TestNoFalseFailureUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and runs daemons in real time")
	}
	dir := t.TempDir()
	bin, err := testbin.Build("../cmd/wirecheck")
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(dir, "slow-daemon")
	script := fmt.Sprintf("#!/bin/sh\n/bin/sleep 4\nexec %s \"$@\"\n", bin) // the fault under test: a slow start
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	target, err := runner.Command(slow+" runtime --server {core_url} --device {device_id}", runner.DaemonOptions{Grace: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()

	defer hogCPUs()()

	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	scs := runner.Select(cat, runner.Options{Run: []string{"cancellation", "execution", "runs/prompt-request/streams-in-order-then-done"}})
	var timed []*scenarios.Scenario
	for _, sc := range scs {
		if runner.TotalAdvance(sc) <= runner.RealTimeBudget {
			timed = append(timed, sc)
		}
	}
	if len(timed) < 5 {
		t.Fatalf("only %d scenarios selected", len(timed))
	}
	t.Logf("%d scenarios, 4 at once, each daemon 4 s slow to start, %d busy goroutines", len(timed), 2*runtime.GOMAXPROCS(0))
	for _, r := range runner.RunRuntime(context.Background(), timed, target, runner.Options{Seed: "starved", Parallel: 4}) {
		if r.Verdict != scenarios.Pass {
			t.Errorf("a correct daemon failed under load:\n%s", r)
		}
	}
}

// hogCPUs keeps two busy goroutines per P running, starving whatever the test plays beside them,
// until the returned func is called (it waits for them to end).
func hogCPUs() (stop func()) {
	var done atomic.Bool
	var hogs sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		hogs.Add(1)
		go func() { // owner: the caller of hogCPUs; ends when stop is called
			defer hogs.Done()
			for x := 0; !done.Load(); x++ {
				_ = x * x
			}
		}()
	}
	return func() { done.Store(true); hogs.Wait() }
}
