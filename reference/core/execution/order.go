package execution

import (
	"math"
	"time"

	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// Wire order. A Run's frames, its cancellation receipt and its decisions' acks travel on one
// connection of ordered envelopes (runtime-protocol.md, "Exchange ordered JSON envelopes") but
// reach the runner on three subscriptions, and a select picks among ready channels at random: an
// ack sent just before done could be handled after it, and the decision recorded unknown
// (ack_unavailable) though its ack settled it (IA-14.1). The gateway numbers a connection's
// inbound frames (gateway.Event.Seq) and routes each before it reads the next, so once the runner
// has taken a frame, every frame that came before it on the wire is already on its stream. The
// runner therefore takes the head of each of these streams into a slot and handles the lowest
// number first, until nothing is waiting: the machine sees the frames in wire order.

// ordered are the streams put back in wire order, in the order ties go (frames a test's fake
// does not number, and closes): the Run's frames before the receipts that follow them.
var ordered = [...]turn.Stream{turn.StreamRun, turn.StreamReceipt, turn.StreamDecision}

// head is an event taken from an ordered stream and not yet handled.
type head struct {
	ev    gateway.Event
	ok    bool // false: the stream closed
	taken bool
}

// seq is where a head goes: a close after every frame (nothing is routed to a closed stream).
func (h head) seq() uint64 {
	if !h.ok {
		return math.MaxUint64
	}
	return h.ev.Seq
}

func orderedIndex(s turn.Stream) int {
	for i, o := range ordered {
		if o == s {
			return i
		}
	}
	return -1
}

// intake handles an event the loop took from ordered stream s, and with it everything already
// waiting on the ordered streams, in wire order.
func (r *runner) intake(s turn.Stream, ev gateway.Event, ok bool) {
	r.heads[orderedIndex(s)] = head{ev: ev, ok: ok, taken: true}
	if s == turn.StreamDecision && mutation.On(mutation.IARunFramesBeforeAck) {
		r.awaitRunHead(mutantRunWait)
	}
	for !r.finished {
		r.fillHeads()
		next := -1
		for i, h := range r.heads {
			if h.taken && (next < 0 || h.seq() < r.heads[next].seq()) {
				next = i
			}
		}
		if r.heads[0].taken && mutation.On(mutation.IARunFramesBeforeAck) {
			next = 0 // the old drain: every Run frame waiting before any receipt
		}
		if next < 0 {
			return
		}
		h := r.heads[next]
		r.heads[next] = head{}
		r.handle(ordered[next], h)
	}
}

// mutantRunWait is how long the ia-run-frames-before-ack mutant waits, once it took an ack, for
// the Run frame that follows it on the wire: the bug it plants (Run frames first) shows only when
// that frame is already waiting, and on a loaded machine it may still be on its way, which made the
// mutant's kill a race. Real time, but only the mutant waits.
const mutantRunWait = 2 * time.Second

// awaitRunHead takes the Run stream's next event into its slot, waiting at most d for it.
func (r *runner) awaitRunHead(d time.Duration) {
	st := *r.stream(turn.StreamRun)
	if r.heads[0].taken || st == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case ev, ok := <-st.Events():
		r.took(turn.StreamRun)
		r.heads[0] = head{ev: ev, ok: ok, taken: true}
	case <-t.C:
	}
}

// fillHeads takes, without waiting, the next event of every ordered stream whose slot is empty.
func (r *runner) fillHeads() {
	for i, s := range ordered {
		st := *r.stream(s)
		if r.heads[i].taken || st == nil {
			continue
		}
		select {
		case ev, ok := <-st.Events():
			r.took(s)
			r.heads[i] = head{ev: ev, ok: ok, taken: true}
		default:
		}
	}
}

// handle steps one event (or close) of an ordered stream.
func (r *runner) handle(s turn.Stream, h head) {
	switch {
	case s == turn.StreamRun && !h.ok:
		r.runClosed()
	case s == turn.StreamRun:
		r.onRunEvent(h.ev)
	case s == turn.StreamReceipt && !h.ok:
		r.ackClosed()
	case s == turn.StreamReceipt:
		r.onReceipt(h.ev)
	case !h.ok:
		r.decClosed()
	default:
		r.onDecisionAck(h.ev)
	}
}
