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
		if o.identified[p.NativeID] {
			return fmt.Errorf("native_id %q already has its identity", p.NativeID)
		}
		o.identified[p.NativeID] = true
	case *proto.SubagentLifecyclePayload:
		if !o.identified[p.NativeID] {
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		}
	case *proto.SubagentTurnPayload:
		k := subagentTurnKey{p.NativeID, p.TurnID}
		terminal, seen := o.turns[k]
		switch {
		case !o.identified[p.NativeID]:
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		case terminal:
			return fmt.Errorf("turn %q of %q already sent its terminal snapshot", p.TurnID, p.NativeID)
		case !seen && p.CompletedAtMS != nil:
			return fmt.Errorf("turn %q of %q was never active before its terminal snapshot", p.TurnID, p.NativeID)
		}
		o.turns[k] = p.CompletedAtMS != nil
	case *proto.SubagentItemPayload:
		terminal, seen := o.turns[subagentTurnKey{p.NativeID, p.TurnID}]
		if !seen || terminal {
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
	if err := rn.subagents.admit(ev.Payload); err != nil && !mutation.On(mutation.SubagentOrderUnchecked) {
		r.d.log.Warn("dropping a sub-agent frame out of order (SA-06)", "run", rn.id, "type", ev.Type, "err", err)
		return proto.Envelope{}, false
	}
	payload := ev.Payload
	if c, ok := payload.(*proto.SubagentCoordinationPayload); ok {
		c.Recipients = recipients(c.Recipients) // SA-05: an array, never null
	}
	if mutation.On(mutation.SubagentNullsOmitted) {
		payload = withoutNulls(payload)
	}
	env, err := proto.NewEnvelope(ev.Type, rn.id, payload)
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

// withoutNulls is the nulls-omitted mutant's encoding: every null member left out.
func withoutNulls(p any) any {
	raw, err := json.Marshal(p)
	if err != nil {
		return p
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return p
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return m
}
