package daemon

import (
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// subagentOrder is SA-06 as docs/contract-harness.md §10.2 tabulates it: each frame in turn, and
// whether it may be sent after those sent before it.
func TestSubagentOrder(t *testing.T) {
	done := int64(9)
	id := func(n string) any { return &proto.SubagentIdentityPayload{NativeID: n} }
	active := func(n, tu string) any { return &proto.SubagentTurnPayload{NativeID: n, TurnID: tu} }
	terminal := func(n, tu string) any {
		return &proto.SubagentTurnPayload{NativeID: n, TurnID: tu, CompletedAtMS: &done}
	}
	item := func(n, tu string) any { return &proto.SubagentItemPayload{NativeID: n, TurnID: tu} }
	steps := []struct {
		name string
		p    any
		ok   bool
	}{
		{"lifecycle before identity", &proto.SubagentLifecyclePayload{NativeID: "a"}, false},
		{"turn before identity", active("a", "t"), false},
		{"coordination, unordered", &proto.SubagentCoordinationPayload{ID: "c"}, true},
		{"identity", id("a"), true},
		{"identity again", id("a"), false},
		{"lifecycle", &proto.SubagentLifecyclePayload{NativeID: "a"}, true},
		{"item before its turn", item("a", "t"), false},
		{"terminal before active", terminal("a", "t"), false},
		{"active", active("a", "t"), true},
		{"active update", active("a", "t"), true},
		{"item", item("a", "t"), true},
		{"item of another turn", item("a", "u"), false},
		{"terminal", terminal("a", "t"), true},
		{"item after terminal", item("a", "t"), false},
		{"turn after terminal", active("a", "t"), false},
		{"another agent's turn", active("b", "t"), false},
	}
	var o subagentOrder
	for _, st := range steps {
		if err := o.admit(st.p); (err == nil) != st.ok {
			t.Errorf("%s: admit = %v, want in order %v", st.name, err, st.ok)
		}
	}
}
