package admission

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// sample is one event of each kind, valid for the record given() builds.
var sample = map[EventKind]Event{
	KindPrepareAccepted:      PrepareAccepted{Now: epoch, Expiry: 5 * time.Minute, Handle: "h2", ExecutorID: "e2", Hash: "p2"},
	KindPrepareRepeated:      PrepareRepeated{Hash: "p1"},
	KindSetupSucceeded:       SetupSucceeded{},
	KindSetupFailed:          SetupFailed{},
	KindSetupCleanupFailed:   SetupCleanupFailed{},
	KindStartRequested:       StartRequested{Now: epoch.Add(time.Second), ExecutorID: "e1", RunID: "r1", Hash: "s1"},
	KindTurnStarted:          TurnStarted{},
	KindNativeStartFailed:    NativeStartFailed{},
	KindStartAborted:         StartAborted{},
	KindReleaseRequested:     ReleaseRequested{},
	KindExpiryFired:          ExpiryFired{Now: epoch.Add(5 * time.Minute)},
	KindStatusDeliveryFailed: StatusDeliveryFailed{},
	KindDeviceShutdown:       DeviceShutdown{},
	KindConnectionClosed:     ConnectionClosed{},
}

// Every (state, event) pair is decided: a row's handler takes its event kind, and every pair
// without a row is a TransitionError naming both.
func TestEveryPairIsDecided(t *testing.T) {
	if len(sample) != len(kinds) {
		t.Fatalf("%d sample events for %d kinds", len(sample), len(kinds))
	}
	for _, s := range states {
		rec := given(t, s, false)
		for _, k := range kinds {
			_, _, err := Apply(rec, sample[k])
			var te *TransitionError
			_, allowed := table[cell{s, k}]
			switch {
			case allowed && err != nil && strings.Contains(err.Error(), "the event is a"):
				t.Errorf("the row from %s on %s has a handler of another event: %v", s, k, err)
			case !allowed && (!errors.As(err, &te) || te.From != s || te.On != k || te.Reason != ""):
				t.Errorf("from %s on %s: want a TransitionError without reason, got %v", s, k, err)
			}
		}
	}
}

// Every state has rows, every event kind is used, and the rows name only known states.
func TestTableCoversEveryStateAndEvent(t *testing.T) {
	from, on := map[State]bool{}, map[EventKind]bool{}
	for _, tr := range transitions {
		from[tr.from], on[tr.on] = true, true
		for _, s := range append([]State{tr.from}, tr.to...) {
			if !slices.Contains(states, s) {
				t.Errorf("row %s on %s names an unknown state %q", tr.from, tr.on, s)
			}
		}
		if len(tr.to) == 0 || tr.do == nil {
			t.Errorf("row %s on %s has no target or no handler", tr.from, tr.on)
		}
	}
	for _, s := range states {
		if !from[s] {
			t.Errorf("no transition from %s", s)
		}
	}
	for _, k := range kinds {
		if !on[k] {
			t.Errorf("no transition on %s", k)
		}
	}
}

// Terminal states have no exits: started passed the admission to its Run; released, expired and
// failed are over.
func TestTerminalStatesStayTerminal(t *testing.T) {
	for _, tr := range transitions {
		if tr.from.Terminal() && !slices.Equal(tr.to, []State{tr.from}) {
			t.Errorf("terminal %s may move to %v on %s", tr.from, tr.to, tr.on)
		}
	}
	for _, s := range []State{Started, Released, Expired, Failed} {
		if !s.Terminal() {
			t.Errorf("%s is not terminal", s)
		}
	}
}

// Core's requests, timers, lost writes and the connection's end can reach any admission the daemon
// holds: no such event may be refused, whatever the state.
func TestPeerAndTimerEventsAreAcceptedInEveryState(t *testing.T) {
	always := []EventKind{KindPrepareRepeated, KindStartRequested, KindReleaseRequested, KindExpiryFired,
		KindStatusDeliveryFailed, KindDeviceShutdown, KindConnectionClosed}
	for _, s := range states[1:] {
		for _, k := range always {
			if _, ok := table[cell{s, k}]; !ok {
				t.Errorf("%s refuses %s", s, k)
			}
		}
	}
}
