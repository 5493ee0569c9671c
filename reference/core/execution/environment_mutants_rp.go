package execution

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/envprep"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The runtime_prepare mutants (RP) of the preparation's executor. Every one acts only once
// mutation.On says so, a constant false outside the wirecheck_mutants build.

// reusedIDs keeps, under RP-11.2's mutant, each operation's first transfer ID.
var reusedIDs sync.Map // reusedKey → string

type reusedKey struct {
	e         *Engine
	device    string
	operation int
}

// transferID is a fresh transfer ID for the current operation.
func (p *preparer) transferID() string {
	id := NewID()
	if mutation.On(mutation.RPCoreTransferIDReused) {
		if first, loaded := reusedIDs.LoadOrStore(reusedKey{p.e, p.conn.DeviceID(), p.state.Index}, id); loaded {
			id = first.(string)
		}
	}
	if mutation.On(mutation.RPCoreTransferIDUppercase) {
		id = strings.ToUpper(id)
	}
	return id
}

// preparedBefore: under RP-14.8's mutant, a device whose latest connection completed its
// preparation is taken as prepared on the next one.
func (e *Engine) preparedBefore(deviceID string) bool {
	e.env.mu.Lock()
	cp, ok := e.env.byDevice[deviceID]
	e.env.mu.Unlock()
	return ok && cp.state == store.PreparationCompleted && mutation.On(mutation.RPCoreFirstConnectionOnly)
}

func nonTerminal(o string) bool {
	return o == proto.OutcomeReady || o == proto.OutcomeReceived || o == proto.OutcomeCompleted
}

// laxReceipts are the receipt-shape mutants: a runtime_prepare_result that breaks the one rule
// and no other is taken. keep: as sent (the machine records its code); otherwise repaired.
var laxReceipts = []struct {
	point mutation.Point
	keep  bool
	fix   func(r *proto.RuntimePrepareResultPayload) bool
}{
	{mutation.RPCoreExitCodeUnbounded, true, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := r.Outcome == proto.OutcomeFailed && (r.ExitCode < 0 || r.ExitCode > 255)
		r.ExitCode = 1
		return ok
	}},
	{mutation.RPCoreStrayOffsetIgnored, false, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := (r.Outcome == proto.OutcomeReady || r.Outcome == proto.OutcomeCompleted) && r.Offset != 0
		r.Offset = 0
		return ok
	}},
	{mutation.RPCoreStraySizeIgnored, false, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := (r.Outcome == proto.OutcomeReady || r.Outcome == proto.OutcomeReceived) && r.SizeBytes != 0
		r.SizeBytes = 0
		return ok
	}},
	{mutation.RPCoreStrayCodeIgnored, false, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := nonTerminal(r.Outcome) && r.ErrorCode != ""
		r.ErrorCode = ""
		return ok
	}},
	{mutation.RPCoreStrayExitCodeIgnored, false, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := r.Outcome != proto.OutcomeFailed && r.ExitCode != 0
		r.ExitCode = 0
		return ok
	}},
	{mutation.RPCoreTerminalOffsetIgnored, false, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := !nonTerminal(r.Outcome) && (r.Offset != 0 || r.SizeBytes != 0)
		r.Offset, r.SizeBytes = 0, 0
		return ok
	}},
	{mutation.RPCoreFailedCodeUnchecked, true, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := r.Outcome == proto.OutcomeFailed && r.ErrorCode != proto.CodeRuntimePreparationFailed
		r.ErrorCode = proto.CodeRuntimePreparationFailed
		return ok
	}},
	{mutation.RPCoreUnknownCodeUnchecked, true, func(r *proto.RuntimePrepareResultPayload) bool {
		ok := r.Outcome == proto.OutcomeUnknown && r.ErrorCode != proto.CodeRuntimePreparationUnconfirmed
		r.ErrorCode = proto.CodeRuntimePreparationUnconfirmed
		return ok
	}},
}

// awaited is the outcome Core awaits in each phase of a transfer.
var awaited = map[string]string{envprep.PhaseReady: proto.OutcomeReady, envprep.PhaseReceived: proto.OutcomeReceived,
	envprep.PhaseCompleted: proto.OutcomeCompleted}

// laxReceipt is the receipt a receipt-shape mutant takes from an invalid runtime_prepare_result
// that arrived in phase, or nil.
func laxReceipt(raw json.RawMessage, phase string) *proto.RuntimePrepareResultPayload {
	var loose proto.RuntimePrepareResultPayload
	if json.Unmarshal(raw, &loose) != nil {
		return nil
	}
	switch loose.Outcome {
	case proto.OutcomeReady, proto.OutcomeReceived, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeFailed, proto.OutcomeUnknown:
	default:
		taken := loose
		taken.Outcome = awaited[phase]
		if taken.Outcome != "" && taken.Validate() == nil && mutation.On(mutation.RPCoreUnknownOutcomeTaken) {
			return &taken
		}
	}
	for _, l := range laxReceipts {
		fixed := loose
		if !l.fix(&fixed) || fixed.Validate() != nil || !mutation.On(l.point) {
			continue
		}
		if l.keep {
			return &loose
		}
		return &fixed
	}
	return nil
}
