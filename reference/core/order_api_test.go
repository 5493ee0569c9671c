package core_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// TestDecisionAckBeforeDoneIsApplied: frames of one connection are ordered (runtime-protocol:
// one WebSocket, envelopes in order), so an interaction_decision_ack the Runtime sends before the
// Run's done settles its decision as the ack says, even when both arrive back to back and the
// runner wakes only after both were routed (they reach it on two subscriptions).
func TestDecisionAckBeforeDoneIsApplied(t *testing.T) {
	for _, kind := range []string{"permission", "function"} {
		t.Run(kind, func(t *testing.T) {
			c, base := serve(t, core.Config{})
			code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
			var dev core.DeviceResponse
			if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil {
				t.Fatalf("register: %d %s", code, raw)
			}
			d := dial(t, base, "dev", dev.Credential, "preparation", "environment_none", "permissions", "function_tools")
			waitCapabilities(t, c, "dev", "preparation", "permissions", "function_tools")
			cfg := proto.PromptRequestPayload{AgentKind: "contract"}
			if kind == "function" {
				cfg.FunctionTools = []proto.FunctionTool{{Name: "lookup", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}}
			}
			code, raw = call(t, http.MethodPost, base+"/api/v1/turns", core.TurnRequest{DeviceID: "dev", Environment: "none",
				Configuration: cfg, Input: proto.TextInput("hi")})
			var started core.TurnResponse
			if code != http.StatusCreated || json.Unmarshal(raw, &started) != nil {
				t.Fatalf("start: %d %s", code, raw)
			}
			tr, _ := c.Turn(started.TurnID)
			d.toStarted(tr)
			waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Phase == store.PhaseRunning })

			id, answer := "p1", json.RawMessage(`{"approved":true}`)
			if kind == "function" {
				id, answer = "call-1", json.RawMessage(`{"success":true,"content":[{"type":"input_text","text":"42"}]}`)
				d.send(proto.TypeFunctionCall, started.RunID, &proto.FunctionCallPayload{CallID: id, Name: "lookup", Arguments: json.RawMessage(`{}`)})
			} else {
				d.send(proto.TypePermissionRequest, started.RunID, &proto.PermissionRequestPayload{RequestID: id, Tool: "shell", Title: "ls"})
			}
			waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return len(tr.Interactions) == 1 })
			list := base + "/api/v1/turns/" + started.TurnID + "/interactions"
			var in store.Interaction
			if code, raw := call(t, http.MethodPost, list+"/"+id, core.AnswerRequest{Key: "k1", Answer: answer}); code != http.StatusAccepted || json.Unmarshal(raw, &in) != nil {
				t.Fatalf("answer: %d %s", code, raw)
			}
			if dec := d.read(); dec.Type != proto.TypePermissionDecision && dec.Type != proto.TypeFunctionResult {
				t.Fatalf("expected the decision, got %s %s", dec.Type, dec.Payload)
			}
			ackID := id
			if kind == "function" {
				ackID = started.RunID
			}
			// Back to back: the ack, then done.
			d.send(proto.TypeInteractionDecisionAck, ackID, &proto.InteractionDecisionAckPayload{DeliveryID: in.DeliveryID, Applied: true})
			d.send(proto.TypeDone, started.RunID, &proto.DonePayload{Content: "ok"})
			tr = waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Outcome != nil })
			if got := tr.Interactions[0]; got.State != store.InteractionApplied {
				t.Fatalf("the ack arrived before done, so the decision is applied; recorded %s %s (outcome %+v)", got.State, got.Code, tr.Outcome)
			}
			if tr.Outcome.Status != proto.TurnCompleted {
				t.Fatalf("outcome %+v", tr.Outcome)
			}
		})
	}
}
