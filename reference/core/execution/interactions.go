package execution

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Errors of Answer.
var (
	// ErrNoInteraction: the Turn has no interaction of that ID.
	ErrNoInteraction = errors.New("no such interaction")
	// ErrNotPending: the interaction was answered under another key, or withdrawn by the Runtime.
	ErrNotPending = errors.New("the interaction is not pending")
	// ErrAnswerConflict: the key was used for another answer.
	ErrAnswerConflict = errors.New("the key was used for another answer")
	// ErrResultImagesUnsupported: a function result with images for a Runtime that did not
	// declare function_result_images.
	ErrResultImagesUnsupported = errors.New("the Runtime did not declare function_result_images")
)

// answerRequest is Answer's call to the runner.
type answerRequest = call[turn.Answer, store.Interaction]

// placeholderDelivery stands in for the delivery ID Core draws when it sends the decision, so the
// caller's answer validates as the frame it becomes.
const placeholderDelivery = "validation"

// Answer answers one of a running Turn's interactions under the caller's idempotency key: the
// decision of a permission request or user-choice prompt, or a function's result. answer is the
// decision's payload without delivery_id (Core draws a fresh one when it sends it) and, for a
// function, without call_id. A repeated key with the same answer returns the interaction as
// recorded, never a second decision.
func (e *Engine) Answer(turnID, interactionID, key string, answer json.RawMessage) (store.Interaction, error) {
	if strings.TrimSpace(key) == "" || len(key) > MaxInputKeyBytes {
		return store.Interaction{}, fmt.Errorf("%w: the key must be non-blank and at most %d bytes", ErrInvalid, MaxInputKeyBytes)
	}
	r, err := e.runner(turnID)
	if err != nil {
		return store.Interaction{}, err
	}
	return ask(r, turnID, r.answerReq, turn.Answer{ID: interactionID, Key: key, Answer: answer})
}

// onAnswer validates an answer against the request it answers, steps it and replies.
func (r *runner) onAnswer(req answerRequest) {
	in, ok := r.state.Interaction(req.ev.ID)
	if !ok {
		req.reply <- result[store.Interaction]{err: fmt.Errorf("interaction %s: %w", req.ev.ID, ErrNoInteraction)}
		return
	}
	canon, err := validAnswer(in, req.ev.Answer)
	if err != nil {
		req.reply <- result[store.Interaction]{err: fmt.Errorf("%w: answer to %s %s: %v", ErrInvalid, in.Kind, in.ID, err)}
		return
	}
	req.ev.Answer = canon
	err = r.feed(req.ev)
	var refused *turn.InteractionRefused
	var invalid *turn.InvalidTransition
	switch {
	case errors.As(err, &refused):
		err = fmt.Errorf("%w: %s", answerRefusal(refused.Code), refused.Why)
	case errors.As(err, &invalid):
		err = fmt.Errorf("%w (phase %s)", ErrNotRunning, invalid.Phase)
	case err != nil:
		r.log.Error("the Turn refused an answer", "error", err)
	}
	r.settle() // the caller hears what is durable
	in, _ = r.state.Interaction(req.ev.ID)
	req.reply <- result[store.Interaction]{val: in, err: err}
}

// validAnswer decodes an answer strictly as the frame it becomes (with a placeholder delivery_id)
// and validates it, and a user choice against the questions the request emitted (IA-16, IA-17,
// IA-18). It returns the answer re-encoded without delivery_id (and call_id): the canonical
// form keys compare.
func validAnswer(in store.Interaction, answer json.RawMessage) (json.RawMessage, error) {
	var p interface{ Validate() error }
	switch in.Kind {
	case store.InteractionPermission:
		p = &proto.PermissionDecisionPayload{}
	case store.InteractionUserChoice:
		p = &proto.PromptForUserChoiceDecisionPayload{}
	default:
		p = &proto.FunctionResultPayload{}
	}
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		if raw, ok := partsUnchecked(in, answer); ok {
			return raw, nil
		}
		return nil, err
	}
	switch v := p.(type) {
	case *proto.PermissionDecisionPayload:
		v.DeliveryID = placeholderDelivery
	case *proto.PromptForUserChoiceDecisionPayload:
		v.DeliveryID = placeholderDelivery
		var q proto.PromptForUserChoicePayload
		if err := json.Unmarshal(in.Request, &q); err != nil {
			return nil, err
		}
		if err := checkedAnswers(v).CheckAnswersBelongTo(&q); err != nil {
			return nil, err
		}
		if mutation.On(mutation.ExplicitNonAnswerDropped) {
			v.QuestionAnswers = slices.DeleteFunc(v.QuestionAnswers, func(a proto.QuestionAnswer) bool { return len(a.Answers) == 0 })
		}
	case *proto.FunctionResultPayload:
		if v.CallID != "" && v.CallID != in.ID {
			return nil, fmt.Errorf("call_id %q is not the call answered (%s)", v.CallID, in.ID)
		}
		v.DeliveryID, v.CallID = placeholderDelivery, in.ID
	}
	if err := p.Validate(); err != nil && !looseAnswer(p) {
		return nil, err
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	delete(m, "delivery_id")
	delete(m, "call_id")
	return json.Marshal(m)
}

func answerRefusal(code string) error {
	switch code {
	case turn.RefusedUnknownInteraction:
		return ErrNoInteraction
	case turn.RefusedAnswerConflict:
		return ErrAnswerConflict
	case turn.RefusedResultImages:
		return ErrResultImagesUnsupported
	default:
		return ErrNotPending
	}
}

// Interactions lists a Turn's interactions as last committed.
func (e *Engine) Interactions(turnID string) ([]store.Interaction, error) {
	t, err := e.cfg.Store.Turn(turnID)
	if err != nil {
		return nil, fmt.Errorf("turn %s: %w", turnID, ErrNotFound)
	}
	return t.Interactions, nil
}
