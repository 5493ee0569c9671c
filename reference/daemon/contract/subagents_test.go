package contract_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
)

// docs/contract-harness.md §10.1: a sub-agent step is the frame's payload as written, every member
// spelt; the Turn emits it in script order whatever the order.

const identity = `{"native_id":"a2","parent_native_id":"a1","native_created_at":1,"parent_turn_id":"t0","source_item_id":"i0","name":null,"instructions":null}`

func TestSubagentStepsRejectWhatTheWireCannotCarry(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, tc := range []struct{ step, want string }{
		{`{"subagent_identity":{"native_id":"a2","parent_native_id":"a1","native_created_at":1,"parent_turn_id":"t0","source_item_id":"i0","name":null}}`, "subagent_identity.instructions"},
		{`{"subagent_coordination":{"id":"c","kind":"k","status":"s","actor_id":"a","recipients":null,"text":null,"model":null,"reasoning_effort":null}}`, "subagent_coordination.recipients: must not be null"},
		{`{"subagent_item":{"native_id":"a2","turn_id":"t","item_id":"i","position":-1,"kind":"k","payload":{}}}`, "position: must not be negative"},
		{`{"subagent_turn":{"native_id":"","turn_id":"t","status":"s","created_at_ms":1,"started_at_ms":null,"completed_at_ms":null,"usage":null}}`, "native_id"},
		{`{"subagent_identity":` + identity + `,"delta":"x"}`, "needs exactly one member, has 2"},
	} {
		_, err := contract.Parse(json.RawMessage(`{"contract":{"turn":{"events":[` + tc.step + `]}}}`))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("step %s: error %v, want one containing %q", tc.step, err, tc.want)
		}
	}
}

func TestSubagentStepsAreEmittedInScriptOrder(t *testing.T) {
	defer goleak.VerifyNone(t)
	item := `{"native_id":"a2","turn_id":"t1","item_id":"i1","position":0,"kind":"output_message","payload":{"text":"x"}}`
	coord := `{"id":"c1","kind":"spawn","status":"pending","actor_id":"a1","recipients":[],"text":null,"model":null,"reasoning_effort":null}`
	cfg := &proto.PromptRequestPayload{AgentKind: contract.Kind, AgentOptions: json.RawMessage(
		`{"contract":{"turn":{"events":[{"subagent_item":` + item + `},{"subagent_identity":` + identity + `},{"subagent_coordination":` + coord + `}]}}}`)}
	h := contract.New(clock.NewFake(), proto.AgentKindCapabilities{})
	ex, err := h.NewExecutor(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := ex.Start(context.Background(), "run-1", proto.TextInput("hi"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev := range turn.Events() {
		raw, err := json.Marshal(ev.Payload)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Type+" "+string(raw))
	}
	want := []string{"subagent_item " + item, "subagent_identity " + identity, "subagent_coordination " + coord}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("emitted events (-want +got):\n%s", diff)
	}
}
