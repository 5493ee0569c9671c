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
	if err := subagentOrderOf(s.Subagents).admit(sa.Payload); err != nil && !mutation.On(mutation.SubagentOrderAccepted) {
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
	if err != nil || !mutation.On(mutation.SubagentNullsDropped) {
		return raw, err
	}
	return withoutNulls(raw)
}

// withoutNulls is the nulls-dropped mutant's record: every null member left out.
func withoutNulls(raw json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return json.Marshal(m)
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
		if o.identified[p.NativeID] {
			return fmt.Errorf("native_id %q already has its identity", p.NativeID)
		}
	case *proto.SubagentLifecyclePayload:
		if !o.identified[p.NativeID] {
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		}
	case *proto.SubagentTurnPayload:
		terminal, seen := o.turns[[2]string{p.NativeID, p.TurnID}]
		switch {
		case !o.identified[p.NativeID]:
			return fmt.Errorf("native_id %q has no identity yet", p.NativeID)
		case terminal:
			return fmt.Errorf("turn %q of %q already had its terminal snapshot", p.TurnID, p.NativeID)
		case !seen && p.CompletedAtMS != nil:
			return fmt.Errorf("turn %q of %q was never active before its terminal snapshot", p.TurnID, p.NativeID)
		}
	case *proto.SubagentItemPayload:
		if terminal, seen := o.turns[[2]string{p.NativeID, p.TurnID}]; !seen || terminal {
			return fmt.Errorf("turn %q of %q is not active", p.TurnID, p.NativeID)
		}
	}
	return nil
}
