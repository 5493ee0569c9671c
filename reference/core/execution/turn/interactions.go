package turn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Interactions and functions (protocol-facts §4.8–§4.10, §4.12; rules IA-01 … IA-20, FN-01 …
// FN-14). A permission_request, prompt_for_user_choice or function_call of the Run is recorded
// as pending for a caller to answer (the API). Core sends one decision at a time per Run, each
// with a fresh delivery_id, and waits at most 15 s for the interaction_decision_ack routed by
// that delivery_id alone:
//   - the ack settles the interaction (applied, or refused with its code) and the next answered
//     interaction goes out;
//   - 15 s without an ack, a send that cannot be confirmed, or a receipt wait that ends leave
//     the decision unknown: it is never resent, not after a reconnect either;
//   - permission_cancel detaches the request: a later answer is refused, and a decision already
//     sent no longer holds the queue.
// A permission_request without request_id never reaches the machine: it does not decode, and
// the Run ID is never used as an interaction ID.

// Codes of an InteractionRefused.
const (
	RefusedUnknownInteraction = "interaction_unknown" // no such interaction on the Run
	RefusedNotPending         = "not_pending"         // answered already under another key, or withdrawn
	RefusedAnswerConflict     = "answer_conflict"     // the key was used for another answer
	RefusedResultImages       = "result_images"       // images in a function result, not declared (FN-14)
)

// InteractionRefused is an answer the Turn does not take; the state is unchanged.
type InteractionRefused struct {
	Code string
	Why  string
}

func (e *InteractionRefused) Error() string { return "answer refused (" + e.Code + "): " + e.Why }

// DecisionDeliveryID is the delivery ID of a Run's n-th decision: one resolve attempt each.
func DecisionDeliveryID(runID string, n int) string {
	return "decision:" + runID + ":" + strconv.Itoa(n)
}

// Interaction returns the interaction of an ID.
func (s *State) Interaction(id string) (store.Interaction, bool) {
	if i := s.interaction(id); i >= 0 {
		return s.Interactions[i], true
	}
	return store.Interaction{}, false
}

func (s *State) interaction(id string) int {
	for i, in := range s.Interactions {
		if in.ID == id {
			return i
		}
	}
	return -1
}

// withInteraction returns a copy of the interactions with Interactions[i] replaced: committed
// Records keep theirs.
func (s *State) withInteraction(i int, in store.Interaction) {
	ins := append([]store.Interaction(nil), s.Interactions...)
	ins[i] = in
	s.Interactions = ins
}

// decisionAwaited is the index of the interaction whose decision awaits its ack, or -1.
func (s *State) decisionAwaited() int {
	for i, in := range s.Interactions {
		if in.State == store.InteractionSent {
			return i
		}
	}
	return -1
}

// interactionArrived records a request of the Run for a caller to answer.
func interactionArrived(s *State, ev Event) ([]Effect, error) {
	r := ev.(InteractionRequest)
	if r.ID == "" && mutation.On(mutation.IARunIDAsInteractionID) {
		r.ID = s.Spec.RunID // the envelope's Run ID stands in for the missing request_id
	}
	if s.interaction(r.ID) >= 0 {
		return []Effect{note(r.Type + " " + r.ID + ": that interaction ID is known already; ignored")}, nil
	}
	if reason, why := s.unanswerable(r); reason != "" {
		if s.Phase == store.PhaseCancelling {
			return []Effect{note(r.Type + " " + r.ID + " while cancelling: " + why + "; the receipt decides")}, nil
		}
		var effects []Effect
		if r.Type == proto.TypePermissionRequest && reason == proto.ReasonInteractionNotSupported && mutation.On(mutation.PJUnsupportedPermissionDenied) {
			// Denied on the Run's behalf before the Turn fails.
			s.DecisionSeq++
			env, err := proto.NewEnvelope(proto.TypePermissionDecision, r.ID, &proto.PermissionDecisionPayload{
				DeliveryID: DecisionDeliveryID(s.Spec.RunID, s.DecisionSeq), Message: "permissions are not supported on this path"})
			if err == nil {
				effects = append(effects, Send{Envelope: env, BestEffort: true})
			}
		}
		return append(effects, s.fail(reason, r.Type+" "+r.ID+": "+why)), nil
	}
	in := store.Interaction{ID: r.ID, Kind: r.InteractionKind(), Request: r.Payload, State: store.InteractionPending}
	s.Interactions = append(append([]store.Interaction(nil), s.Interactions...), in)
	return []Effect{s.commit(), note(r.Type + " " + r.ID + " awaits an answer")}, nil
}

// unanswerable says why the Turn's execution path cannot answer a request (protocol-facts §6.2):
// a permission or user-choice request on a Turn admitted without permissions is
// interaction_not_supported, a function_call on one admitted without function_tools
// function_call_invalid. The Run would wait for an answer Core can never send, so the Turn ends.
func (s *State) unanswerable(r InteractionRequest) (reason, why string) {
	switch r.InteractionKind() {
	case store.InteractionFunction:
		if !s.declared("function_tools") && !mutation.On(mutation.UndeclaredFunctionCallWaits) {
			return proto.ReasonFunctionCallInvalid, "the Turn was admitted without function_tools"
		}
	default:
		waits := mutation.UnsupportedInteractionWaits
		if r.Type == proto.TypePromptForUserChoice {
			waits = mutation.PJUserChoiceWaits
		}
		if !s.declared("permissions") && !mutation.On(waits) {
			return proto.ReasonInteractionNotSupported, "the Turn was admitted without permissions"
		}
	}
	return "", ""
}

// permissionCancelled detaches a permission request the Runtime withdrew: it takes no answer any
// more, and a decision sent for it no longer holds the queue (its ack, if one comes, is dropped).
func permissionCancelled(s *State, ev Event) ([]Effect, error) {
	id := ev.(PermissionCancel).RequestID
	i := s.interaction(id)
	if i < 0 || s.Interactions[i].Kind != store.InteractionPermission {
		return []Effect{note("permission_cancel " + id + ": no such permission request; ignored")}, nil
	}
	in := s.Interactions[i]
	if in.State == store.InteractionSent && mutation.On(mutation.PermissionCancelIgnored) {
		return []Effect{note("permission_cancel " + id)}, nil
	}
	var effects []Effect
	switch in.State {
	case store.InteractionPending, store.InteractionAnswered:
	case store.InteractionSent:
		effects = append(s.disarm(TimerDecisionAck), Close{Stream: StreamDecision})
	default:
		return []Effect{note("permission_cancel " + id + " after its decision settled (" + in.State + "); ignored")}, nil
	}
	in.State = store.InteractionDetached
	s.withInteraction(i, in)
	effects = append(effects, s.commit(), note("permission request "+id+" withdrawn by the Runtime: detached"))
	return append(effects, s.nextDecision()...), nil
}

// answered takes a caller's answer under its idempotency key: the same key with the same answer
// is the same answer (nothing happens); anything else on an answered or withdrawn interaction is
// refused.
func answered(s *State, ev Event) ([]Effect, error) {
	a := ev.(Answer)
	i := s.interaction(a.ID)
	if i < 0 {
		return nil, &InteractionRefused{Code: RefusedUnknownInteraction, Why: "the Run has no interaction " + strconv.Quote(a.ID)}
	}
	in := s.Interactions[i]
	if in.Key != "" {
		if in.Key != a.Key {
			return nil, &InteractionRefused{Code: RefusedNotPending, Why: "interaction " + a.ID + " was answered under another key"}
		}
		if !bytes.Equal(in.Answer, a.Answer) {
			return nil, &InteractionRefused{Code: RefusedAnswerConflict, Why: "key " + strconv.Quote(a.Key) + " was used for another answer to " + a.ID}
		}
		return nil, nil
	}
	if in.State != store.InteractionPending && !(in.State == store.InteractionDetached && mutation.On(mutation.IADetachedStillAnswered)) {
		return nil, &InteractionRefused{Code: RefusedNotPending, Why: "interaction " + a.ID + " is " + in.State}
	}
	if in.Kind == store.InteractionFunction && hasImage(a.Answer) && !s.declared("function_result_images") && !mutation.On(mutation.ResultImagesUngated) {
		return nil, &InteractionRefused{Code: RefusedResultImages, Why: "the Turn was admitted without function_result_images: a function result carries no image"}
	}
	in.State, in.Key, in.Answer = store.InteractionAnswered, a.Key, a.Answer
	s.withInteraction(i, in)
	effects := []Effect{s.commit(), note("interaction " + a.ID + " answered under key " + strconv.Quote(a.Key))}
	return append(effects, s.nextDecision()...), nil
}

// nextDecision sends the first answered interaction when no decision awaits its ack.
func (s *State) nextDecision() []Effect {
	if s.decisionAwaited() >= 0 {
		return nil
	}
	for i, in := range s.Interactions {
		if in.State == store.InteractionAnswered {
			return s.sendDecision(i)
		}
	}
	return nil
}

// sendDecision sends Interactions[i]'s answer with a fresh delivery ID; the receipt waiter and
// the 15 s bound exist before the frame is queued.
func (s *State) sendDecision(i int) []Effect {
	in := s.Interactions[i]
	if !mutation.On(mutation.IADeliveryIDReused) {
		s.DecisionSeq++
	}
	in.State, in.DeliveryID = store.InteractionSent, DecisionDeliveryID(s.Spec.RunID, s.DecisionSeq)
	s.withInteraction(i, in)
	env, err := decisionEnvelope(s.Spec.RunID, in)
	if err != nil {
		return s.decisionUnknown(i, "encode_failed", "the decision for "+in.ID+" could not be encoded: "+err.Error())
	}
	effects := []Effect{s.commit(), note(fmt.Sprintf("%s for %s sent with delivery_id %s", env.Type, in.ID, in.DeliveryID)),
		Subscribe{Stream: StreamDecision, ID: in.DeliveryID}}
	if !mutation.On(mutation.DecisionAckUnbounded) {
		bound := proto.InteractionAckTimeout
		if mutation.On(mutation.IAAckWaitEarly) || (in.Kind == store.InteractionFunction && mutation.On(mutation.PJResultAckBoundHalved)) {
			bound /= 2
		}
		effects = append(effects, s.arm(TimerDecisionAck, bound))
	}
	return append(effects, Send{Envelope: env, Reported: true})
}

// decisionEnvelope builds the frame of an answer: the caller's answer with Core's delivery_id
// (and, for a function, the call_id; its id is the Run ID).
func decisionEnvelope(runID string, in store.Interaction) (proto.Envelope, error) {
	switch in.Kind {
	case store.InteractionPermission:
		var p proto.PermissionDecisionPayload
		if err := json.Unmarshal(in.Answer, &p); err != nil {
			return proto.Envelope{}, err
		}
		if !mutation.On(mutation.IADecisionBlankDeliveryID) {
			p.DeliveryID = in.DeliveryID
		}
		if mutation.On(mutation.UpdatedInputDropped) {
			p.UpdatedInput = nil
		}
		return bentPermissionDecision(runID, in.ID, &p)
	case store.InteractionUserChoice:
		var p proto.PromptForUserChoiceDecisionPayload
		if err := json.Unmarshal(in.Answer, &p); err != nil {
			return proto.Envelope{}, err
		}
		if !mutation.On(mutation.IAChoiceBlankDeliveryID) {
			p.DeliveryID = in.DeliveryID
		}
		return bentChoiceDecision(runID, in, &p)
	default:
		var p proto.FunctionResultPayload
		if err := json.Unmarshal(in.Answer, &p); err != nil {
			if raw, ok := uncheckedResult(in); ok {
				return proto.Envelope{Type: proto.TypeFunctionResult, ID: runID, Payload: raw}, nil
			}
			return proto.Envelope{}, err
		}
		p.DeliveryID, p.CallID = in.DeliveryID, in.ID
		id := runID
		if mutation.On(mutation.FunctionResultByCallID) {
			id = in.ID
		}
		return functionResultEnvelope(id, &p)
	}
}

// decisionAck settles the decision whose delivery_id the ack names; any other ack is dropped.
func decisionAck(s *State, ev Event) ([]Effect, error) {
	ack := ev.(DecisionAck).Ack
	i := s.decisionAwaited()
	if i < 0 || s.Interactions[i].DeliveryID != ack.DeliveryID && !mutation.On(mutation.AckRoutedByInteraction) {
		return []Effect{note("dropping an interaction_decision_ack for delivery " + ack.DeliveryID + ": no decision awaits it")}, nil
	}
	in := s.Interactions[i]
	if ack.Applied {
		in.State, in.Code = store.InteractionApplied, ""
	} else {
		in.State, in.Code = store.InteractionRefused, ack.ErrorCode
	}
	s.withInteraction(i, in)
	effects := append(s.disarm(TimerDecisionAck), Close{Stream: StreamDecision}, s.commit(),
		note(strings.TrimSpace("the decision for "+in.ID+" was "+in.State+" "+in.Code)))
	return append(effects, s.nextDecision()...), nil
}

// decisionUnknown: no ack can be expected for Interactions[i]'s decision any more. It is never
// resent; the next answered interaction goes out.
func (s *State) decisionUnknown(i int, code, why string) []Effect {
	in := s.Interactions[i]
	in.State, in.Code = store.InteractionUnknown, code
	s.withInteraction(i, in)
	effects := append(s.disarm(TimerDecisionAck), Close{Stream: StreamDecision}, s.commit(), note(why))
	if in.Kind == store.InteractionFunction && s.Phase != store.PhaseCancelling && !mutation.On(mutation.UnconfirmedResultGoesOn) {
		// The Run waits on this result, and whether it took it is unknown (protocol-facts §6.2).
		return append(effects, s.fail(proto.ReasonFunctionResultUnconfirmed, why))
	}
	if mutation.On(mutation.DecisionResentOnTimeout) && code == CodeAckTimeout {
		in.State = store.InteractionAnswered
		s.withInteraction(i, in)
		return append(effects, s.sendDecision(i)...)
	}
	return append(effects, s.nextDecision()...)
}

// Codes an unknown decision records.
const (
	CodeAckTimeout     = "ack_timeout"
	CodeSendUnknown    = "send_unconfirmed"
	CodeAckUnavailable = "ack_unavailable"
)

func decisionTimedOut(s *State, _ Event) ([]Effect, error) {
	i := s.decisionAwaited()
	if i < 0 {
		return []Effect{note("the decision-ack bound fired with no decision awaiting its ack")}, nil
	}
	return s.decisionUnknown(i, CodeAckTimeout, "no interaction_decision_ack for "+s.Interactions[i].ID+" within "+
		proto.InteractionAckTimeout.String()+": its outcome is unknown, and it is not resent"), nil
}

// decisionUndelivered: the decision could not be confirmed as queued; it may have gone out.
func decisionUndelivered(s *State, ev Event) ([]Effect, error) {
	f := ev.(SendFailed)
	i := s.decisionAwaited()
	if i < 0 {
		return []Effect{note(f.Type + " could not be confirmed as sent: " + f.Err.Error())}, nil
	}
	return s.decisionUnknown(i, CodeSendUnknown, f.Type+" for "+s.Interactions[i].ID+" could not be confirmed as sent: "+f.Err.Error()), nil
}

// decisionWaitClosed: the ack can no longer arrive (the connection went).
func decisionWaitClosed(s *State, ev Event) ([]Effect, error) {
	err := ev.(DecisionWaitClosed).Err
	i := s.decisionAwaited()
	if err == nil || i < 0 {
		return nil, nil
	}
	return s.decisionUnknown(i, CodeAckUnavailable, "the ack for "+s.Interactions[i].ID+" can no longer arrive: "+err.Error()), nil
}

// decisionUnsubscribed: the receipt waiter could not be made, so the decision was not sent (the
// step that would have sent it did not stand). The answer stays answered but cannot go out on
// this connection: it is refused locally, nothing is invented.
func decisionUnsubscribed(s *State, ev Event) ([]Effect, error) {
	f := ev.(SubscribeFailed)
	s.failedAt(f.Committed)
	for i, in := range s.Interactions {
		if in.State == store.InteractionAnswered {
			in.State, in.Code = store.InteractionRefused, CodeAckUnavailable
			s.withInteraction(i, in)
			return []Effect{s.commit(), note("the decision for " + in.ID + " was not sent: no receipt waiter: " + f.Err.Error())}, nil
		}
	}
	return nil, nil
}

// unsettledInteractions marks a decision still awaiting its ack as unknown when the Turn ends.
func (s *State) unsettledInteractions() bool {
	i := s.decisionAwaited()
	if i < 0 {
		return false
	}
	in := s.Interactions[i]
	in.State, in.Code = store.InteractionUnknown, CodeAckUnavailable
	s.withInteraction(i, in)
	return true
}

// hasImage reports whether a function result's content has an image part.
func hasImage(answer json.RawMessage) bool {
	var p struct {
		Content []proto.InputContent `json:"content"`
	}
	if json.Unmarshal(answer, &p) != nil {
		return false
	}
	for _, c := range p.Content {
		if c.Type == proto.ContentInputImage {
			return true
		}
	}
	return false
}

// declared reports whether the Turn was admitted with a capability.
func (s *State) declared(name string) bool {
	if s.Admitted == nil {
		return false
	}
	v, ok := s.Admitted.Get(name)
	return ok && v.Supported()
}
