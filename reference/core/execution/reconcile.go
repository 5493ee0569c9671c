package execution

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// restartSpec is all a restart knows of a Turn: its committed record decides.
var restartSpec = &turn.Spec{}

// ReconcileOutcome is what a restarted Core records for a Turn it finds in flight: the machine's
// answer to a restart in the committed phase (failed with execution_interrupted, its effect
// unknown if input may have been dispatched). It never completes a Turn and never dispatches one
// again.
func ReconcileOutcome(f store.InFlight) *store.Outcome { return ReconcileSettlement(f).Outcome }

// ReconcileSettlement is ReconcileOutcome with the Turn's inputs as the restart leaves them: an
// input that awaited its receipt is unknown, never resent, and so is a decision that awaited its
// ack.
func ReconcileSettlement(f store.InFlight) *store.Settlement {
	rec := turn.Record{Phase: f.Phase, Inputs: f.Inputs, InputCursor: f.InputCursor, Interactions: f.Interactions}
	_, effects, err := turn.Step(turn.Restore(restartSpec, rec), turn.Restarted{})
	if err == nil {
		for _, e := range effects {
			if fin, ok := e.(turn.Finish); ok {
				s := &store.Settlement{Outcome: fin.Outcome}
				if fin.Record != nil {
					s.Inputs, s.Interactions = fin.Record.Inputs, fin.Record.Interactions
				}
				return s
			}
		}
	}
	// A phase the machine does not know is still settled: nothing stays in flight.
	return &store.Settlement{Outcome: &store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonExecutionInterrupted,
		EffectUnknown: store.Dispatched(f.Phase), Error: turn.InterruptedError(f.Phase)}}
}
