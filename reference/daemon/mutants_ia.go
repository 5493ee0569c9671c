package daemon

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/interact"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The interactions (IA) mutation points that need more than a changed condition. Every body is
// guarded by mutation.On, a constant false outside the wirecheck_mutants build: there they do
// nothing and keep nothing.

// iaMembers is a payload as its iaMembers, to bend one of them.
type iaMembers map[string]json.RawMessage

func iaMembersOf(v any) iaMembers {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m iaMembers
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func (m iaMembers) raw() json.RawMessage {
	raw, _ := json.Marshal(m)
	return raw
}

// list reads an array member of objects (nil when it is not one).
func (m iaMembers) list(name string) []iaMembers {
	var l []iaMembers
	if json.Unmarshal(m[name], &l) != nil {
		return nil
	}
	return l
}

func (m iaMembers) setList(name string, l []iaMembers) {
	raw, _ := json.Marshal(l)
	m[name] = raw
}

// bentRequest is the permission_request envelope a mutant sends instead of the Turn's request; ok
// is false when no mutant bends it.
func bentRequest(runID string, p *proto.PermissionRequestPayload) (proto.Envelope, bool) {
	var bend func(env *proto.Envelope, m iaMembers)
	switch {
	case mutation.On(mutation.IARequestUnderRequestID):
		bend = func(env *proto.Envelope, _ iaMembers) { env.ID = p.RequestID }
	case mutation.On(mutation.IARequestIDLeftOut):
		bend = func(_ *proto.Envelope, m iaMembers) { delete(m, "request_id") }
	case mutation.On(mutation.IARequestToolLeftOut):
		bend = func(_ *proto.Envelope, m iaMembers) { delete(m, "tool") }
	case mutation.On(mutation.IARequestTitleLeftOut):
		bend = func(_ *proto.Envelope, m iaMembers) { delete(m, "title") }
	case len(p.Payload) > 0 && mutation.On(mutation.IARequestPayloadAsString):
		bend = func(_ *proto.Envelope, m iaMembers) { m["payload"], _ = json.Marshal(string(p.Payload)) } // encoded twice
	default:
		return proto.Envelope{}, false
	}
	env, m := proto.MustEnvelope(proto.TypePermissionRequest, runID, p), iaMembersOf(p)
	bend(&env, m)
	if env.ID == runID {
		env.Payload = m.raw()
	}
	return env, true
}

// bentPrompt is the prompt_for_user_choice envelope a mutant sends instead of the Turn's prompt;
// ok is false when no mutant bends it.
func bentPrompt(runID string, p *proto.PromptForUserChoicePayload) (proto.Envelope, bool) {
	var bend func(env *proto.Envelope, m iaMembers)
	// questions bends each question of the prompt.
	questions := func(each func(q, first iaMembers)) func(*proto.Envelope, iaMembers) {
		return func(_ *proto.Envelope, m iaMembers) {
			l := m.list("questions")
			for _, q := range l {
				each(q, l[0])
			}
			m.setList("questions", l)
		}
	}
	n := len(p.Questions)
	switch {
	case mutation.On(mutation.IAPromptUnderAskID):
		bend = func(env *proto.Envelope, _ iaMembers) { env.ID = p.AskID }
	case mutation.On(mutation.IAPromptAskIDLeftOut):
		bend = func(_ *proto.Envelope, m iaMembers) { delete(m, "ask_id") }
	case mutation.On(mutation.IAPromptQuestionsNull):
		bend = func(_ *proto.Envelope, m iaMembers) { m["questions"] = json.RawMessage("null") }
	case n > 0 && mutation.On(mutation.IAPromptQuestionIDBlank):
		bend = questions(func(q, _ iaMembers) { q["id"] = json.RawMessage(`""`) })
	case n > 1 && mutation.On(mutation.IAPromptQuestionIDShared):
		first := ""
		bend = questions(func(q, f iaMembers) {
			if first == "" {
				first = string(f["id"])
			}
			q["id"] = json.RawMessage(first)
		})
	case n > 0 && mutation.On(mutation.IAPromptQuestionTextOut):
		bend = questions(func(q, _ iaMembers) { delete(q, "question") })
	case n > 0 && mutation.On(mutation.IAPromptOptionsNull):
		bend = questions(func(q, _ iaMembers) { q["options"] = json.RawMessage("null") })
	case p.AutoResolutionMS > 0 && mutation.On(mutation.IAPromptAutoMSString):
		bend = func(_ *proto.Envelope, m iaMembers) {
			m["auto_resolution_ms"], _ = json.Marshal(string(m["auto_resolution_ms"]))
		}
	default:
		return proto.Envelope{}, false
	}
	env, m := proto.MustEnvelope(proto.TypePromptForUserChoice, runID, p), iaMembersOf(p)
	bend(&env, m)
	if env.ID == runID {
		env.Payload = m.raw()
	}
	return env, true
}

// bentCancel bends a permission_cancel on its way out.
func bentCancel(runID string, env proto.Envelope) proto.Envelope {
	switch {
	case mutation.On(mutation.IACancelUnderRunID):
		env.ID = runID
	case mutation.On(mutation.IACancelWithPayload):
		env.Payload, _ = json.Marshal(map[string]string{"request_id": env.ID})
	}
	return env
}

// emittedKey names an interaction a router emitted, for the mutants that need the prompt or
// whether it was ever emitted.
type emittedKey struct {
	r *router
	k interact.Key
}

// emittedIA holds, under a mutant that needs it, every interaction emitted (with its prompt for a
// user choice). Nothing is stored outside the mutants build: mutation.On is false there.
var emittedIA sync.Map

// noteEmitted remembers an emitted interaction for the mutants that read it back.
func (r *router) noteEmitted(k interact.Key, prompt *proto.PromptForUserChoicePayload) {
	if mutation.On(mutation.IAUnknownIDNotReady) ||
		prompt != nil && (mutation.On(mutation.IAAnswersByPosition) || mutation.On(mutation.IAHeaderNamesQuestion) || mutation.On(mutation.IAUnansweredFilled)) {
		emittedIA.Store(emittedKey{r, k}, prompt)
	}
}

// emittedPrompt returns the prompt a router emitted under k, if a mutant kept it.
func (r *router) emittedPrompt(k interact.Key) *proto.PromptForUserChoicePayload {
	v, ok := emittedIA.Load(emittedKey{r, k})
	if !ok {
		return nil
	}
	p, _ := v.(*proto.PromptForUserChoicePayload)
	return p
}

// choiceMembers are the iaMembers of a user-choice decision and of its question_answers entries.
var (
	choiceMembers = []string{"delivery_id", "question_answers", "cancelled", "reason"}
	answerMembers = []string{"question_id", "answers"}
)

// looseChoice takes a user-choice decision the strict decoding refused when a mutant reads it
// anyway (IA-16.4 … IA-17.4): each mutant takes only a decision whose one defect is its clause's,
// as the decision without that defect. It returns the decision and its payload as taken.
func looseChoice(env proto.Envelope) (*proto.PromptForUserChoiceDecisionPayload, json.RawMessage) {
	var top iaMembers
	if strings.TrimSpace(env.ID) == "" || json.Unmarshal(env.Payload, &top) != nil || top == nil {
		return nil, nil
	}
	// taken decodes the payload as fix leaves it, if fix changed something and it validates.
	taken := func(fix func(m iaMembers) bool) (*proto.PromptForUserChoiceDecisionPayload, json.RawMessage) {
		m := iaMembers{}
		for k, v := range top {
			m[k] = v
		}
		if !fix(m) {
			return nil, nil
		}
		raw := m.raw()
		p, err := proto.Decode[proto.PromptForUserChoiceDecisionPayload](proto.Envelope{Type: env.Type, ID: env.ID, Payload: raw})
		if err != nil {
			return nil, nil
		}
		return p, raw
	}
	// entries fixes each question_answers entry; keep=false drops it.
	entries := func(m iaMembers, fix func(e iaMembers) (keep, changed bool)) bool {
		l := m.list("question_answers")
		out, changed := l[:0], false
		for _, e := range l {
			keep, ch := fix(e)
			changed = changed || ch || !keep
			if keep {
				out = append(out, e)
			}
		}
		m.setList("question_answers", out)
		return changed
	}
	fixes := []struct {
		point mutation.Point
		fix   func(m iaMembers) bool
	}{
		{mutation.IAChoiceUnknownMemberTaken, func(m iaMembers) bool {
			n := len(m)
			for k := range m {
				if !slices.Contains(choiceMembers, k) {
					delete(m, k)
				}
			}
			return len(m) < n
		}},
		{mutation.IAChoiceInnerMemberTaken, func(m iaMembers) bool {
			return entries(m, func(e iaMembers) (bool, bool) {
				n := len(e)
				for k := range e {
					if !slices.Contains(answerMembers, k) {
						delete(e, k)
					}
				}
				return true, len(e) < n
			})
		}},
		{mutation.IAChoiceCancelledString, func(m iaMembers) bool {
			switch string(m["cancelled"]) {
			case `"true"`:
				m["cancelled"] = json.RawMessage("true")
			case `"false"`:
				m["cancelled"] = json.RawMessage("false")
			default:
				return false
			}
			return true
		}},
		{mutation.IAChoiceCancelledAnswers, func(m iaMembers) bool {
			if string(m["cancelled"]) != "true" || len(m.list("question_answers")) == 0 {
				return false
			}
			delete(m, "question_answers")
			return true
		}},
		{mutation.IAChoiceBlankQuestionID, func(m iaMembers) bool {
			return entries(m, func(e iaMembers) (bool, bool) {
				var id string
				_ = json.Unmarshal(e["question_id"], &id)
				return strings.TrimSpace(id) != "", false
			})
		}},
		{mutation.IAChoiceRepeatedQuestion, func(m iaMembers) bool {
			l := m.list("question_answers")
			last := map[string]int{}
			for i, e := range l {
				var id string
				_ = json.Unmarshal(e["question_id"], &id)
				last[id] = i
			}
			i := -1
			return entries(m, func(e iaMembers) (bool, bool) {
				i++
				var id string
				_ = json.Unmarshal(e["question_id"], &id)
				return last[id] == i, false
			})
		}},
		{mutation.IAChoiceNullAnswers, func(m iaMembers) bool {
			return entries(m, func(e iaMembers) (bool, bool) {
				if a, ok := e["answers"]; ok && string(a) != "null" {
					return true, false
				}
				e["answers"] = json.RawMessage("[]")
				return true, true
			})
		}},
	}
	for _, f := range fixes {
		if p, raw := taken(f.fix); p != nil && mutation.On(f.point) {
			return p, raw
		}
	}
	return nil, nil
}

// loosePermission takes a permission_decision the strict decoding refused when a mutant reads it
// anyway: one without approved, as a denial (IA-03.3), or one whose message is not a string,
// without it (IA-03.5). It returns the decision and its payload as taken.
func loosePermission(env proto.Envelope) (*proto.PermissionDecisionPayload, json.RawMessage) {
	var top iaMembers
	if strings.TrimSpace(env.ID) == "" || json.Unmarshal(env.Payload, &top) != nil || top == nil {
		return nil, nil
	}
	taken := func(fix func(m iaMembers) bool) (*proto.PermissionDecisionPayload, json.RawMessage) {
		m := iaMembers{}
		for k, v := range top {
			m[k] = v
		}
		if !fix(m) {
			return nil, nil
		}
		raw := m.raw()
		p, err := proto.Decode[proto.PermissionDecisionPayload](proto.Envelope{Type: env.Type, ID: env.ID, Payload: raw})
		if err != nil {
			return nil, nil
		}
		return p, raw
	}
	if p, raw := taken(func(m iaMembers) bool {
		_, has := m["approved"]
		m["approved"] = json.RawMessage("false")
		return !has
	}); p != nil && mutation.On(mutation.IADecisionWithoutApproved) {
		return p, raw
	}
	if p, raw := taken(func(m iaMembers) bool {
		msg, has := m["message"]
		delete(m, "message")
		return has && (len(msg) == 0 || msg[0] != '"')
	}); p != nil && mutation.On(mutation.IADecisionMessageMistyped) {
		return p, raw
	}
	return nil, nil
}

// decisionByRunID is the interaction a decision names: k, unless k is not pending, its ID is a
// Run's and a mutant applies the decision to that Run's one pending interaction of the family
// (IA-03.1, IA-16.1).
func (r *router) decisionByRunID(k interact.Key) interact.Key {
	r.mu.Lock()
	rn := r.runs[k.ID]
	r.mu.Unlock()
	if rn == nil {
		return k
	}
	r.iaMu.Lock()
	defer r.iaMu.Unlock()
	if r.ia.m.Pending(k) {
		return k
	}
	var found []interact.Key
	for pk, owner := range r.ia.runs {
		if owner == rn && pk.Family == k.Family && r.ia.m.Pending(pk) {
			found = append(found, pk)
		}
	}
	if len(found) != 1 {
		return k
	}
	switch {
	case k.Family == harness.Permission && mutation.On(mutation.IADecisionByRunIDTaken):
		return found[0]
	case k.Family == harness.UserChoice && mutation.On(mutation.IAChoiceByRunIDTaken):
		return found[0]
	}
	return k
}

// bentChoice maps a question_id equal to a question's header to that question's ID (IA-19.2).
func (r *router) bentChoice(k interact.Key, p *proto.PromptForUserChoiceDecisionPayload) *proto.PromptForUserChoiceDecisionPayload {
	prompt := r.emittedPrompt(k)
	if prompt == nil || !mutation.On(mutation.IAHeaderNamesQuestion) {
		return p
	}
	q := *p
	q.QuestionAnswers = slices.Clone(p.QuestionAnswers)
	for i, a := range q.QuestionAnswers {
		if slices.ContainsFunc(prompt.Questions, func(x proto.UserChoiceQuestion) bool { return x.ID == a.QuestionID }) {
			continue
		}
		if j := slices.IndexFunc(prompt.Questions, func(x proto.UserChoiceQuestion) bool { return x.Header != "" && x.Header == a.QuestionID }); j >= 0 {
			q.QuestionAnswers[i].QuestionID = prompt.Questions[j].ID
		}
	}
	return &q
}

// nativeChoice is the user-choice decision as a mutant hands it to the native side: [] answers
// left out (IA-17.5), answers matched by position (IA-19.1), questions left out filled (IA-19.3).
func (r *router) nativeChoice(k interact.Key, p *proto.PromptForUserChoiceDecisionPayload) *proto.PromptForUserChoiceDecisionPayload {
	q := *p
	q.QuestionAnswers = slices.Clone(p.QuestionAnswers)
	if slices.ContainsFunc(q.QuestionAnswers, func(a proto.QuestionAnswer) bool { return len(a.Answers) == 0 }) &&
		mutation.On(mutation.IAChoiceEmptyAnswersOut) {
		q.QuestionAnswers = slices.DeleteFunc(q.QuestionAnswers, func(a proto.QuestionAnswer) bool { return len(a.Answers) == 0 })
	}
	prompt := r.emittedPrompt(k)
	if prompt == nil {
		return &q
	}
	if mutation.On(mutation.IAAnswersByPosition) {
		for i := range q.QuestionAnswers {
			if i < len(prompt.Questions) {
				q.QuestionAnswers[i].QuestionID = prompt.Questions[i].ID
			}
		}
	}
	if !q.Cancelled && mutation.On(mutation.IAUnansweredFilled) {
		for _, x := range prompt.Questions {
			answered := slices.ContainsFunc(q.QuestionAnswers, func(a proto.QuestionAnswer) bool { return a.QuestionID == x.ID })
			if !answered && len(x.Options) > 0 {
				q.QuestionAnswers = append(q.QuestionAnswers, proto.QuestionAnswer{QuestionID: x.ID, Answers: []string{x.Options[0].Label}})
			}
		}
	}
	return &q
}

// leftPending reports whether rn's Turn ends with an interaction still awaiting its answer (the
// IA-08.3 mutant's case). The caller holds iaMu.
func (r *router) leftPending(rn *run) bool {
	for k, owner := range r.ia.runs {
		if owner == rn && r.ia.m.Pending(k) {
			return true
		}
	}
	return false
}

// decisionKey is the interaction a decision names, by its type.
func decisionKey(env proto.Envelope) (interact.Key, bool) {
	switch env.Type {
	case proto.TypePermissionDecision:
		return interact.Key{Family: harness.Permission, ID: env.ID}, true
	case proto.TypePromptForUserChoiceDecision:
		return interact.Key{Family: harness.UserChoice, ID: env.ID}, true
	}
	return interact.Key{}, false
}

// unaddressedAnswer is what a mutant does with a decision that names no interaction or no
// delivery; it reports whether the mutant answered it (the drop is not to happen).
func (r *router) unaddressedAnswer(env proto.Envelope, delivery string) bool {
	k, decision := decisionKey(env)
	if !decision {
		return false
	}
	switch {
	case env.ID == "" && delivery != "" && env.Type == proto.TypePermissionDecision && mutation.On(mutation.IABlankIDDecisionAcked):
		r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: delivery, ErrorCode: proto.CodeContractViolation})
		return true
	case env.ID != "" && delivery == "" && env.Type == proto.TypePromptForUserChoiceDecision && mutation.On(mutation.IAChoiceUnaddressedAcked):
		r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: "unknown", ErrorCode: proto.CodeContractViolation})
		return true
	case env.ID != "" && delivery == "" && mutation.On(mutation.IADroppedDecisionConsumes):
		r.iaMu.Lock()
		r.ia.m.Withdrawn(k) // the drop consumes the request it names
		r.iaMu.Unlock()
	}
	return false
}

// decide is the machine's verdict on an answer, as a mutant bends it.
func (r *router) decide(a interact.Answer) interact.Verdict {
	m := r.ia.m
	choice := a.Key.Family == harness.UserChoice
	if choice && !a.Declared && mutation.On(mutation.IAChoiceUndeclaredServed) {
		a.Declared = true
	}
	if _, remembered := m.Fingerprint(a.Key); choice && a.Declared && len(a.Answered) > 0 && !remembered && !m.Pending(a.Key) &&
		mutation.On(mutation.IAChoiceUnknownAsViolation) {
		// the foreign-question check ran against a prompt that is not there: no question is its
		return interact.Verdict{Ack: proto.InteractionDecisionAckPayload{ErrorCode: proto.CodeContractViolation, Error: "question_answers names questions the request did not emit"}}
	}
	v := m.Decide(a)
	switch {
	case v.Ack.ErrorCode == proto.CodeDecisionConflict && mutation.On(mutation.IAConflictReplacesMemory):
		m.Replace(a.Key, a.Fingerprint, a.Now) // the later content now stands as the applied one
	case v.Ack.ErrorCode == proto.CodeNotPending && mutation.On(mutation.IAUnknownIDNotReady):
		if _, emitted := emittedIA.Load(emittedKey{r, a.Key}); !emitted {
			v.Ack.ErrorCode, v.Ack.Error = proto.CodeNotReady, "the interaction may not be published yet"
		}
	case v.Ack.ErrorCode == proto.CodeContractViolation && choice && m.Pending(a.Key) && mutation.On(mutation.IAForeignCheckConsumes):
		// Decide answers contract_violation for a pending prompt only for a foreign question_id
		m.Withdrawn(a.Key) // the check ran after the prompt was taken
	}
	return v
}

// appliedBeforeNative acknowledges a permission decision applied:true before the native side
// has taken it (IA-12.2), and records it applied; it reports whether it did.
func (r *router) appliedBeforeNative(rn *run, a interact.Answer, v interact.Verdict, ackID, delivery string) bool {
	if !v.Apply || rn == nil || a.Key.Family != harness.Permission || !mutation.On(mutation.IAAppliedBeforeNative) {
		return false
	}
	receipt := r.ia.m.Settled(a, interact.Applied)
	receipt.DeliveryID = delivery
	r.ack(ackID, &receipt)
	return true
}

// mutateOutcomeIA bends how the native side took a decision.
func mutateOutcomeIA(family harness.Family, o interact.Outcome) interact.Outcome {
	switch {
	case o == interact.NotReady && family == harness.Permission && mutation.On(mutation.IANotPublishedFailed):
		return interact.Failed
	case o == interact.NotReady && family == harness.UserChoice && mutation.On(mutation.IAChoiceNotReadyFailed):
		return interact.Failed
	case o == interact.Unknown && family == harness.Permission && mutation.On(mutation.IANativeUnknownFailed):
		return interact.Failed
	}
	return o
}

// mutateSettledIA bends what a settled decision leaves behind and its ack.
func mutateSettledIA(m *interact.Machine, a interact.Answer, o interact.Outcome, receipt *proto.InteractionDecisionAckPayload) {
	permission := a.Key.Family == harness.Permission
	if o == interact.Unimplemented && permission && mutation.On(mutation.IAUnimplementedUnsupported) {
		receipt.ErrorCode = proto.CodeUnsupported
	}
	if (o == interact.Unimplemented || o == interact.Failed) && permission && mutation.On(mutation.IAFailedAttemptConsumes) {
		m.Withdrawn(a.Key)
	}
	if o == interact.Applied && a.Key.Family == harness.UserChoice && mutation.On(mutation.IAChoiceReplayForgotten) {
		m.Forget(a.Key)
	}
}

// mutateAckID is the id a decision's ack goes under, as a mutant bends it with the ack.
func mutateAckID(rn *run, a interact.Answer, ackID string, receipt *proto.InteractionDecisionAckPayload) string {
	decision := a.Key.Family == harness.Permission || a.Key.Family == harness.UserChoice
	if receipt.Applied && decision && mutation.On(mutation.IAAckDeliveryIsInteraction) {
		receipt.DeliveryID = ackID
	}
	if rn == nil {
		return ackID
	}
	switch {
	case a.Key.Family == harness.Permission && mutation.On(mutation.IAAckUnderRunID):
		return rn.id
	case a.Key.Family == harness.UserChoice && mutation.On(mutation.IAChoiceAckUnderRunID):
		return rn.id
	}
	return ackID
}

// carriedInteractions is the interactions machine of a new connection: its own, unless a mutant
// carries the previous connection's into it (IA-08.5).
func carriedInteractions(d *Daemon, conn uint64, ia *interactions) *interactions {
	if prev := keptInteractions(d); conn > 1 && prev != nil && mutation.On(mutation.IARoutesSurviveReconnect) {
		ia = prev
	}
	keepInteractions(d, ia)
	return ia
}
