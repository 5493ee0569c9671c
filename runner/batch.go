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
}

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
func StartBatch(ctx context.Context, jobs []Job, parallel int, onDone func(i int, r *scenarios.Result)) *Batch {
	if parallel < 1 {
		parallel = 1
	}
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
		sem := make(chan struct{}, parallel)
		var jobsWG sync.WaitGroup
		defer jobsWG.Wait()
		for i, j := range jobs {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				for _, d := range b.done[i:] {
					close(d)
				}
				return
			}
			jobsWG.Add(1)
			go func() {
				defer jobsWG.Done()
				defer func() { <-sem }()
				r := j.Play(ctx)
				b.results[i] = r
				if onDone != nil {
					onDone(i, r)
				}
				close(b.done[i])
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
