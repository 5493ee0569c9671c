package admission

import (
	"fmt"
	"slices"
)

// transitions is the whole state machine, one row per (from, on) pair: the states the handler may
// lead to, and the handler. Any other pair is a TransitionError. The handler only decides; Apply
// holds its answer to the row and to the revision rule.
var transitions = slices.Concat([]transition{
	// {from, on, to, handler}
	{None, KindPrepareAccepted, to(Preparing, Ready), on(grant)},

	{Preparing, KindPrepareRepeated, to(Preparing), on(repeatPrepare)},
	{Preparing, KindSetupSucceeded, to(Ready), becomeReady},
	{Preparing, KindSetupFailed, to(Failed), failSetup},
	{Preparing, KindStartRequested, to(Preparing), on(startNotReady)},
	{Preparing, KindReleaseRequested, to(Released), releasePreparing},
	{Preparing, KindExpiryFired, to(Preparing, Expired), on(expirePreparing)},
	{Preparing, KindStatusDeliveryFailed, to(Failed), abandonPreparing(codeStatusDeliveryFailed)},
	{Preparing, KindDeviceShutdown, to(Failed), abandonPreparing(codeConnectionClosed)},
	{Preparing, KindConnectionClosed, to(Failed), abandonPreparing(codeConnectionClosed)},

	{Ready, KindPrepareRepeated, to(Ready), on(repeatPrepare)},
	{Ready, KindStartRequested, to(Ready, Starting, Expired), on(startReady)},
	{Ready, KindReleaseRequested, to(Released), releaseReady},
	{Ready, KindExpiryFired, to(Ready, Expired), on(expireReady)},
	{Ready, KindStatusDeliveryFailed, to(Failed), abandonReady(codeStatusDeliveryFailed, IdleExecutor{})},
	{Ready, KindDeviceShutdown, to(Failed), abandonReady(codeConnectionClosed, CloseExecutor{})},
	{Ready, KindConnectionClosed, to(Failed), abandonReady(codeConnectionClosed)}, // shutdown closes every Executor

	{Starting, KindPrepareRepeated, to(Starting), on(repeatPrepare)},
	{Starting, KindStartRequested, to(Starting), on(repeatStart)},
	{Starting, KindTurnStarted, to(Started), confirmStart},
	{Starting, KindNativeStartFailed, to(Failed), on(failStart)},
	{Starting, KindStartAborted, to(Failed), abortStart},
	{Starting, KindReleaseRequested, to(Starting), republish}, // only prompt_cancel stops a Run
	{Starting, KindExpiryFired, to(Starting), ignore},
	{Starting, KindStatusDeliveryFailed, to(Failed), abandonStarting(codeStatusDeliveryFailed)},
	{Starting, KindDeviceShutdown, to(Starting), ignore}, // device_shutdown cancels the Run instead
	{Starting, KindConnectionClosed, to(Failed), abandonStarting(codeConnectionClosed)},

	{Started, KindPrepareRepeated, to(Started), on(repeatPrepare)},
	{Started, KindStartRequested, to(Started), on(repeatStart)},
	{Started, KindReleaseRequested, to(Started), republish}, // only prompt_cancel stops a Run
	{Started, KindExpiryFired, to(Started), ignore},
	{Started, KindStatusDeliveryFailed, to(Started), ignore},
	{Started, KindDeviceShutdown, to(Started), ignore},
	{Started, KindConnectionClosed, to(Started), ignore},
},
	ended(Released, on(startNotReady)),
	ended(Expired, on(startExpired)), // AD-38: a start after the deadline is answered expired
	ended(Failed, on(startNotReady)),
	[]transition{
		// A failed admission may still learn how the native work it started ended.
		{Failed, KindSetupCleanupFailed, to(Failed), reportCleanupUnconfirmed},
		{Failed, KindTurnStarted, to(Failed), ignore}, // the Run goes on; the admission already failed
		{Failed, KindNativeStartFailed, to(Failed), on(answerFailedStart)},
		{Failed, KindStartAborted, to(Failed), ignore}, // the admission already failed (its connection ended)
	},
)

// ended is the rows of an admission that is over (released, expired, failed): it never leaves its
// state, a late Executor is closed, and its request ID may allocate a fresh handle. start answers a
// start on it.
func ended(s State, start handler) []transition {
	return []transition{
		{s, KindPrepareRepeated, to(s), forget},
		{s, KindSetupSucceeded, to(s), closeLateExecutor},
		{s, KindSetupFailed, to(s), closeLateExecutor},
		{s, KindStartRequested, to(s), start},
		{s, KindReleaseRequested, to(s), republish},
		{s, KindExpiryFired, to(s), ignore},
		{s, KindStatusDeliveryFailed, to(s), ignore},
		{s, KindDeviceShutdown, to(s), ignore},
		{s, KindConnectionClosed, to(s), ignore},
	}
}

var table = index(transitions)

func index(ts []transition) map[cell]transition {
	m := make(map[cell]transition, len(ts))
	for _, t := range ts {
		c := cell{t.from, t.on}
		if _, dup := m[c]; dup {
			panic(fmt.Sprintf("admission: two transitions from %s on %s", t.from, t.on))
		}
		m[c] = t
	}
	return m
}

type transition struct {
	from State
	on   EventKind
	to   []State
	do   handler
}

type cell struct {
	from State
	on   EventKind
}

// handler decides one transition. It returns an error when the event is outside the protocol
// although its kind is allowed (e.g. an expiry beyond five minutes).
type handler func(Record, Event) (Record, []Effect, error)

func to(states ...State) []State { return states }

// on adapts a handler of one event type.
func on[E Event](f func(Record, E) (Record, []Effect, error)) handler {
	return func(rec Record, ev Event) (Record, []Effect, error) {
		e, ok := ev.(E)
		if !ok {
			return rec, nil, fmt.Errorf("the event is a %T, not a %T", ev, e)
		}
		return f(rec, e)
	}
}

// TransitionError is an event the record's state does not accept, or does not accept with these
// values (Reason says why). The record is unchanged.
type TransitionError struct {
	From   State
	On     EventKind
	Reason string
}

func (e *TransitionError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("admission: no transition from %s on %s", e.From, e.On)
	}
	return fmt.Sprintf("admission: %s on %s: %s", e.From, e.On, e.Reason)
}

// Apply applies one event to an admission record and returns the next record and the effects to
// carry out, in order. An event outside the table, or a handler's answer outside its row or the
// revision rule, is a *TransitionError and leaves the record as it was.
func Apply(rec Record, ev Event) (Record, []Effect, error) {
	t, ok := table[cell{rec.State, ev.Kind()}]
	if !ok {
		return rec, nil, &TransitionError{From: rec.State, On: ev.Kind()}
	}
	next, effects, err := t.do(rec, ev)
	if err == nil {
		err = t.check(rec, next)
	}
	if err != nil {
		return rec, nil, &TransitionError{From: rec.State, On: ev.Kind(), Reason: err.Error()}
	}
	return next, effects, nil
}

// check holds a handler to its row and to the revision rule: every observable change advances the
// revision exactly once, and nothing else moves it.
func (t transition) check(prev, next Record) error {
	if !slices.Contains(t.to, next.State) {
		return fmt.Errorf("the handler led to %s, outside the table", next.State)
	}
	want := prev.Revision
	if next.observable() != prev.observable() {
		want++
	}
	if next.Revision != want {
		return fmt.Errorf("revision %d after %d, want %d", next.Revision, prev.Revision, want)
	}
	return nil
}
