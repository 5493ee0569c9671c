package store

import (
	"slices"
	"sync"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Group commit. Every write of a busy Core (a journal record per frame, a phase per transition)
// was its own fsynced bbolt transaction, ~0.5 ms each on this class of machine, one at a time:
// about 2,000 writes a second for the whole Core, whatever the number of Runs (docs/performance.md,
// "wirecheck load"). One writer goroutine now commits every write waiting when it is free in one
// transaction and one fsync. An idle Core commits a lone write at once (no batching delay, unlike
// bolt.DB.Batch, whose timer would add up to its MaxBatchDelay to every frame); a write returns
// only once its transaction is durable, as before.
//
// A write that fails rolls back the transaction it shared: it is then run alone, so that it
// returns its own error, and the others are run again without it (bolt.DB.Batch's contract). A
// write function may therefore run more than once and must leave no trace outside the
// transaction but what its last run sets.

const maxGroup = 256 // writes in one transaction at most

type writeCall struct {
	fn   func(*bolt.Tx) error
	done chan error
}

type groupWriter struct {
	db    *bolt.DB
	calls chan writeCall // unbuffered: a call is handed over or not sent at all
	stop  chan struct{}
	ended chan struct{}
	once  sync.Once
}

func newGroupWriter(db *bolt.DB) *groupWriter {
	w := &groupWriter{db: db, calls: make(chan writeCall), stop: make(chan struct{}), ended: make(chan struct{})}
	go w.run()
	return w
}

// update commits fn durably, in a transaction it may share with other writes.
func (w *groupWriter) update(fn func(*bolt.Tx) error) error {
	c := writeCall{fn: fn, done: make(chan error, 1)}
	select {
	case w.calls <- c:
	case <-w.stop:
		return berrors.ErrDatabaseNotOpen
	}
	return <-c.done
}

// close stops the writer once it has answered every call handed to it; closing twice is harmless,
// as closing a bolt.DB twice is.
func (w *groupWriter) close() {
	w.once.Do(func() { close(w.stop) })
	<-w.ended
}

func (w *groupWriter) run() {
	defer close(w.ended)
	for {
		var group []writeCall
		select {
		case c := <-w.calls:
			group = append(group, c)
		case <-w.stop:
			return
		}
	more:
		for len(group) < maxGroup {
			select {
			case c := <-w.calls:
				group = append(group, c)
			default:
				break more
			}
		}
		w.commit(group)
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
