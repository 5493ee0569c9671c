package daemon

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/interact"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// interactions is the connection's interactions machine (package interact) under its own lock,
// with the Run that emitted each pending interaction.
type interactions struct {
	m    *interact.Machine
	runs map[interact.Key]*run
}

func newInteractions() *interactions {
	return &interactions{m: interact.New(), runs: map[interact.Key]*run{}}
}

// interactionEmitted records an interaction a Run's Turn is about to send; it returns the envelope
// to send (permission_cancel goes under the request ID, without a body).
func (r *router) interactionEmitted(rn *run, ev harness.Event) (proto.Envelope, bool) {
	r.iaMu.Lock()
	defer r.iaMu.Unlock()
	switch p := ev.Payload.(type) {
	case *proto.PermissionRequestPayload:
		k := interact.Key{Family: harness.Permission, ID: p.RequestID}
		r.ia.m.Emitted(k, rn.id, nil)
		r.ia.runs[k] = rn
		r.noteEmitted(k, nil)
		return bentRequest(rn.id, p)
	case *proto.PromptForUserChoicePayload:
		k := interact.Key{Family: harness.UserChoice, ID: p.AskID}
		ids := make([]string, 0, len(p.Questions))
		for _, q := range p.Questions {
			ids = append(ids, q.ID)
		}
		r.ia.m.Emitted(k, rn.id, ids)
		r.ia.runs[k] = rn
		r.noteEmitted(k, p)
		return bentPrompt(rn.id, p)
	case *proto.FunctionCallPayload:
		k := interact.FunctionKey(rn.id, p.CallID)
		r.ia.m.Emitted(k, rn.id, nil)
		r.ia.runs[k] = rn
		return mutateFunctionCall(rn.id, p)
	case harness.Withdrawal:
		k := interact.Key{Family: harness.Permission, ID: p.RequestID}
		r.ia.m.Withdrawn(k)
		if mutation.On(mutation.IAWithdrawnAsConflict) {
			r.ia.m.Replace(k, "withdrawn", r.d.cfg.Clock.Now()) // the withdrawal remembered as an answer
		}
		return bentCancel(rn.id, proto.Envelope{Type: proto.TypePermissionCancel, ID: p.RequestID}), true
	}
	return proto.Envelope{}, false
}

// interactionsEnded: the Run's Turn settled; none of its interactions awaits an answer any more.
func (r *router) interactionsEnded(rn *run) {
	r.iaMu.Lock()
	defer r.iaMu.Unlock()
	if r.leftPending(rn) && mutation.On(mutation.IAEndedRunStillPending) {
		return // the finished Turn's requests stay pending, routed to it
	}
	kept := r.keptCalls(rn)
	r.ia.m.RunEnded(rn.id)
	for k, owner := range r.ia.runs {
		if owner == rn && mutation.On(mutation.IAMemoryClearedAtRunEnd) {
			r.ia.m.Forget(k)
		}
		if owner == rn && !kept[k] {
			delete(r.ia.runs, k)
		}
	}
	for k := range kept {
		r.ia.m.Emitted(k, rn.id, nil)
	}
}

// permissionDecision answers one permission_decision (protocol-facts §4.8).
func (r *router) permissionDecision(env proto.Envelope) {
	p, err := proto.Decode[proto.PermissionDecisionPayload](env)
	raw := env.Payload
	if err != nil {
		if loose, fixed := loosePermission(env); loose != nil {
			p, raw, err = loose, fixed, nil
		}
	}
	if err != nil {
		r.refuseAnswer(env, proto.CodeContractViolation, err)
		return
	}
	k := r.decisionByRunID(interact.Key{Family: harness.Permission, ID: env.ID})
	if p.UpdatedInput != nil && mutation.On(mutation.IAUpdatedInputDropped) {
		q := *p
		q.UpdatedInput = nil
		p = &q
	}
	r.answer(env.ID, p.DeliveryID, interact.Answer{Key: k, Fingerprint: answerFingerprint(raw)},
		func(caps proto.AgentKindCapabilities) (bool, string) { return caps.Permissions.Supported(), "" }, p)
}

// userChoiceDecision answers one prompt_for_user_choice_decision (§4.9): strict decoding, then the
// answered IDs are checked against the emitted questions before the interaction is consumed.
func (r *router) userChoiceDecision(env proto.Envelope) {
	p, err := proto.Decode[proto.PromptForUserChoiceDecisionPayload](env)
	raw := env.Payload
	if err != nil {
		if loose, fixed := looseChoice(env); loose != nil {
			p, raw, err = loose, fixed, nil
		}
	}
	if err != nil {
		r.refuseAnswer(env, proto.CodeContractViolation, err)
		return
	}
	a := interact.Answer{Key: r.decisionByRunID(interact.Key{Family: harness.UserChoice, ID: env.ID}), Fingerprint: answerFingerprint(raw)}
	p = r.bentChoice(a.Key, p)
	if !mutation.On(mutation.ForeignQuestionAccepted) {
		for _, qa := range p.QuestionAnswers {
			a.Answered = append(a.Answered, qa.QuestionID)
		}
	}
	p = r.nativeChoice(a.Key, p)
	r.answer(env.ID, p.DeliveryID, a, func(caps proto.AgentKindCapabilities) (bool, string) { return caps.Permissions.Supported(), "" }, p)
}

// functionResult answers one function_result (§4.12); its ack goes under the Run ID.
func (r *router) functionResult(env proto.Envelope) {
	p, err := proto.Decode[proto.FunctionResultPayload](env)
	p, err = laxFunctionResult(env, p, err)
	if err != nil {
		if !r.refusedResultMutants(env) {
			r.refuseAnswer(env, proto.CodeInvalidResult, err)
		}
		return
	}
	if r.unknownCallRefused(env, p) {
		return
	}
	a := interact.Answer{Key: interact.FunctionKey(r.resultRun(env.ID, p.CallID), p.CallID), Fingerprint: answerFingerprint(env.Payload)}
	r.answer(resultAckID(env.ID, p), p.DeliveryID, a, func(caps proto.AgentKindCapabilities) (bool, string) {
		declared := caps.FunctionTools.Supported() || mutation.On(mutation.FNUndeclaredServed)
		if !caps.FunctionResultImages.Supported() && hasImage(p.Content) && !mutation.On(mutation.ResultImagesUngated) {
			return declared, "content carries an image and function_result_images is not declared"
		}
		if caps.FunctionResultImages.Supported() && hasImage(p.Content) && mutation.On(mutation.FNDeclaredImagesRefused) {
			return declared, "content carries an image"
		}
		return declared, ""
	}, p)
}

func hasImage(content []proto.InputContent) bool {
	for _, c := range content {
		if c.Type == proto.ContentInputImage {
			return true
		}
	}
	return false
}

// refuseAnswer acknowledges an answer that did not decode, when it names where the ack goes;
// without an id or a delivery_id it is dropped with an error and gets no ack (IA-05, FN-07).
func (r *router) refuseAnswer(env proto.Envelope, code string, err error) {
	delivery := rawString(env.Payload, "delivery_id")
	if code == proto.CodeContractViolation && env.Type == proto.TypePromptForUserChoiceDecision && mutation.On(mutation.IAChoiceRefusalOwnCode) {
		code = "invalid_decision"
	}
	if env.ID == "" || delivery == "" || (env.Type == proto.TypeFunctionResult && rawString(env.Payload, "call_id") == "") {
		if r.unaddressedAnswer(env, delivery) {
			return
		}
		if !mutation.On(mutation.UnaddressedAnswerAcked) {
			r.d.log.Warn("dropping an answer that names no interaction or no delivery", "type", env.Type, "err", err)
			return
		}
		delivery = "unknown"
	}
	r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: delivery, ErrorCode: code, Error: err.Error()})
}

// answer decides one decoded answer, applies it natively when the machine says so, and sends its
// ack. declared reads the capabilities of the Run the answer is for (it may also mark the content
// invalid); an answer for no pending interaction reads the connection's declarations.
func (r *router) answer(ackID, delivery string, a interact.Answer, declared func(proto.AgentKindCapabilities) (bool, string), payload any) {
	r.iaMu.Lock()
	a.Now = r.d.cfg.Clock.Now()
	if mutation.On(mutation.DecisionMemoryNeverExpires) {
		a.Now = time.Time{} // every entry is as old as every other: none passes 1 h
	}
	rn := r.ia.runs[a.Key]
	if rn != nil {
		a.Declared, a.InvalidResult = declared(rn.exec.caps)
	} else {
		for _, h := range r.d.harnesses {
			ok, invalid := declared(h.Capabilities())
			a.Declared = a.Declared || ok
			a.InvalidResult = cmp.Or(a.InvalidResult, invalid)
		}
	}
	mutateAnswer(r.ia.m, &a)
	mutateFunctionAnswer(r.ia.m, a)
	v := r.functionVerdict(rn, a, payload, r.decide(a))
	receipt := v.Ack
	if r.appliedBeforeNative(rn, a, v, ackID, delivery) {
		r.resolveNative(rn, a.Key, payload)
		r.iaMu.Unlock()
		return
	}
	if v.Apply {
		o := mutateFunctionOutcome(a.Key, mutateOutcome(r.resolveNative(rn, a.Key, payload)))
		o = mutateOutcomeIA(a.Key.Family, o)
		receipt = r.ia.m.Settled(a, o)
		mutateSettled(r.ia.m, a, o)
		mutateSettledIA(r.ia.m, a, o, &receipt)
		receipt = mutateFunctionSettled(r.ia.m, a, o, receipt)
	} else if v.Ack.Applied && rn != nil && mutation.On(mutation.IAReplayReachesNative) {
		r.resolveNative(rn, a.Key, payload) // the replay goes to the native side again; its answer is not read
	}
	r.iaMu.Unlock()
	receipt.DeliveryID = delivery
	r.ack(mutateAckID(rn, a, ackID, &receipt), &receipt)
}

// resolveNative hands the answer to the native Turn and classifies how it was taken.
func (r *router) resolveNative(rn *run, k interact.Key, payload any) interact.Outcome {
	turn, ok := rn.turn.(harness.Interactive)
	if !ok {
		return interact.Unimplemented
	}
	id := k.ID
	if k.Family == harness.Function {
		id = id[strings.IndexByte(id, 0)+1:]
	}
	switch err := turn.Resolve(k.Family, id, payload); {
	case err == nil:
		return interact.Applied
	case errors.Is(err, harness.ErrInteractionNotReady):
		return interact.NotReady
	case errors.Is(err, harness.ErrInteractionUnknown):
		return interact.Unknown
	case errors.Is(err, harness.ErrInteractionUnimplemented):
		return interact.Unimplemented
	default:
		r.d.log.Warn("the native side failed to apply an answer", "run", rn.id, "err", err)
		return interact.Failed
	}
}

// answerFingerprint identifies an answer's content: canonical JSON of the payload without delivery_id.
func answerFingerprint(payload json.RawMessage) string {
	var members map[string]any
	if json.Unmarshal(payload, &members) != nil {
		return ""
	}
	if !mutation.On(mutation.FingerprintWithDelivery) {
		delete(members, "delivery_id")
	}
	canon, _ := json.Marshal(members) // map keys sorted at every depth
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// rawString reads a non-blank string member of a payload that may not decode.
func rawString(payload json.RawMessage, name string) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(payload, &members) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(members[name], &s) != nil || strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}
