package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
)

// decisionTypes are the core frames that answer an interaction: a caller answers through the
// reference Core's API and Core sends the frame.
var decisionTypes = map[string]bool{
	proto.TypePermissionDecision:          true,
	proto.TypePromptForUserChoiceDecision: true,
	proto.TypeFunctionResult:              true,
}

// answer cues the reference Core's interaction API for a core decision step (permission_decision,
// prompt_for_user_choice_decision, function_result). The interaction it answers is the frame's id
// (request_id, ask_id) or, for a function_result, its payload's call_id; the answer is the
// payload without delivery_id (Core draws it) and call_id. A caller answers whatever is pending
// while earlier decisions await their acks, and Core alone decides when each goes out (one at a
// time): so the step answers its interaction and every later decision step's interaction already
// pending, in order. A step whose interaction was answered already is Core's own sending from its
// queue. The interaction ID is the caller's idempotency key.
func (d *refCoreDriver) answer(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) error {
	if d.turnID == "" {
		return fmt.Errorf("%s: %s before any Turn was started", st.Pos, st.Frame.Type)
	}
	id, err := answeredID(st, b)
	if err != nil {
		return err
	}
	if d.answered[id] {
		return nil
	}
	// Every request the Runtime sent before this step reaches Core: wait until Core recorded them
	// all, so the answers a caller queues do not depend on how fast Core took the requests.
	for _, req := range append(d.requestedBefore(st, b), id) {
		if err := d.awaitInteraction(ctx, req); err != nil {
			return fmt.Errorf("%s: %w", st.Pos, err)
		}
	}
	ins, err := d.Core.Interactions(d.turnID)
	if err != nil {
		return err
	}
	for _, later := range d.decisionsFrom(st) {
		id, err := answeredID(later, b)
		if err != nil || d.answered[id] || !pending(ins, id) {
			continue // a later step may name an interaction not requested yet
		}
		raw, err := answerOf(later, b)
		if err != nil {
			return fmt.Errorf("the answer of %s: %w", later.Pos, err)
		}
		if _, err := d.Core.Answer(d.turnID, id, id, raw); err != nil {
			return fmt.Errorf("answering %s (%s): %w", id, later.Pos, err)
		}
		d.answered[id] = true
	}
	return nil
}

// driverWait bounds the reference-Core driver's own waits (Core quiet before an advance, a
// connection to close, a request recorded). A mutant whose Core never gets there waits it out in
// every play of the matrix, so it stays at the 30 s that InProcessBound was before it became a
// 2 min safety net for reads: raised with it, the Core matrix went from about 1 to 6 minutes.
const driverWait = 30 * time.Second

// interactionWait bounds the wait for Core to record a request the Runtime sent before the step
// (Trigger's context may have no deadline): a wait for an event, whose bound is only a safety net.
const interactionWait = driverWait

// awaitInteraction waits (bounded by ctx and interactionWait) until Core has recorded the interaction: the request
// reached the wire before this step, but Core handles it on its own time.
func (d *refCoreDriver) awaitInteraction(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, interactionWait)
	defer cancel()
	for {
		changed := d.Core.Changed()
		t, err := d.Core.Turn(d.turnID)
		if err != nil {
			return err
		}
		for _, in := range t.Interactions {
			if in.ID == id {
				return nil
			}
		}
		if t.Outcome != nil {
			return fmt.Errorf("the Turn ended (%s %s) without an interaction %s to answer", t.Outcome.Status, t.Outcome.Reason, id)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("the reference Core recorded no interaction %s to answer", id)
		}
	}
}

func pending(ins []store.Interaction, id string) bool {
	for _, in := range ins {
		if in.ID == id {
			return in.State == store.InteractionPending
		}
	}
	return false
}

// decisionsFrom lists st and every later core decision frame of the scenario, in order.
func (d *refCoreDriver) decisionsFrom(st *scenarios.Step) []*scenarios.Step {
	out := []*scenarios.Step{st}
	for _, later := range d.sc.Steps {
		if later.Index <= st.Index {
			continue
		}
		for _, f := range later.Frames() {
			if f.From == proto.Core && decisionTypes[f.Frame.Type] {
				out = append(out, f)
			}
		}
	}
	return out
}

// answeredID is the interaction a decision step answers, resolved against the bindings.
func answeredID(st *scenarios.Step, b *scenarios.Bindings) (string, error) {
	tmpl := st.Frame.ID
	if st.Frame.Type == proto.TypeFunctionResult {
		p, ok := st.Frame.Payload.(map[string]scenarios.Value)
		if !ok {
			return "", fmt.Errorf("%s: function_result needs a payload", st.Pos)
		}
		tmpl = p["call_id"]
	}
	id, err := resolveString(tmpl, b)
	if err != nil {
		return "", fmt.Errorf("%s: %w", st.Pos, err)
	}
	if id == "" || strings.Contains(id, "${") {
		return "", fmt.Errorf("%s: %s answers an interaction the Runtime named: its id (or call_id) must be bound", st.Pos, st.Frame.Type)
	}
	return id, nil
}

// answerOf is a decision step's payload without the members Core chooses.
func answerOf(st *scenarios.Step, b *scenarios.Bindings) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := decodeTemplate(st.Frame.Payload, b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("no payload")
	}
	delete(m, "delivery_id")
	delete(m, "call_id")
	return json.Marshal(m)
}

// requestedBefore lists the interaction IDs of the requests the Runtime sent before st (those
// whose ID the bindings resolve; an invalid frame is never recorded).
func (d *refCoreDriver) requestedBefore(st *scenarios.Step, b *scenarios.Bindings) []string {
	var ids []string
	for _, earlier := range d.sc.Steps {
		if earlier.Index >= st.Index {
			break
		}
		for _, f := range earlier.Frames() {
			key, ok := scenarios.InteractionRequestTypes[f.Frame.Type]
			p, isMap := f.Frame.Payload.(map[string]scenarios.Value)
			if f.From != proto.Runtime || !ok || !isMap || f.Frame.Invalid != "" || p[key] == nil {
				continue
			}
			if id, err := resolveString(p[key], b); err == nil && id != "" && !strings.Contains(id, "${") && !d.answered[id] {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// answerRefused answers check.interaction: a caller answers the interaction now, under a key of
// its own, and Core must refuse the answer inside itself with the check's code (turn.
// InteractionRefused); an answer Core takes fails the check, since it would reach the wire. The
// interaction (its ${name} placeholders resolved) is first awaited in Core's record, unless the
// code is unknown_interaction: that check names a request Core must never have recorded, so the
// caller answers at once (the scenario orders it after a later frame Core took).
func (d *refCoreDriver) answerRefused(c *scenarios.InteractionCheck, b *scenarios.Bindings) (bool, string, error) {
	if d.turnID == "" {
		return false, "", errors.New("check.interaction before any Turn was started")
	}
	refuses, err := resolveString(c.Refuses, b)
	if err != nil {
		return false, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), interactionWait)
	defer cancel()
	if c.Code != UnknownInteractionCode {
		if err := d.awaitInteraction(ctx, refuses); err != nil {
			return false, "", err
		}
	}
	var raw json.RawMessage
	if err := decodeTemplate(c.Answer, b, &raw); err != nil {
		return false, "", err
	}
	d.refusals++
	_, err = d.Core.Answer(d.turnID, refuses, fmt.Sprintf("refused-%d", d.refusals), raw)
	if err == nil {
		return false, "", fmt.Errorf("the reference Core took the answer to %s instead of refusing it with %s", refuses, c.Code)
	}
	if got := answerRefusalCode(err); got != c.Code {
		return false, "", fmt.Errorf("the reference Core refused the answer to %s with %s (%v), want %s", refuses, got, err, c.Code)
	}
	return true, "refused " + c.Code, nil
}

// UnknownInteractionCode is the API error code of an answer to an interaction Core never
// recorded (README, the interactions route).
const UnknownInteractionCode = "unknown_interaction"

// answerRefusalCode is the API error code the reference Core's answer endpoint (api.go) gives
// an answer's refusal.
func answerRefusalCode(err error) string {
	for _, c := range []struct {
		err  error
		code string
	}{
		{execution.ErrNoInteraction, UnknownInteractionCode},
		{execution.ErrInvalid, "invalid_answer"},
		{execution.ErrFinished, "turn_finished"},
		{execution.ErrAnswerConflict, "answer_conflict"},
		{execution.ErrNotPending, "not_pending"},
		{execution.ErrResultImagesUnsupported, "result_images_unsupported"},
	} {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "turn_not_running"
}

// decisionHolds answers check.decision from the reference Core's interaction records: the
// interaction whose decision carried the delivery_id, its state mapped onto the check's (a sent
// decision is awaited; unknown, and detached after it was sent, are unconfirmed).
func (d *refCoreDriver) decisionHolds(c *scenarios.DecisionCheck, b *scenarios.Bindings) (bool, string, error) {
	if d.turnID == "" {
		return false, "", errors.New("check.decision before any Turn was started")
	}
	delivery, err := resolveString(c.Delivery, b)
	if err != nil {
		return false, "", err
	}
	ins, err := d.Core.Interactions(d.turnID)
	if err != nil {
		return false, "", err
	}
	for _, in := range ins {
		if in.DeliveryID != delivery {
			continue
		}
		state := map[string]string{
			store.InteractionSent:     "awaited",
			store.InteractionApplied:  "applied",
			store.InteractionRefused:  "refused",
			store.InteractionUnknown:  "unconfirmed",
			store.InteractionDetached: "unconfirmed",
		}[in.State]
		return state == c.State, fmt.Sprintf("the decision with delivery_id %s is %s (recorded %s %s)", delivery, state, in.State, in.Code), nil
	}
	return false, "Core recorded no decision with delivery_id " + delivery, nil
}

// requestTypes maps the reference Core's interaction kinds onto the request frames that open them.
var requestTypes = map[string]string{
	store.InteractionPermission: proto.TypePermissionRequest,
	store.InteractionUserChoice: proto.TypePromptForUserChoice,
	store.InteractionFunction:   proto.TypeFunctionCall,
}

// interactionsHold answers check.interactions: the interactions the Turn of the Run registered,
// as {type, id}, against the check's list in any order. It waits while the Turn runs (a request
// may still be taken) and fails once the Turn has ended with another set.
func (d *refCoreDriver) interactionsHold(c *scenarios.InteractionsCheck, b *scenarios.Bindings) (bool, string, error) {
	t, missing, err := d.turnOf(c.Run, b)
	if t == nil {
		return false, missing, err
	}
	want := map[scenarios.RegisteredInteraction]bool{}
	for _, r := range c.Registered {
		id, err := resolveString(r.ID, b)
		if err != nil {
			return false, "", err
		}
		if strings.Contains(id, "${") {
			return false, "", fmt.Errorf("check.interactions: %s's id %s is not bound", r.Type, id)
		}
		want[scenarios.RegisteredInteraction{Type: r.Type, ID: id}] = true
	}
	ins, err := d.Core.Interactions(t.ID)
	if err != nil {
		return false, "", err
	}
	got := map[scenarios.RegisteredInteraction]bool{}
	var listed []string
	for _, in := range ins {
		r := scenarios.RegisteredInteraction{Type: requestTypes[in.Kind], ID: in.ID}
		got[r] = true
		listed = append(listed, fmt.Sprintf("%s %q", r.Type, in.ID))
	}
	state := fmt.Sprintf("registered [%s]", strings.Join(listed, ", "))
	if maps.Equal(got, want) {
		return true, state, nil
	}
	if t.Outcome != nil {
		return false, state, fmt.Errorf("the Turn ended having %s, want %d interactions (%s)", state, len(want), c)
	}
	return false, state, nil
}
