package execution

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// runner executes one Turn. The decisions are the pure machine's (package turn); the runner owns
// what the machine may not touch: the connection, the subscriptions, the timers and the store.
// It turns every input into an event, steps it, and carries out the effects in order.
type runner struct {
	e   *Engine
	log *slog.Logger
	rec *store.Turn // the durable record as last committed
	w   writes      // the writes of the steps since the last commit (writes.go)
	// deviceID is rec.DeviceID, which never changes: other goroutines read it (wakeDevice).
	deviceID string
	state    turn.State
	// trace is the Turn's span (tracing.go), a child of parentTrace's span.
	trace       opTrace
	parentTrace string

	cancelReq chan struct{}
	inputReq  chan inputRequest
	answerReq chan answerRequest
	wake      chan struct{} // the device's connection became ready for work (environment.go)
	requests  atomic.Int64  // cancellations, inputs, answers and wakes sent to the channels above and not yet handled
	stopped   chan struct{} // closed when the loop returns
	finished  bool

	// parked is true while the runner waits with nothing to do; Quiesce reads it (and the streams
	// and timers below) under mu. Only the runner's goroutine writes them.
	mu     sync.Mutex
	parked bool
	// waitsRoom: the runner is blocked in a send that waits for room in the connection's full
	// queue (gateway.WithQueueWait). Only the daemon reading or the send's budget running out on
	// the clock ends that wait, so Quiesce counts the runner as idle, whatever is on its way to it.
	waitsRoom bool
	conn      Conn
	prep      Stream
	run       Stream
	ack       Stream
	dec       Stream    // the ack of the decision sent last
	taken     [4]uint64 // per stream field (prep, run, ack, dec): events and closes taken from it
	// heads holds what intake took from the ordered streams and has not handled yet (order.go);
	// only the runner's goroutine touches it, and it is empty whenever the runner parks.
	heads [len(ordered)]head
	// inflight is the batch of writes being committed in the background (writes.go).
	inflight *committing
	timers   [turn.TimerCount]clock.Timer
	due      [turn.TimerCount]time.Time // when each armed timer fires, on the engine's clock
}

func newRunner(e *Engine, t *store.Turn, spec *turn.Spec) *runner {
	return &runner{e: e, rec: t, deviceID: t.DeviceID, state: turn.New(spec), cancelReq: make(chan struct{}, 1),
		inputReq: make(chan inputRequest, 8), answerReq: make(chan answerRequest, 8), wake: make(chan struct{}, 1), stopped: make(chan struct{}),
		log: e.log.With("turn_id", t.ID, "run_id", t.RunID, "device_id", t.DeviceID)}
}

func events(s Stream) <-chan gateway.Event {
	if s == nil {
		return nil
	}
	return s.Events()
}

func timerC(t clock.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C()
}

func (r *runner) loop() {
	defer close(r.stopped)
	defer r.traceTurn()()
	defer r.closeAll()
	r.step(turn.Claim{})
	for !r.finished {
		// The batch of writes is committed while the runner waits, unless a frame is already
		// waiting: it joins the batch (writes.go).
		if r.full() && !r.settle() {
			break
		}
		if !r.takeAtOnce() {
			r.commitBehind()
		}
		r.park(true)
		select {
		case res := <-r.inflightDone():
			r.park(false)
			if failure := r.landed(res); failure != nil {
				r.step(failure)
			}
		case <-r.e.ctx.Done():
			r.park(false)
			r.flush() // best effort; Core is stopping: the committed phase stays for the next Reconcile
			return
		case <-r.cancelReq:
			r.park(false)
			r.step(turn.CancelRequested{})
			r.requests.Add(-1)
		case <-timerC(r.timers[turn.TimerRetry]):
			r.park(false)
			r.fired(turn.TimerRetry)
		case <-r.wake:
			r.park(false)
			if r.state.Timers.Has(turn.TimerRetry) {
				r.fired(turn.TimerRetry) // an unclaimed Turn is claimed now, not at its next retry
			}
			r.requests.Add(-1)
		case <-timerC(r.timers[turn.TimerCancelConfirmation]):
			r.park(false)
			r.fired(turn.TimerCancelConfirmation)
		case <-timerC(r.timers[turn.TimerInputWritten]):
			r.park(false)
			r.fired(turn.TimerInputWritten)
		case <-timerC(r.timers[turn.TimerInputResend]):
			r.park(false)
			r.fired(turn.TimerInputResend)
		case req := <-r.inputReq:
			r.park(false)
			r.onInput(req)
			r.requests.Add(-1)
		case req := <-r.answerReq:
			r.park(false)
			r.onAnswer(req)
			r.requests.Add(-1)
		case <-timerC(r.timers[turn.TimerDecisionAck]):
			r.park(false)
			r.fired(turn.TimerDecisionAck)
		case ev, ok := <-events(r.dec):
			r.took(turn.StreamDecision)
			r.park(false)
			r.intake(turn.StreamDecision, ev, ok)
		case ev, ok := <-events(r.prep):
			r.took(turn.StreamPreparation)
			r.park(false)
			if !ok {
				r.prepClosed()
				continue
			}
			r.onStatus(ev)
		case ev, ok := <-events(r.run):
			r.took(turn.StreamRun)
			r.park(false)
			r.intake(turn.StreamRun, ev, ok)
		case ev, ok := <-events(r.ack):
			r.took(turn.StreamReceipt)
			r.park(false)
			// Run frames and receipts travel on one ordered connection but reach the runner on
			// separate streams: intake handles them in wire order (order.go).
			r.intake(turn.StreamReceipt, ev, ok)
		}
	}
}

// feed steps an input and carries out the effects in order. A failed effect ends the step: the
// state stays as it was before it, and the failure is the next input. A query's answer is the
// next input once the step is adopted. It returns the error of the first step, if the Turn
// refused it.
func (r *runner) feed(ev turn.Event) error {
	first := true
	for ev != nil && !r.finished {
		next, effects, err := turn.Step(r.state, ev)
		if err != nil {
			if first {
				return err
			}
			r.log.Error("the Turn refused an input", "error", err)
			return nil
		}
		first = false
		var follow turn.Event
		failed := false
		for _, eff := range effects {
			answer, failure := r.apply(eff)
			if failure != nil {
				follow, failed = failure, true
				break
			}
			if answer != nil {
				follow = answer
			}
		}
		if !failed {
			r.state = next
		}
		ev = follow
	}
	return nil
}

func (r *runner) fired(t turn.Timer) {
	r.setTimer(t, nil, time.Time{})
	r.step(turn.TimerFired{Timer: t})
}

// step feeds an event the Turn is expected to take; a refusal is logged.
func (r *runner) step(ev turn.Event) {
	if err := r.feed(ev); err != nil {
		r.log.Error("the Turn refused an input", "error", err)
	}
}

func (r *runner) park(p bool) {
	r.mu.Lock()
	r.parked = p
	r.mu.Unlock()
	if p {
		r.e.parkedChanged()
	}
}

// waitingRoom is told by the gateway when a send of the runner begins and ends a wait for room
// in the full send queue.
func (r *runner) waitingRoom(waits bool) {
	r.mu.Lock()
	r.waitsRoom = waits
	r.mu.Unlock()
	if waits {
		r.e.parkedChanged()
	}
}

func (r *runner) setTimer(t turn.Timer, c clock.Timer, due time.Time) {
	r.mu.Lock()
	old := r.timers[t]
	r.timers[t], r.due[t] = c, due
	r.mu.Unlock()
	if old != nil {
		old.Stop()
	}
}

// stream returns the field a subscription lives in.
func (r *runner) stream(s turn.Stream) *Stream {
	switch s {
	case turn.StreamPreparation:
		return &r.prep
	case turn.StreamRun:
		return &r.run
	case turn.StreamDecision:
		return &r.dec
	default:
		return &r.ack
	}
}

func (r *runner) setStream(s turn.Stream, st Stream) {
	r.mu.Lock()
	*r.stream(s) = st
	r.taken[streamIndex(s)] = 0
	r.mu.Unlock()
	if i := orderedIndex(s); i >= 0 {
		r.heads[i] = head{} // a frame held for a stream the Turn closed or replaced is not observed
	}
}

func streamIndex(s turn.Stream) int {
	switch s {
	case turn.StreamPreparation:
		return 0
	case turn.StreamRun:
		return 1
	case turn.StreamDecision:
		return 3
	default:
		return 2
	}
}

// took counts an event (or the close) the runner has just taken from stream s.
func (r *runner) took(s turn.Stream) {
	r.mu.Lock()
	r.taken[streamIndex(s)]++
	r.mu.Unlock()
}

// idle reports whether the runner waits with nothing on its way to it: every request, frame and
// stream close sent to it taken and handled, and no armed timer due. A channel's length cannot
// say it: the runner may have taken the last event and not yet unparked, and an advance in that
// gap would overtake the timer that event arms. So the senders count what they sent (requests,
// Stream.Delivered) and the runner what it took; a timer counts as pending from its due time
// until the runner disarms it on firing. A runner blocked in a send that waits for room in the
// full send queue is idle too: it takes nothing before the daemon reads or its budget runs out.
func (r *runner) idle() bool {
	select {
	case <-r.stopped:
		return true // the Turn is over: nothing sent to it is handled any more
	default:
	}
	r.mu.Lock()
	waits := r.waitsRoom
	r.mu.Unlock()
	if waits {
		return true
	}
	if r.requests.Load() > 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.parked || r.inflight != nil {
		return false
	}
	for i, s := range []Stream{r.prep, r.run, r.ack, r.dec} {
		if s != nil && s.Delivered() != r.taken[i] {
			return false
		}
	}
	now := r.e.cfg.Clock.Now()
	for t, c := range r.timers {
		if c != nil && !now.Before(r.due[t]) {
			return false
		}
	}
	return true
}

// closeAll releases what the Turn owned: after its outcome (or when Core stops) nothing is
// observed any more.
func (r *runner) closeAll() {
	for _, s := range []turn.Stream{turn.StreamPreparation, turn.StreamRun, turn.StreamReceipt, turn.StreamDecision} {
		r.closeStream(s)
	}
	for t := range r.timers {
		r.setTimer(turn.Timer(t), nil, time.Time{})
	}
}

func (r *runner) closeStream(s turn.Stream) {
	if st := *r.stream(s); st != nil {
		st.Close()
	}
	r.setStream(s, nil)
}
