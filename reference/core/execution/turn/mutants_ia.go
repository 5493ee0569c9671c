package turn

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The interactions (IA) mutation points of Core that need more than a changed condition. Every
// body is guarded by mutation.On, a constant false outside the wirecheck_mutants build.

// object is a JSON object as its members, to bend or mend one of them.
type object map[string]json.RawMessage

func (o object) clone() object {
	c := object{}
	for k, v := range o {
		c[k] = v
	}
	return c
}

// list reads an array member of objects (nil when it is not one).
func (o object) list(name string) []object {
	var l []object
	if json.Unmarshal(o[name], &l) != nil {
		return nil
	}
	return l
}

func (o object) setList(name string, l []object) {
	o[name], _ = json.Marshal(l)
}

func (o object) str(name string) string {
	var s string
	_ = json.Unmarshal(o[name], &s)
	return s
}

// validRequest reports whether a request payload, once mended, decodes and validates.
func validRequest(typ string, o object) bool {
	spec, ok := proto.Lookup(typ)
	if !ok {
		return false
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return false
	}
	v, err := spec.DecodePayload(raw)
	return err == nil && v != nil && v.Validate() == nil
}

// looseInteractionRequest registers a permission_request or prompt_for_user_choice the validator
// refused when a mutant takes it anyway (IA-01.3 … IA-02.3, IA-15.2 … IA-15.7): each mutant takes
// only a request whose one defect is its clause's, under the interaction ID it carries ("" when
// none).
func looseInteractionRequest(typ string, raw json.RawMessage, invalid error) (Event, bool) {
	if invalid == nil || (typ != proto.TypePermissionRequest && typ != proto.TypePromptForUserChoice) {
		return nil, false
	}
	var o object
	if json.Unmarshal(raw, &o) != nil || o == nil {
		return nil, false
	}
	// mended reports whether the request validates once mend changed it.
	mended := func(mend func(o object) bool) bool {
		c := o.clone()
		return mend(c) && validRequest(typ, c)
	}
	set := func(name, value string) func(o object) bool {
		return func(o object) bool {
			if strings.TrimSpace(o.str(name)) != "" {
				return false
			}
			o[name], _ = json.Marshal(value)
			return true
		}
	}
	take := func(idMember string) (Event, bool) {
		return InteractionRequest{Type: typ, ID: o.str(idMember), Payload: raw}, true
	}
	if typ == proto.TypePermissionRequest {
		switch {
		case mended(set("request_id", "request")) && (mutation.On(mutation.IARequestlessRegistered) || mutation.On(mutation.IARunIDAsInteractionID)):
			return take("request_id")
		case mended(func(o object) bool { _, has := o["tool"]; o["tool"] = json.RawMessage(`"tool"`); return !has }) &&
			mutation.On(mutation.IAToollessRequestRegistered):
			return take("request_id")
		case mended(func(o object) bool { _, has := o["title"]; o["title"] = json.RawMessage(`"title"`); return !has }) &&
			mutation.On(mutation.IATitlelessRequestRegistered):
			return take("request_id")
		case mended(func(o object) bool { _, has := o["payload"]; delete(o, "payload"); return has }) &&
			mutation.On(mutation.IABadPayloadRequestRegistered):
			return take("request_id")
		}
		return nil, false
	}
	// questions mends each question of a prompt.
	questions := func(mend func(i int, q object, seen map[string]bool) bool) func(o object) bool {
		return func(o object) bool {
			l, changed, seen := o.list("questions"), false, map[string]bool{}
			for i, q := range l {
				changed = mend(i, q, seen) || changed
				seen[q.str("id")] = true
			}
			o.setList("questions", l)
			return changed
		}
	}
	switch {
	case mended(func(o object) bool {
		n := len(o)
		delete(o, "tool_use_id")
		delete(o, "auto_resolution_ms")
		questions(func(_ int, q object, _ map[string]bool) bool {
			for _, k := range []string{"header", "multi_select", "is_other", "is_secret"} {
				delete(q, k)
			}
			opts := q.list("options")
			for _, opt := range opts {
				delete(opt, "description")
			}
			q.setList("options", opts)
			return true
		})(o)
		return len(o) <= n
	}) && mutation.On(mutation.IAMistypedPromptRegistered):
		return take("ask_id")
	case mended(set("ask_id", "ask")) && mutation.On(mutation.IAAsklessPromptRegistered):
		return take("ask_id")
	case mended(func(o object) bool {
		q, has := o["questions"]
		o["questions"] = json.RawMessage("[]")
		return !has || string(q) == "null"
	}) && mutation.On(mutation.IAQuestionlessPromptRegistered):
		return take("ask_id")
	case mended(questions(func(i int, q object, _ map[string]bool) bool {
		if strings.TrimSpace(q.str("id")) != "" {
			return false
		}
		q["id"], _ = json.Marshal(fmt.Sprintf("blank-%d", i))
		return true
	})) && mutation.On(mutation.IABlankQuestionIDRegistered):
		return take("ask_id")
	case mended(questions(func(i int, q object, seen map[string]bool) bool {
		if !seen[q.str("id")] {
			return false
		}
		q["id"], _ = json.Marshal(fmt.Sprintf("%s-%d", q.str("id"), i))
		return true
	})) && mutation.On(mutation.IASharedQuestionIDRegistered):
		return take("ask_id")
	case mended(questions(func(_ int, q object, _ map[string]bool) bool {
		_, has := q["question"]
		q["question"] = json.RawMessage(`"?"`)
		return !has
	})) && mutation.On(mutation.IATextlessQuestionRegistered):
		return take("ask_id")
	case mended(questions(func(_ int, q object, _ map[string]bool) bool {
		opts, has := q["options"]
		q["options"] = json.RawMessage("[]")
		return !has || string(opts) == "null"
	})) && mutation.On(mutation.IAOptionlessQuestionRegistered):
		return take("ask_id")
	}
	return nil, false
}

// bentPermissionDecision is a permission_decision's envelope as a mutant sends it.
func bentPermissionDecision(runID, requestID string, p *proto.PermissionDecisionPayload) (proto.Envelope, error) {
	id := requestID
	if mutation.On(mutation.IADecisionUnderRunID) {
		id = runID
	}
	env, err := proto.NewEnvelope(proto.TypePermissionDecision, id, p)
	if err != nil || p.Approved || !mutation.On(mutation.IADenialOmitsApproved) {
		return env, err
	}
	var o object
	if err := json.Unmarshal(env.Payload, &o); err != nil {
		return env, err
	}
	delete(o, "approved") // false taken for "absent"
	env.Payload, err = json.Marshal(o)
	return env, err
}

// bentChoiceDecision is a prompt_for_user_choice_decision's envelope as a mutant sends it.
func bentChoiceDecision(runID string, in store.Interaction, p *proto.PromptForUserChoiceDecisionPayload) (proto.Envelope, error) {
	id := in.ID
	if mutation.On(mutation.IAChoiceDecisionUnderRunID) {
		id = runID
	}
	env, err := proto.NewEnvelope(proto.TypePromptForUserChoiceDecision, id, p)
	if err != nil {
		return env, err
	}
	var o object
	if err := json.Unmarshal(env.Payload, &o); err != nil {
		return env, err
	}
	bent := false
	switch {
	case mutation.On(mutation.IAChoiceDecisionCarriesAskID):
		o["ask_id"], _ = json.Marshal(in.ID)
		bent = true
	case len(p.QuestionAnswers) > 0 && mutation.On(mutation.IAChoiceAnswerCarriesQuestion):
		var prompt proto.PromptForUserChoicePayload
		_ = json.Unmarshal(in.Request, &prompt)
		text := map[string]string{}
		for _, q := range prompt.Questions {
			text[q.ID] = q.Question
		}
		answers := o.list("question_answers")
		for _, a := range answers {
			a["question"], _ = json.Marshal(text[a.str("question_id")])
		}
		o.setList("question_answers", answers)
		bent = true
	case p.Cancelled && mutation.On(mutation.IAChoiceCancelledAsString):
		o["cancelled"] = json.RawMessage(`"true"`)
		bent = true
	}
	if bent {
		env.Payload, err = json.Marshal(o)
	}
	return env, err
}
