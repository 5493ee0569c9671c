package turn

import "github.com/wirecheck/wirecheck/reference/core/store"

// Phases, in the order a Turn goes through them (the store names them).
var Phases = []string{store.PhaseQueued, store.PhasePreparing, store.PhaseReady, store.PhaseStarting,
	store.PhaseRunning, store.PhaseCancelling, store.PhaseDone}

// moves is the phase graph: from → the phases a commit may move it to. Queued comes back only
// after a definite preparation_capacity rejection, preparing only for the single recovery after
// executor_unavailable; done is terminal.
var moves = map[string][]string{
	store.PhaseQueued:     {store.PhasePreparing, store.PhaseDone},
	store.PhasePreparing:  {store.PhaseQueued, store.PhaseReady, store.PhaseDone},
	store.PhaseReady:      {store.PhaseStarting, store.PhaseDone},
	store.PhaseStarting:   {store.PhaseRunning, store.PhasePreparing, store.PhaseCancelling, store.PhaseDone},
	store.PhaseRunning:    {store.PhaseCancelling, store.PhaseDone},
	store.PhaseCancelling: {store.PhaseDone},
	store.PhaseDone:       nil,
}

// CheckMove checks one move of the phase graph.
func CheckMove(from, to string) error {
	for _, ok := range moves[from] {
		if ok == to {
			return nil
		}
	}
	return &InvalidMove{From: from, To: to}
}
