package turn

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The active-input (IN) mutation points of Core that need more than a changed condition. Every
// body is guarded by mutation.On, a constant false outside the wirecheck_mutants build.

// steerEnvelope is the prompt_steer of input in; first: this is its first delivery.
func steerEnvelope(runID string, in store.Input, first bool) (proto.Envelope, error) {
	p := &proto.PromptSteerPayload{InputID: in.ID, Input: in.Input, DurableReceipt: !mutation.On(mutation.DurableReceiptOmitted)}
	if !first && mutation.On(mutation.InResendWithoutInputID) {
		p.InputID = "" // the resend is built from the stored input without its ID
	}
	if mutation.On(mutation.InSteerUnderInputID) {
		runID = in.ID
	}
	env, err := proto.NewEnvelope(proto.TypePromptSteer, runID, p)
	if err != nil || !mutation.On(mutation.InDurableReceiptString) {
		return env, err
	}
	var members map[string]any
	if err := json.Unmarshal(env.Payload, &members); err != nil {
		return env, err
	}
	members["durable_receipt"] = "true"
	env.Payload, err = json.Marshal(members)
	return env, err
}

// lastFirst puts the input queued last in place of Inputs[i] when that one was never sent, so it
// goes out first (IN-20.3).
func (s *State) lastFirst(i int) {
	last := len(s.Inputs) - 1
	if i >= last || s.Inputs[i].Sends > 0 || s.Inputs[last].State != store.InputPending || !mutation.On(mutation.InInputsLastFirst) {
		return
	}
	ins := append([]store.Input(nil), s.Inputs...)
	ins[i], ins[last] = ins[last], ins[i]
	s.Inputs = ins
}

// resendGivenUp sends once more an input the 30 s bound gave up (IN-21.4).
func (s *State) resendGivenUp(i int) []Effect {
	if !mutation.On(mutation.InUnknownInputResent) {
		return nil
	}
	env, err := steerEnvelope(s.Spec.RunID, s.Inputs[i], false)
	if err != nil {
		return nil
	}
	return []Effect{note("input " + s.Inputs[i].ID + " sent once more before it is given up"), Send{Envelope: env, BestEffort: true}}
}

// skipInput leaves Inputs[i] in state (with code) and moves the cursor past it to the next input,
// without failing the Turn (the mutants that drop an input).
func (s *State) skipInput(i int, state, code string) []Effect {
	in := s.Inputs[i]
	in.State, in.Code = state, code
	s.withInput(i, in)
	s.InputCursor = i + 1
	effects := append(s.disarm(TimerInputWritten), s.commit(), note("input "+in.ID+" skipped ("+state+"): the cursor moves to "+fmt.Sprint(s.InputCursor)))
	return append(effects, s.deliverNext()...)
}

// mutatedSteerCode is how a mutant handles a receipt's error code, if one does (IN-23).
func (s *State) mutatedSteerCode(i int, code string) ([]Effect, bool) {
	if code == "" {
		return nil, false
	}
	sent := s.Inputs[i].State == store.InputSent
	switch {
	case code == proto.CodeBusy && sent && mutation.On(mutation.InBusyFinal):
		return s.inputFailed(i, code), true
	case code == proto.CodeRejected && sent && mutation.On(mutation.InRejectedResent):
		return s.inputRetry(i, code), true
	case code == proto.CodeInputConflict && mutation.On(mutation.InConflictAsRejected):
		return s.inputFailed(i, proto.CodeRejected), true
	case code == proto.CodeOutcomeUnknown && sent && mutation.On(mutation.InUnknownCodeResent):
		return s.inputRetry(i, code), true
	case code == proto.CodeUnsupported && sent && mutation.On(mutation.InUnsupportedResent):
		return s.inputRetry(i, code), true
	case code == proto.CodeContractViolation && mutation.On(mutation.InContractViolationIgnored):
		return []Effect{note("input " + s.Inputs[i].ID + ": contract_violation, keep waiting")}, true
	case code == proto.CodeRunInactive && mutation.On(mutation.InRunInactiveIgnored):
		return []Effect{note("input " + s.Inputs[i].ID + ": run_inactive, the Run's done decides")}, true
	case code == proto.CodeInvalidInput && mutation.On(mutation.InInvalidInputAsRejected):
		return s.inputFailed(i, proto.CodeRejected), true
	case code == proto.CodeInputLimit && mutation.On(mutation.InLimitCodeSkipsInput):
		return s.skipInput(i, store.InputFailed, code), true
	}
	return nil, false
}

// looseSteerAck takes a prompt_steer_ack the validator refused when a mutant reads it anyway
// (IN-02.3 … IN-02.6): each mutant takes only receipts whose one defect is its clause's.
func looseSteerAck(typ string, raw json.RawMessage, invalid error) (Event, bool) {
	if typ != proto.TypePromptSteerAck || invalid == nil {
		return nil, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil, false
	}
	// valid reports whether the receipt validates once changed by fix, and returns it.
	valid := func(fix func(map[string]json.RawMessage)) (*proto.PromptSteerAckPayload, bool) {
		m := map[string]json.RawMessage{}
		for k, v := range members {
			m[k] = v
		}
		fix(m)
		fixed, err := json.Marshal(m)
		if err != nil {
			return nil, false
		}
		spec, _ := proto.Lookup(proto.TypePromptSteerAck)
		v, err := spec.DecodePayload(fixed)
		if err != nil || v.Validate() != nil {
			return nil, false
		}
		return v.(*proto.PromptSteerAckPayload), true
	}
	if _, has := members["accepted"]; !has {
		if ack, ok := valid(func(m map[string]json.RawMessage) { m["accepted"] = json.RawMessage("false") }); ok &&
			mutation.On(mutation.InAckWithoutAcceptedTaken) {
			return SteerAck{Ack: ack}, true
		}
	}
	if strings.TrimSpace(string(members["written"])) == `"true"` {
		if ack, ok := valid(func(m map[string]json.RawMessage) { m["written"] = json.RawMessage("true") }); ok &&
			mutation.On(mutation.InAckWrittenStringTaken) {
			return SteerAck{Ack: ack}, true
		}
	}
	var code string
	if json.Unmarshal(members["error_code"], &code) == nil && code != "" && !proto.KnownSteerCode(code) {
		if ack, ok := valid(func(m map[string]json.RawMessage) { m["error_code"] = json.RawMessage(`"` + proto.CodeNotReady + `"`) }); ok &&
			mutation.On(mutation.InAckUnlistedCodeRetried) {
			return SteerAck{Ack: ack}, true
		}
	}
	if _, has := members["error_code"]; !has {
		if ack, ok := valid(func(m map[string]json.RawMessage) { m["error_code"] = json.RawMessage(`"` + proto.CodeNotReady + `"`) }); ok &&
			mutation.On(mutation.InAckNeitherPhaseRetried) {
			return SteerAck{Ack: ack}, true
		}
	}
	return nil, false
}
