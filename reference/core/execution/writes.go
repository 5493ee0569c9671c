package execution

import (
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// maxBatch bounds the journal records one batch holds, so a Run streaming faster than the store
// commits still reaches the disk in bounded groups.
const maxBatch = 256

// writes are the store writes of the steps taken since the runner last committed: the records
// of the frames it received, the journal events and record changes the machine asked for. They
// are committed together, in order, in one transaction (store.Commit):
//
//   - before any effect that leaves the runner (a frame sent, a subscription, a timer, a query)
//     and before an API caller hears the Turn's state: the runner waits for that commit;
//   - in the outcome's transaction, when the Turn finishes;
//   - when the runner has nothing else to take: then the commit runs in the background while the
//     runner waits for input (one at a time, in order), and what it takes meanwhile is held for
//     the next batch.
//
// A Run's statuses and first frames, which arrive together, so cost one fsync instead of one
// each, and a frame is taken when it arrives rather than after its predecessors' commits. Until a
// batch is durable nothing it caused has left the runner, so if the store refuses it the runner
// restores the state from before the batch's first step (dropping the steps taken since) and steps
// the failure: the machine's contract (turn/doc.go) holds as if each step had committed alone.
type writes struct {
	from     turn.State // the state before the first step whose writes are held
	events   []store.Event
	apply    []func(*store.Turn)
	received []store.Event // announced to OnEvent once durable
	changed  bool          // a record change: announced to OnChange once durable
}

func (w *writes) empty() bool { return len(w.events) == 0 && len(w.apply) == 0 }

// committing is a batch whose commit runs in the background.
type committing struct {
	batch writes
	done  chan committed
}

type committed struct {
	rec *store.Turn
	err error
}

// hold adds an event to the batch, stamped with the time Core observed it.
func (r *runner) hold(ev store.Event) {
	r.holding()
	ev.At = r.e.cfg.Clock.Now().UTC()
	r.w.events = append(r.w.events, ev)
}

// holding marks the state to restore if the batch fails: the one before its first write.
func (r *runner) holding() {
	if r.w.empty() {
		r.w.from = r.state
	}
}

// commitBatch writes a batch in one transaction.
func (r *runner) commitBatch(w writes) (*store.Turn, error) {
	var fn func(*store.Turn) error
	if len(w.apply) > 0 {
		fn = func(t *store.Turn) error {
			for _, a := range w.apply {
				a(t)
			}
			return nil
		}
	}
	return r.e.cfg.Store.Commit(r.rec.ID, fn, w.events...)
}

// flush makes every held write durable: the commit in flight, then the batch. If the store
// refuses either, the state before it is restored and the failure returned, for stepping.
func (r *runner) flush() turn.Event {
	if failure := r.await(); failure != nil {
		return failure
	}
	if r.w.empty() {
		return nil
	}
	w := r.w
	r.w = writes{}
	t, err := r.commitBatch(w)
	return r.committed(w, committed{t, err})
}

// settle flushes, stepping the failure if the store refused a write. It reports whether the Turn
// goes on.
func (r *runner) settle() bool {
	if failure := r.flush(); failure != nil {
		r.step(failure)
	}
	return !r.finished
}

// commitBehind starts committing the batch in the background, unless a commit is in flight.
func (r *runner) commitBehind() {
	if r.w.empty() || r.inflight != nil {
		return
	}
	c := &committing{batch: r.w, done: make(chan committed, 1)}
	r.w = writes{}
	r.mu.Lock()
	r.inflight = c
	r.mu.Unlock()
	go func() {
		t, err := r.commitBatch(c.batch)
		c.done <- committed{t, err}
	}()
}

// inflightDone is the channel the commit in flight reports on (nil when none).
func (r *runner) inflightDone() <-chan committed {
	if r.inflight == nil {
		return nil
	}
	return r.inflight.done
}

// await waits for the commit in flight, if any, and takes its result.
func (r *runner) await() turn.Event {
	if r.inflight == nil {
		return nil
	}
	return r.landed(<-r.inflight.done)
}

// landed takes the result of the commit in flight.
func (r *runner) landed(res committed) turn.Event {
	c := r.inflight
	r.mu.Lock()
	r.inflight = nil
	r.mu.Unlock()
	failure := r.committed(c.batch, res)
	if failure != nil {
		r.w = writes{} // the steps taken since stood on the batch that failed
	}
	return failure
}

// committed takes the result of a batch's commit: the durable record and the announcements, or,
// when the store refused it, the state from before the batch and the failure to step.
func (r *runner) committed(w writes, res committed) turn.Event {
	if res.err != nil {
		r.log.Error("committing the Turn's writes failed", "error", res.err)
		r.state = w.from
		return turn.PersistFailed{Err: res.err, Committed: r.rec.Phase}
	}
	if res.rec != nil {
		r.rec = res.rec
	}
	r.announce(w)
	if w.changed {
		r.e.cfg.OnChange(r.rec.ID) // an input's state is a change too
	}
	return nil
}

// full reports whether the batch has reached its bound: it is then committed before anything
// else is taken, which holds a Run that streams faster than the disk to the disk's pace.
func (r *runner) full() bool { return len(r.w.events) >= maxBatch }

// announce shows the received frames of a durable batch to in-process observers.
func (r *runner) announce(w writes) {
	if r.e.cfg.OnEvent == nil {
		return
	}
	for _, ev := range w.received {
		r.e.cfg.OnEvent(r.rec.ID, ev)
	}
}

// takeAtOnce reports whether an event is already waiting on one of the Turn's streams: the
// runner then takes it before committing, so that the batch grows while frames keep coming.
func (r *runner) takeAtOnce() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range []Stream{r.prep, r.run, r.ack, r.dec} {
		if s != nil && s.Delivered() != r.taken[i] {
			return true
		}
	}
	return false
}
