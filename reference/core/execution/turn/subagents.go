package turn

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Sub-agent observation frames (protocol-facts §4.17, rules SA-01 … SA-07). A Run whose
// configuration set observe_subagent_identities reports its native sub-agents; Core records every
// frame that is well formed and in order on the Turn (Record.Subagents: the API's Turn shows them
// as `subagents`, in arrival order, each payload with every member encoded). A frame that does not
// decode (a member missing, recipients null, a negative position) or comes out of order is
// journalled and dropped, and the Turn goes on: facts §1 has both sides log and skip a malformed
// frame, and the Turn's outcome is not made of observations (undecodable fails the Turn only for
// the frames it is).
//
// The order Core holds a Run to is the one the Runtime must send (SA-06): a native agent's
// identity first and once, then an active Turn, its Items, its terminal snapshot; a Turn snapshot
// is terminal when completed_at_ms is set (§4.17 enumerates no statuses). subagent_coordination
// names no Turn and is not ordered.

// MaxSubagentEvents bounds the frames recorded per Turn: a Runtime cannot grow the record without
// end. Later frames are journalled and dropped.
const MaxSubagentEvents = 1024

// Subagent is a decoded sub-agent frame of the Run.
type Subagent struct {
	Type    string
	Payload any // the decoded *proto.Subagent…Payload
}

func subagentEvent(typ string, p any) Event { return Subagent{Type: typ, Payload: p} }

// subagentFrame records a sub-agent frame that is in order, and drops one that is not.
func subagentFrame(s *State, ev Event) ([]Effect, error) {
	sa := ev.(Subagent)
	if len(s.Subagents) >= MaxSubagentEvents {
		return []Effect{note("ignoring " + sa.Type + ": the Turn already holds " + strconv.Itoa(MaxSubagentEvents) + " sub-agent frames")}, nil
	}
	if err := subagentOrderOf(s.Subagents).admit(sa.Payload); err != nil {
		if mutation.On(mutation.SACoreOrderBreakFails) {
			return []Effect{s.fail(proto.ReasonInvalidExecutorResult, sa.Type+" out of order (SA-06): "+err.Error())}, nil
		}
		return []Effect{note("ignoring " + sa.Type + " out of order (SA-06): " + err.Error())}, nil
	}
	raw, err := recordedPayload(sa.Payload)
	if err != nil {
		return []Effect{note("ignoring " + sa.Type + ": " + err.Error())}, nil
	}
	s.Subagents = append(append([]store.SubagentEvent(nil), s.Subagents...), store.SubagentEvent{Type: sa.Type, Payload: raw})
	return []Effect{s.commit()}, nil
}

// recordedPayload is the payload as Core keeps it: every member encoded, nullables as null,
// recipients an array.
func recordedPayload(p any) (json.RawMessage, error) {
	if c, ok := p.(*proto.SubagentCoordinationPayload); ok {
		cp := *c
		if cp.Recipients == nil {
			cp.Recipients = []string{}
		}
		if mutation.On(mutation.SubagentRecipientsNull) && len(cp.Recipients) == 0 {
			cp.Recipients = nil
		}
		p = &cp
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return raw, err
	}
	return bendRecorded(p, raw)
}

// bendRecorded is the shape mutants' record: null (or zero) members of one frame type left out,
// or an Item's snapshot kept as a string.
func bendRecorded(p any, raw json.RawMessage) (json.RawMessage, error) {
	var point mutation.Point
	zero := false // zero values left out too, not only nulls
	only := ""
	switch p := p.(type) {
	case *proto.SubagentIdentityPayload:
		point = mutation.SubagentNullsDropped
	case *proto.SubagentLifecyclePayload:
		point, zero, only = mutation.SACoreZeroOccurredAtDropped, true, "occurred_at_ms"
	case *proto.SubagentTurnPayload:
		point = mutation.SACoreTurnNullsDropped
	case *proto.SubagentCoordinationPayload:
		point = mutation.SACoreCoordinationNullsDropped
	case *proto.SubagentItemPayload:
		if p.Position == 0 {
			point, zero, only = mutation.SACoreZeroPositionDropped, true, "position"
		}
		if mutation.On(mutation.SACoreItemPayloadStringified) {
			return withMember(raw, "payload", string(p.Payload))
		}
	}
	if point == "" || !mutation.On(point) {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		if only != "" && k != only {
			continue
		}
		if string(v) == "null" || zero && (string(v) == "0" || string(v) == `""`) {
			delete(m, k)
		}
	}
	return json.Marshal(m)
}

// withMember is raw with member k replaced by v.
func withMember(raw json.RawMessage, k string, v any) (json.RawMessage, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m[k] = v
	return json.Marshal(m)
}

// lenientSubagent is the decoding mutants' sub-agent frame: one that broke its member rules (a
// member left out, recipients null, a negative position) decoded leniently, missing members as zero
// values, instead of skipped. nil: no mutant takes it.
func lenientSubagent(typ string, raw json.RawMessage) any {
	var p any
	var point mutation.Point
	switch typ {
	case proto.TypeSubagentIdentity:
		p, point = &proto.SubagentIdentityPayload{}, mutation.SACoreIncompleteIdentityRecorded
	case proto.TypeSubagentLifecycle:
		p, point = &proto.SubagentLifecyclePayload{}, mutation.SACoreIncompleteLifecycleRecorded
	case proto.TypeSubagentTurn:
		p, point = &proto.SubagentTurnPayload{}, mutation.SACoreIncompleteTurnRecorded
	case proto.TypeSubagentItem:
		p, point = &proto.SubagentItemPayload{}, mutation.SACoreIncompleteItemRecorded
	case proto.TypeSubagentCoordination:
		p, point = &proto.SubagentCoordinationPayload{}, mutation.SACoreIncompleteCoordinationRecorded
	default:
		return nil
	}
	if json.Unmarshal(raw, p) != nil {
		return nil
	}
	if item, ok := p.(*proto.SubagentItemPayload); ok && item.Position < 0 {
		point = mutation.SACoreNegativePositionRecorded // the bound read as position >= -1
		if item.Position != -1 {
			return nil
		}
	}
	if !mutation.On(point) {
		return nil
	}
	return p
}

// subagentOrder is what a Run has reported so far: the native agents identified, and their Turns
// (true once terminal).
type subagentOrder struct {
	identified map[string]bool
	turns      map[[2]string]bool
}

// subagentOrderOf derives the order state from the frames recorded: a restarted Core has it too.
func subagentOrderOf(recorded []store.SubagentEvent) *subagentOrder {
	o := &subagentOrder{identified: map[string]bool{}, turns: map[[2]string]bool{}}
	for _, e := range recorded {
		var k struct {
			NativeID      string `json:"native_id"`
			TurnID        string `json:"turn_id"`
			CompletedAtMS *int64 `json:"completed_at_ms"`
		}
		if json.Unmarshal(e.Payload, &k) != nil {
			continue
		}
		switch e.Type {
		case proto.TypeSubagentIdentity:
			o.identified[k.NativeID] = true
		case proto.TypeSubagentTurn:
			o.turns[[2]string{k.NativeID, k.TurnID}] = k.CompletedAtMS != nil
		}
	}
	return o
}

// admit says why a frame is out of order after what was recorded (nil: it is in order).
func (o *subagentOrder) admit(p any) error {
	switch p := p.(type) {
	case *proto.SubagentIdentityPayload:
		if o.identified[p.NativeID] && !mutation.On(mutation.SACoreIdentityRepeated) {
			return fmt.Errorf("native_id %q already has its identity", p.NativeID)
		}
	case *proto.SubagentLifecyclePayload:
		if !o.identified[p.NativeID] && !mutation.On(mutation.SubagentOrderAccepted) {
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		}
	case *proto.SubagentTurnPayload:
		terminal, seen := o.turns[[2]string{p.NativeID, p.TurnID}]
		switch {
		case !o.identified[p.NativeID] && !mutation.On(mutation.SubagentOrderAccepted):
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		case terminal && !mutation.On(mutation.SACoreAfterTerminalRecorded):
			return fmt.Errorf("turn %q of %q already had its terminal snapshot", p.TurnID, p.NativeID)
		case !seen && p.CompletedAtMS != nil && !mutation.On(mutation.SACoreTurnNotRequiredActive):
			return fmt.Errorf("turn %q of %q was never active before its terminal snapshot", p.TurnID, p.NativeID)
		}
	case *proto.SubagentItemPayload:
		terminal, seen := o.turns[[2]string{p.NativeID, p.TurnID}]
		if !seen && !mutation.On(mutation.SACoreTurnNotRequiredActive) || terminal && !mutation.On(mutation.SACoreAfterTerminalRecorded) {
			return fmt.Errorf("turn %q of %q is not active", p.TurnID, p.NativeID)
		}
	}
	return nil
}
