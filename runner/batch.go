package runner

import (
	"context"
	"sync"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Job is one scenario play of a Batch.
type Job struct {
	Key  string // how the job's result is asked for
	Play func(ctx context.Context) *scenarios.Result
	// Lane, if set, bounds how many of the jobs that share it run at once, below the batch's
	// own bound. A job whose lane is full waits without taking one of the batch's places, so
	// the jobs after it in other lanes go on.
	Lane *Lane
}

// Lane is a bound shared by some of a Batch's jobs (the plays that each start a process, say).
type Lane struct {
	limit, running int
}

// NewLane returns a lane that lets at most limit of its jobs run at once (at least one).
func NewLane(limit int) *Lane { return &Lane{limit: max(1, limit)} }

// Batch runs jobs, at most parallel at once, in the order given, and hands each result to whoever
// asks for it. Independent scenarios and pairings run side by side, so a run's time grows with its
// slowest lane, not with the sum of its scenarios.
type Batch struct {
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	index   map[string]int
	done    []chan struct{}
	results []*scenarios.Result
}

// StartBatch starts running jobs in the background. onDone, if set, sees each result as it
// completes (from several goroutines). Jobs not started when ctx ends have no result.
//
// Each time a place is free, the first job in order whose lane has room starts: order is
// priority, and a full lane holds back only its own jobs.
func StartBatch(ctx context.Context, jobs []Job, parallel int, onDone func(i int, r *scenarios.Result)) *Batch {
	parallel = max(1, parallel)
	ctx, cancel := context.WithCancel(ctx)
	b := &Batch{cancel: cancel, index: make(map[string]int, len(jobs)),
		done: make([]chan struct{}, len(jobs)), results: make([]*scenarios.Result, len(jobs))}
	for i, j := range jobs {
		b.index[j.Key] = i
		b.done[i] = make(chan struct{})
	}
	b.wg.Add(1)
	go func() { // owner: the batch; ends once every started job has finished
		defer b.wg.Done()
		var jobsWG sync.WaitGroup
		defer jobsWG.Wait()
		// Only this goroutine starts jobs and counts places; a finished job tells it on ended.
		ended := make(chan *Lane, parallel)
		pending := make([]int, len(jobs))
		for i := range pending {
			pending[i] = i
		}
		running := 0
		finish := func(l *Lane) {
			running--
			if l != nil {
				l.running--
			}
		}
		for len(pending) > 0 {
			next := -1
			if running < parallel {
				for k, i := range pending {
					if l := jobs[i].Lane; l == nil || l.running < l.limit {
						next = k
						break
					}
				}
			}
			if next < 0 || ctx.Err() != nil {
				select {
				case l := <-ended:
					finish(l)
					continue
				case <-ctx.Done():
				}
			}
			if ctx.Err() != nil {
				for _, i := range pending {
					close(b.done[i])
				}
				for running > 0 {
					finish(<-ended)
				}
				return
			}
			i := pending[next]
			pending = append(pending[:next], pending[next+1:]...)
			j := jobs[i]
			running++
			if j.Lane != nil {
				j.Lane.running++
			}
			jobsWG.Add(1)
			go func() {
				defer jobsWG.Done()
				r := j.Play(ctx)
				b.results[i] = r
				if onDone != nil {
					onDone(i, r)
				}
				close(b.done[i])
				ended <- j.Lane
			}()
		}
	}()
	return b
}

// Result waits for the result of the job with that key; nil if it never ran (the batch was
// stopped) or ctx ended first. A key that was never added has no result either.
func (b *Batch) Result(ctx context.Context, key string) *scenarios.Result {
	i, ok := b.index[key]
	if !ok {
		return nil
	}
	select {
	case <-b.done[i]:
		return b.results[i]
	case <-ctx.Done():
		return nil
	}
}

// Results waits for every job and returns their results in the order of the jobs (nil: never ran).
func (b *Batch) Results() []*scenarios.Result {
	b.wg.Wait()
	return b.results
}

// Stop cancels what runs, skips what has not started, and waits for every job to return.
func (b *Batch) Stop() {
	b.cancel()
	b.wg.Wait()
}
