package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/input"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The active-input (IN) mutation points that need more than a changed condition. Every body is
// guarded by mutation.On, a constant false outside the wirecheck_mutants build: there they do
// nothing (mutation.Remember and Recall keep nothing either).

// Why a prompt_steer failed its strict decoding (steerDefect).
const (
	defectUndecodable = "undecodable" // the payload does not decode (a member of the wrong type)
	defectInputID     = "input_id"    // only the input_id is too long
	defectInput       = "input"       // only the input does not validate
	defectBlankID     = "blank-id"    // only the input_id is blank or absent
	defectDurableText = "durable"     // only durable_receipt is a string ("true" or "false")
)

// steerDefect tells why a prompt_steer with a Run ID failed its strict decoding, and returns the
// payload as it decoded when it did.
func steerDefect(env proto.Envelope) (string, *proto.PromptSteerPayload) {
	spec, ok := proto.Lookup(env.Type)
	if !ok || strings.TrimSpace(env.ID) == "" {
		return "", nil
	}
	v, err := spec.DecodePayload(env.Payload)
	if err != nil {
		if p := durableAsText(spec, env.Payload); p != nil {
			return defectDurableText, p
		}
		return defectUndecodable, nil
	}
	p, ok := v.(*proto.PromptSteerPayload)
	if !ok {
		return "", nil
	}
	inputOK := p.Input.Validate() == nil
	switch {
	case strings.TrimSpace(p.InputID) == "" && inputOK:
		return defectBlankID, p
	case strings.TrimSpace(p.InputID) == "":
		return "", nil
	case len(p.InputID) > proto.InputIDMaxBytes && inputOK:
		return defectInputID, p
	case len(p.InputID) <= proto.InputIDMaxBytes && !inputOK:
		return defectInput, p
	}
	return "", p
}

// looseSteer returns the payload of a prompt_steer the strict decoding refused when a validation
// mutant takes it anyway (IN-01.4, IN-01.5), or nil.
func looseSteer(env proto.Envelope) *proto.PromptSteerPayload {
	defect, p := steerDefect(env)
	switch {
	case defect == defectInputID && mutation.On(mutation.InIDOverLimitTaken):
		return p
	case defect == defectInput && mutation.On(mutation.InInvalidInputTaken):
		return p
	case defect == defectBlankID && mutation.On(mutation.InBlankInputIDTaken):
		return p
	case defect == defectDurableText && mutation.On(mutation.InDurableReceiptStringTaken):
		return p
	}
	return nil
}

// durableAsText decodes a prompt_steer payload whose only defect is a durable_receipt spelt as a
// string, reading the string as the boolean; nil otherwise.
func durableAsText(spec *proto.MessageSpec, payload json.RawMessage) *proto.PromptSteerPayload {
	var m map[string]json.RawMessage
	if json.Unmarshal(payload, &m) != nil {
		return nil
	}
	switch string(m["durable_receipt"]) {
	case `"true"`:
		m["durable_receipt"] = json.RawMessage("true")
	case `"false"`:
		m["durable_receipt"] = json.RawMessage("false")
	default:
		return nil
	}
	fixed, _ := json.Marshal(m)
	v, err := spec.DecodePayload(fixed)
	if err != nil || v.Validate() != nil {
		return nil
	}
	p, _ := v.(*proto.PromptSteerPayload)
	return p
}

// mutateRefusedSteer bends the invalid_input receipt of a prompt_steer that failed its decoding;
// it reports whether the prompt_steer is dropped instead.
func mutateRefusedSteer(env proto.Envelope, receipt *proto.PromptSteerAckPayload) (drop bool) {
	defect, _ := steerDefect(env)
	switch {
	case defect == defectUndecodable && mutation.On(mutation.InUndecodableDropped):
		return true
	case defect == defectInput && mutation.On(mutation.InInvalidInputRejected):
		receipt.ErrorCode = proto.CodeRejected
	}
	if len(receipt.InputID) > proto.InputIDMaxBytes && mutation.On(mutation.InIDOverLimitTruncated) {
		receipt.InputID = receipt.InputID[:proto.InputIDMaxBytes]
	}
	return false
}

// recordRefusedSteer records an input answered invalid_input as if it had been taken (IN-05.6).
func (r *router) recordRefusedSteer(env proto.Envelope, id string) {
	if !mutation.On(mutation.InInvalidInputRecorded) {
		return
	}
	r.mu.Lock()
	rn := r.runs[env.ID]
	r.mu.Unlock()
	if rn == nil {
		return
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(env.Payload, &members)
	sum := sha256.Sum256(members["input"])
	rn.inputs.mu.Lock()
	defer rn.inputs.mu.Unlock()
	m := &rn.inputs.m
	if m.Records == nil {
		m.Records = map[string]*input.Record{}
	}
	if m.Records[id] == nil {
		m.Records[id] = &input.Record{ID: id, Hash: hex.EncodeToString(sum[:]), Phase: input.Final,
			Receipt: &proto.PromptSteerAckPayload{InputID: id, ErrorCode: proto.CodeInvalidInput}}
		m.Order = append(m.Order, id)
	}
}

// finishedRun keys the mutation memory of a Run whose done went out (IN-06.1, IN-06.2).
type finishedRun struct {
	d  *Daemon
	id string
}

// rememberFinished notes that rn's done goes out; outside the mutants build it keeps nothing.
func (r *router) rememberFinished(rn *run) {
	mutation.Remember(finishedRun{r.d, rn.id}, []byte{1})
}

// doneOut reports whether the done of Run runID went out on this daemon (as far as the mutants
// build remembers; never outside it).
func (r *router) doneOut(runID string) bool {
	key := finishedRun{r.d, runID}
	if mutation.Recall(key) == nil {
		return false
	}
	mutation.Remember(key, []byte{1})
	return true
}

// doneOutNotReady reports whether a mutant answers not_ready for a Run whose done went out
// (IN-06.2), whether or not the Run has left the router's table yet.
func (r *router) doneOutNotReady(runID string) bool {
	return r.doneOut(runID) && mutation.On(mutation.InFinishedRunNotReady)
}

// inactiveCode is the code for a prompt_steer that names no active Run: run_inactive, unless a
// mutant answers otherwise.
func (r *router) inactiveCode(runID string, closing bool) string {
	if !closing && !r.doneOut(runID) && mutation.On(mutation.InUnknownRunNotReady) {
		return proto.CodeNotReady
	}
	return proto.CodeRunInactive
}

// notReadyCode is the code for a prompt_steer for a Run without its native Turn yet: not_ready,
// unless a mutant answers otherwise (IN-09.1 a prompt_request Run in setup, IN-09.2 a prepared
// Run starting).
func (r *router) notReadyCode(rn *run) string {
	r.mu.Lock()
	prepared := false
	for _, g := range r.records {
		if g.rec.RunID == rn.id {
			prepared = true
			break
		}
	}
	r.mu.Unlock()
	switch {
	case !prepared && mutation.On(mutation.InSetupRunInactive):
		return proto.CodeRunInactive
	case prepared && mutation.On(mutation.InStartingRunBusy):
		return proto.CodeBusy
	}
	return proto.CodeNotReady
}

// mutateReceiptEnvelope bends a prompt_steer_ack's envelope on its way out.
func mutateReceiptEnvelope(env proto.Envelope, receipt proto.PromptSteerAckPayload) proto.Envelope {
	if receipt.Accepted && mutation.On(mutation.InAcceptedUnderInputID) {
		env.ID = receipt.InputID
	}
	if receipt.Written && mutation.On(mutation.InWrittenOmitsAccepted) {
		env.Payload, _ = json.Marshal(map[string]any{"input_id": receipt.InputID, "written": true})
	}
	if receipt.Written && mutation.On(mutation.InWrittenAsString) {
		env.Payload, _ = json.Marshal(map[string]any{"input_id": receipt.InputID, "accepted": false, "written": "true"})
	}
	return env
}

// durable reports whether the recorded input id asked for durable receipts.
func (ri *runInputs) durable(id string) bool {
	ri.mu.Lock()
	defer ri.mu.Unlock()
	rec := ri.m.Records[id]
	return rec != nil && rec.Durable
}

// writtenBeforeWrite sends a durable input's written receipt as its native write starts (IN-03.1);
// it reports whether it did, so the machine's own written receipt is left out.
func (r *router) writtenBeforeWrite(rn *run, id string) bool {
	if !rn.inputs.durable(id) || !mutation.On(mutation.InWrittenBeforeWrite) {
		return false
	}
	r.steerAck(rn.id, proto.PromptSteerAckPayload{InputID: id, Written: true})
	return true
}

// writtenBeforeRejection sends a written receipt for a durable input the adapter rejected before
// writing it (IN-14.1).
func (r *router) writtenBeforeRejection(rn *run, id string) {
	if rn.inputs.durable(id) && mutation.On(mutation.InEarlyRejectionWritten) {
		r.steerAck(rn.id, proto.PromptSteerAckPayload{InputID: id, Written: true})
	}
}

// withoutWrittenAck drops the written receipt from a write's effects.
func withoutWrittenAck(effects []input.Effect) []input.Effect {
	var out []input.Effect
	for _, eff := range effects {
		if a, ok := eff.(input.Ack); ok && a.Receipt.Written {
			continue
		}
		out = append(out, eff)
	}
	return out
}

// mutatedWriteFailure reports whether a failed native write (neither not-ready, rejected nor
// unimplemented) is taken for a definite rejection: one that ran out its bound (IN-15.1) or one
// that broke (IN-15.2); a write the router's shutdown interrupted is neither.
func mutatedWriteFailure(timedOut, stopping bool) bool {
	switch {
	case timedOut:
		return mutation.On(mutation.InWriteTimeoutRejected)
	case !stopping:
		return mutation.On(mutation.InBrokenWriteRejected)
	}
	return false
}

// errVerdictTimedOut: the write bound ran out while the adapter's verdict was awaited (IN-17.3).
var errVerdictTimedOut = errors.New("the native write bound ran out before the adapter's verdict")

// awaitVerdict waits for the adapter's verdict on a written input; under IN-17.3's mutant the
// write's 10 s bound still runs.
func awaitVerdict(write context.Context, verdict <-chan error) error {
	if !mutation.On(mutation.InWriteBoundCoversAcceptance) {
		return <-verdict
	}
	select {
	case err := <-verdict:
		return err
	case <-write.Done():
		return errVerdictTimedOut
	}
}

// repeatWrittenAgain writes again an input whose repeat was answered in_flight during its write
// (IN-11.3).
func (r *router) repeatWrittenAgain(rn *run, id string, in proto.MessageInput, effects []input.Effect) {
	for _, eff := range effects {
		a, ok := eff.(input.Ack)
		if !ok || a.Receipt.ErrorCode != proto.CodeInFlight {
			continue
		}
		rn.inputs.mu.Lock()
		rec := rn.inputs.m.Records[id]
		writing := rec != nil && rec.Phase == input.Writing
		rn.inputs.mu.Unlock()
		if writing && mutation.On(mutation.InRepeatWrittenAgain) {
			r.goOwned(func() { r.writeAgain(rn, id, in) })
		}
	}
}

// writeAgain writes an input natively once more, outside the input machine, and receipts that
// write: written when it completes, accepted when the adapter confirms it.
func (r *router) writeAgain(rn *run, id string, in proto.MessageInput) {
	steerable, ok := rn.turn.(harness.Steerable)
	if !ok {
		return
	}
	ctx, cancel := clock.WithTimeout(r.ctx, r.d.cfg.Clock, proto.NativeWriteTimeout)
	verdict, err := steerable.WriteInput(ctx, id, in)
	cancel()
	if err != nil {
		return
	}
	r.steerAck(rn.id, proto.PromptSteerAckPayload{InputID: id, Written: true})
	select {
	case err := <-verdict:
		if err == nil {
			r.steerAck(rn.id, proto.PromptSteerAckPayload{InputID: id, Accepted: true})
		}
	case <-r.ctx.Done():
	}
}
