package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/wirecheck/wirecheck/scenarios"
)

// A batch runs at most `parallel` jobs at once, starts them in order, and hands each result to
// whoever asks for it by key.
func TestBatchBoundsParallelismAndHandsOutResults(t *testing.T) {
	const n, parallel = 12, 3
	var running, most atomic.Int32
	release := make(chan struct{})
	var jobs []Job
	for i := range n {
		jobs = append(jobs, Job{Key: fmt.Sprint(i), Play: func(context.Context) *scenarios.Result {
			now := running.Add(1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			<-release
			running.Add(-1)
			return &scenarios.Result{Scenario: fmt.Sprint(i), Verdict: scenarios.Pass}
		}})
	}
	b := StartBatch(context.Background(), jobs, parallel, nil)
	close(release)
	for i := n - 1; i >= 0; i-- { // asked for out of order
		if r := b.Result(context.Background(), fmt.Sprint(i)); r == nil || r.Scenario != fmt.Sprint(i) {
			t.Fatalf("result %d: %v", i, r)
		}
	}
	if m := most.Load(); m > parallel {
		t.Fatalf("%d jobs ran at once, want at most %d", m, parallel)
	}
	if r := b.Result(context.Background(), "no such job"); r != nil {
		t.Fatalf("a key never added has a result: %v", r)
	}
	if got := len(b.Results()); got != n {
		t.Fatalf("%d results, want %d", got, n)
	}
}

// Stop cancels what runs and skips what has not started: those jobs have no result, and every
// job that ran has returned when Stop does.
func TestBatchStopSkipsWhatHasNotStarted(t *testing.T) {
	started := make(chan struct{})
	var jobs []Job
	for i := range 5 {
		jobs = append(jobs, Job{Key: fmt.Sprint(i), Play: func(ctx context.Context) *scenarios.Result {
			if i == 0 {
				close(started)
			}
			<-ctx.Done()
			return &scenarios.Result{Verdict: scenarios.HarnessError}
		}})
	}
	b := StartBatch(context.Background(), jobs, 1, nil)
	<-started
	b.Stop()
	results := b.Results()
	if results[0] == nil {
		t.Fatal("the running job has no result")
	}
	for i, r := range results[1:] {
		if r != nil {
			t.Fatalf("job %d never started but has a result", i+1)
		}
	}
}

// A full lane holds back only its own jobs: the jobs queued after it in no lane start in its
// place, and the lane never runs more than its limit.
func TestBatchLaneHoldsBackOnlyItsOwnJobs(t *testing.T) {
	const parallel, laneLimit, laned, others = 2, 1, 3, 3
	lane := NewLane(laneLimit)
	var inLane, mostInLane atomic.Int32
	release := make(chan struct{})
	othersStarted := make(chan struct{}, others)
	var jobs []Job
	for i := range laned {
		jobs = append(jobs, Job{Key: fmt.Sprint("laned", i), Lane: lane, Play: func(context.Context) *scenarios.Result {
			now := inLane.Add(1)
			for m := mostInLane.Load(); now > m && !mostInLane.CompareAndSwap(m, now); m = mostInLane.Load() {
			}
			<-release
			inLane.Add(-1)
			return &scenarios.Result{Verdict: scenarios.Pass}
		}})
	}
	for i := range others {
		jobs = append(jobs, Job{Key: fmt.Sprint("other", i), Play: func(context.Context) *scenarios.Result {
			othersStarted <- struct{}{}
			return &scenarios.Result{Verdict: scenarios.Pass}
		}})
	}
	b := StartBatch(context.Background(), jobs, parallel, nil)
	// While the lane's first job holds it, every job in no lane runs: none waits behind the
	// two laned jobs queued before them.
	for range others {
		<-othersStarted
	}
	close(release)
	for _, r := range b.Results() {
		if r == nil || r.Verdict != scenarios.Pass {
			t.Fatalf("a job did not run: %v", r)
		}
	}
	if m := mostInLane.Load(); m > laneLimit {
		t.Fatalf("%d jobs of the lane ran at once, want at most %d", m, laneLimit)
	}
}
