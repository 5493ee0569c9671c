package daemon

import (
	"encoding/json"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Sub-agent observation frames (protocol-facts §4.17, rules SA-01 … SA-07). A Harness reports its
// native sub-agents' activity as events; the Runtime forwards them on the Run only when the Run's
// configuration set observe_subagent_identities (SA-07), and only in SA-06's order: a native
// agent's identity first, then an active Turn, that Turn's Items, its terminal snapshot. A frame
// that would break the order is dropped and logged, and the Turn goes on: the protocol skips a
// frame that breaks its contract rather than failing the stream (facts §1: malformed frames are
// logged and skipped on both sides), the Turn's outcome is not made of observations, and §6.1 has
// no classification that would let an error frame describe a native observation out of order
// (an error would turn the Turn into engine_failed at Core for a cosmetic native glitch).

func isSubagentType(typ string) bool {
	switch typ {
	case proto.TypeSubagentIdentity, proto.TypeSubagentLifecycle, proto.TypeSubagentTurn,
		proto.TypeSubagentItem, proto.TypeSubagentCoordination:
		return true
	}
	return false
}

// subagentOrder is SA-06 for one Run: what it has sent of each native sub-agent. The pump alone
// uses it, so it needs no lock.
type subagentOrder struct {
	identified map[string]bool
	turns      map[subagentTurnKey]bool // a Turn sent: true once its terminal snapshot went out
	stopped    bool                     // a mutant's: forwarding ended at the first frame out of order
}

type subagentTurnKey struct{ native, turn string }

// admit reports why a frame may not be sent next (nil: it may), and records it when it may.
// A Turn snapshot with completed_at_ms set is terminal: §4.17 enumerates no statuses, and a
// completion time is what says that a Turn has ended.
func (o *subagentOrder) admit(p any) error {
	if o.identified == nil {
		o.identified, o.turns = map[string]bool{}, map[subagentTurnKey]bool{}
	}
	switch p := p.(type) {
	case *proto.SubagentIdentityPayload:
		if o.identified[p.NativeID] && !mutation.On(mutation.SAIdentityRepeated) {
			return fmt.Errorf("native_id %q already has its identity", p.NativeID)
		}
		o.identified[p.NativeID] = true
	case *proto.SubagentLifecyclePayload:
		if !o.identified[p.NativeID] && !mutation.On(mutation.SubagentOrderUnchecked) {
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		}
	case *proto.SubagentTurnPayload:
		k := subagentTurnKey{p.NativeID, p.TurnID}
		terminal, seen := o.turns[k]
		switch {
		case !o.identified[p.NativeID] && !mutation.On(mutation.SubagentOrderUnchecked):
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		case terminal && !mutation.On(mutation.SAAfterTerminalSent):
			return fmt.Errorf("turn %q of %q already sent its terminal snapshot", p.TurnID, p.NativeID)
		case !seen && p.CompletedAtMS != nil && !mutation.On(mutation.SATurnNotRequiredActive):
			return fmt.Errorf("turn %q of %q was never active before its terminal snapshot", p.TurnID, p.NativeID)
		}
		o.turns[k] = p.CompletedAtMS != nil
	case *proto.SubagentItemPayload:
		terminal, seen := o.turns[subagentTurnKey{p.NativeID, p.TurnID}]
		if !seen && !mutation.On(mutation.SATurnNotRequiredActive) || terminal && !mutation.On(mutation.SAAfterTerminalSent) {
			return fmt.Errorf("turn %q of %q is not active", p.TurnID, p.NativeID)
		}
	}
	// subagent_coordination names no Turn: SA-06 does not order it.
	return nil
}

// subagentEnvelope is the frame a Turn's sub-agent event becomes, or false when it must not be
// sent (no opt-in, or out of order).
func (r *router) subagentEnvelope(rn *run, ev harness.Event) (proto.Envelope, bool) {
	if !rn.observeSubagents && !mutation.On(mutation.SubagentsWithoutOptIn) {
		return proto.Envelope{}, false // SA-07: the Run did not opt in
	}
	if rn.subagents.stopped {
		return proto.Envelope{}, false
	}
	if err := rn.subagents.admit(ev.Payload); err != nil {
		r.d.log.Warn("dropping a sub-agent frame out of order (SA-06)", "run", rn.id, "type", ev.Type, "err", err)
		if mutation.On(mutation.SAOrderBreakStopsForwarding) {
			rn.subagents.stopped = true
		}
		return proto.Envelope{}, false
	}
	payload := ev.Payload
	if c, ok := payload.(*proto.SubagentCoordinationPayload); ok {
		c.Recipients = recipients(c.Recipients) // SA-05: an array, never null
	}
	id := rn.id
	if mutation.On(mutation.SAFrameIDNative) {
		id = subagentNativeID(payload) // addressed to the sub-agent instead of the Run
	}
	payload = bendSubagentPayload(payload)
	env, err := proto.NewEnvelope(ev.Type, id, payload)
	if err != nil {
		r.d.log.Error("dropping a sub-agent frame the harness could not encode", "run", rn.id, "type", ev.Type, "err", err)
		return proto.Envelope{}, false
	}
	return env, true
}

// recipients encodes as a JSON array even when the native side has none.
func recipients(rs []string) []string {
	if mutation.On(mutation.SubagentEmptyRecipientsNull) && len(rs) == 0 {
		return nil
	}
	if rs == nil {
		return []string{}
	}
	return rs
}

// bendSubagentPayload is the shape mutants' encoding: one member left out when it is empty, zero
// or null (as an omitempty tag would), or the Item's snapshot re-encoded as a string.
func bendSubagentPayload(p any) any {
	var omit []string
	leave := func(key string, empty bool, point mutation.Point) {
		if empty && mutation.On(point) {
			omit = append(omit, key)
		}
	}
	switch p := p.(type) {
	case *proto.SubagentIdentityPayload:
		leave("parent_native_id", p.ParentNativeID == "", mutation.SAEmptyParentOmitted)
		leave("native_created_at", p.NativeCreatedAt == 0, mutation.SAZeroCreatedAtOmitted)
		leave("name", p.Name == nil, mutation.SubagentNullsOmitted)
		leave("instructions", p.Instructions == nil, mutation.SANullInstructionsOmitted)
	case *proto.SubagentLifecyclePayload:
		leave("effect_id", p.EffectID == "", mutation.SAEmptyEffectIDOmitted)
		leave("occurred_at_ms", p.OccurredAtMS == 0, mutation.SAZeroOccurredAtOmitted)
	case *proto.SubagentTurnPayload:
		leave("status", p.Status == "", mutation.SAEmptyTurnStatusOmitted)
		leave("created_at_ms", p.CreatedAtMS == 0, mutation.SAZeroTurnCreatedAtOmitted)
		leave("started_at_ms", p.StartedAtMS == nil, mutation.SANullStartedAtOmitted)
		leave("completed_at_ms", p.CompletedAtMS == nil, mutation.SANullCompletedAtOmitted)
		leave("usage", p.Usage == nil, mutation.SANullUsageOmitted)
	case *proto.SubagentItemPayload:
		leave("kind", p.Kind == "", mutation.SAEmptyItemKindOmitted)
		leave("position", p.Position == 0, mutation.SAZeroPositionOmitted)
		if mutation.On(mutation.SAItemPayloadStringified) {
			return withMembers(p, nil, map[string]any{"payload": string(p.Payload)})
		}
	case *proto.SubagentCoordinationPayload:
		leave("actor_id", p.ActorID == "", mutation.SAEmptyActorOmitted)
		leave("text", p.Text == nil, mutation.SANullTextOmitted)
		leave("model", p.Model == nil, mutation.SANullModelOmitted)
		leave("reasoning_effort", p.ReasoningEffort == nil, mutation.SANullReasoningEffortOmitted)
	}
	if len(omit) == 0 {
		return p
	}
	return withMembers(p, omit, nil)
}

// withMembers is p encoded with the members omit left out and the members set replaced.
func withMembers(p any, omit []string, set map[string]any) any {
	raw, err := json.Marshal(p)
	if err != nil {
		return p
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return p
	}
	for _, k := range omit {
		delete(m, k)
	}
	for k, v := range set {
		m[k] = v
	}
	return m
}

// subagentNativeID is the native agent a sub-agent frame reports (the actor of a coordination).
func subagentNativeID(p any) string {
	switch p := p.(type) {
	case *proto.SubagentIdentityPayload:
		return p.NativeID
	case *proto.SubagentLifecyclePayload:
		return p.NativeID
	case *proto.SubagentTurnPayload:
		return p.NativeID
	case *proto.SubagentItemPayload:
		return p.NativeID
	case *proto.SubagentCoordinationPayload:
		return p.ActorID
	}
	return ""
}
