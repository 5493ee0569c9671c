package load

import (
	"sync"
	"sync/atomic"
	"time"
)

// runRecord is what the simulator saw of one Run: how often it was started (more than once is an
// effect counted twice), when its execution_start arrived and when each event frame was written.
type runRecord struct {
	execs atomic.Int32
	mu    sync.Mutex
	start time.Time   // execution_start read
	wrote []time.Time // each Run frame written, in order (events, then done)
}

func (rec *runRecord) wrote1(at time.Time) {
	rec.mu.Lock()
	rec.wrote = append(rec.wrote, at)
	rec.mu.Unlock()
}

// runBook holds every Run's record, across connections and Runtimes.
type runBook struct {
	mu sync.Mutex
	m  map[string]*runRecord
}

func (b *runBook) started(runID string, at time.Time) *runRecord {
	b.mu.Lock()
	rec, ok := b.m[runID]
	if !ok {
		rec = &runRecord{start: at}
		b.m[runID] = rec
	}
	b.mu.Unlock()
	rec.execs.Add(1)
	return rec
}

func (b *runBook) get(runID string) *runRecord {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m[runID]
}
