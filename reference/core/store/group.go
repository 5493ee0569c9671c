package store

import (
	"errors"
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Group commit. Every write of a busy Core (a journal record per frame, a phase per transition)
// was its own fsynced bbolt transaction, ~0.5 ms each on this class of machine, one at a time:
// about 2,000 writes a second for the whole Core, whatever the number of Runs (docs/performance.md,
// "Many Runtimes on one Core"). Now the writes that queue while a transaction commits are committed
// together in the next one, with one fsync, by the first of their callers (the leader; no writer
// goroutine, so a lone write is committed on its caller's goroutine at once, as before, and no
// batching timer: bolt.DB.Batch would add up to its MaxBatchDelay to an idle Core's every frame).
// A write returns only once its transaction is durable.
//
// A write that fails rolls back the transaction it shared: it is then run alone, so that it
// returns its own error, and the others are run again without it (bolt.DB.Batch's contract). A
// write function may therefore run more than once and must leave no trace outside the
// transaction but what its last run sets.

const maxGroup = 256 // writes in one transaction at most

// errLead tells a queued caller that it leads the next group.
var errLead = errors.New("lead the next group")

type writeCall struct {
	fn   func(*bolt.Tx) error
	done chan error // errLead, then (or only) the write's result
}

type groupWriter struct {
	db      *bolt.DB
	mu      sync.Mutex
	idle    *sync.Cond // signalled when no group is being committed
	pending []writeCall
	leading bool // a caller is committing a group; the pending ones wait for it
	closed  bool
}

func newGroupWriter(db *bolt.DB) *groupWriter {
	w := &groupWriter{db: db}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// update commits fn durably, in a transaction it may share with other writes.
func (w *groupWriter) update(fn func(*bolt.Tx) error) error {
	c := writeCall{fn: fn, done: make(chan error, 1)}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return berrors.ErrDatabaseNotOpen
	}
	w.pending = append(w.pending, c)
	if w.leading {
		w.mu.Unlock()
		if err := <-c.done; err != errLead {
			return err // committed by another caller's group
		}
		w.mu.Lock()
	}
	w.leading = true
	n := min(len(w.pending), maxGroup)
	group := slices.Clone(w.pending[:n])
	w.pending = slices.Delete(w.pending, 0, n)
	w.mu.Unlock()

	w.commit(group)

	w.mu.Lock()
	if len(w.pending) > 0 {
		w.pending[0].done <- errLead // the first of those that queued meanwhile commits them
	} else {
		w.leading = false
		w.idle.Broadcast()
	}
	w.mu.Unlock()
	return <-c.done
}

// close refuses every later write and waits until the ones already queued are committed;
// closing twice is harmless, as closing a bolt.DB twice is.
func (w *groupWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	for w.leading {
		w.idle.Wait()
	}
}

func (w *groupWriter) commit(group []writeCall) {
	for len(group) > 0 {
		failed := -1
		err := w.db.Update(func(tx *bolt.Tx) error {
			for i, c := range group {
				if err := c.fn(tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed < 0 {
			for _, c := range group {
				c.done <- err
			}
			return
		}
		c := group[failed]
		c.done <- w.db.Update(c.fn)
		group = slices.Delete(group, failed, failed+1)
	}
}
