package execution

import (
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// transitions is the Turn state machine: from → the phases it may move to.
var transitions = map[string][]string{
	store.PhaseQueued:     {store.PhasePreparing, store.PhaseDone},
	store.PhasePreparing:  {store.PhaseQueued, store.PhaseReady, store.PhaseDone},
	store.PhaseReady:      {store.PhaseStarting, store.PhaseDone},
	store.PhaseStarting:   {store.PhaseRunning, store.PhasePreparing, store.PhaseCancelling, store.PhaseDone},
	store.PhaseRunning:    {store.PhaseCancelling, store.PhaseDone},
	store.PhaseCancelling: {store.PhaseDone},
	store.PhaseDone:       nil,
}

// ErrInvalidTransition is returned for a move the state machine does not allow.
type ErrInvalidTransition struct{ From, To string }

func (e *ErrInvalidTransition) Error() string {
	return fmt.Sprintf("invalid Turn transition %s → %s", e.From, e.To)
}

// Transition checks one move of the state machine.
func Transition(from, to string) error {
	for _, ok := range transitions[from] {
		if ok == to {
			return nil
		}
	}
	return &ErrInvalidTransition{From: from, To: to}
}

// effectUnknown lists the reasons after which the native effect is unknown: a failed status then
// proves neither that the Harness failed nor that nothing happened.
var effectUnknown = map[string]bool{
	proto.ReasonDeliveryUnknown:         true,
	proto.ReasonEventStreamIncomplete:   true,
	proto.ReasonCancelUnconfirmed:       true,
	proto.ReasonInvalidExecutorResult:   true,
	proto.ReasonEventPersistenceFailed:  true,
	proto.ReasonInteractionNotSupported: true,
}

// ReconcileOutcome is what a restarted Core records for a Turn it finds in flight: failed with
// execution_interrupted, its effect unknown if input may have been dispatched. It never completes
// a Turn and never dispatches one again.
func ReconcileOutcome(f store.InFlight) *store.Outcome {
	o := &store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonExecutionInterrupted,
		EffectUnknown: store.Dispatched(f.Phase)}
	if o.EffectUnknown {
		o.Error = "Core restarted while the Turn was in phase " + f.Phase + ": input may have been submitted; the outcome is unknown"
	} else {
		o.Error = "Core restarted while the Turn was in phase " + f.Phase + ": no input was submitted"
	}
	return o
}
