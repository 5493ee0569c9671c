package core_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// TestInteractionAPI: a Turn's permission requests are listed and answered through the API under
// an idempotency key; the decision goes out with Core's delivery_id; permission_cancel detaches a
// request, and a later answer to it is refused with nothing sent.
func TestInteractionAPI(t *testing.T) {
	c, base := serve(t, core.Config{})
	code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
	var dev core.DeviceResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil {
		t.Fatalf("register: %d %s", code, raw)
	}
	d := dial(t, base, "dev", dev.Credential, "preparation", "environment_none", "permissions")
	waitCapabilities(t, c, "dev", "preparation", "permissions")
	code, raw = call(t, http.MethodPost, base+"/api/v1/turns", core.TurnRequest{DeviceID: "dev", Environment: "none",
		Configuration: proto.PromptRequestPayload{AgentKind: "contract"}, Input: proto.TextInput("hi")})
	var started core.TurnResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &started) != nil {
		t.Fatalf("start: %d %s", code, raw)
	}
	tr, _ := c.Turn(started.TurnID)
	d.toStarted(tr)
	waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Phase == store.PhaseRunning })

	d.send(proto.TypePermissionRequest, started.RunID, &proto.PermissionRequestPayload{RequestID: "p1", Tool: "shell", Title: "ls"})
	d.send(proto.TypePermissionRequest, started.RunID, &proto.PermissionRequestPayload{RequestID: "p2", Tool: "shell", Title: "rm"})
	waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return len(tr.Interactions) == 2 })
	list := base + "/api/v1/turns/" + started.TurnID + "/interactions"
	if code, raw := call(t, http.MethodGet, list, nil); code != http.StatusOK || !contains(raw, `"id":"p2"`) || !contains(raw, `"state":"pending"`) {
		t.Fatalf("list: %d %s", code, raw)
	}

	answer := core.AnswerRequest{Key: "k1", Answer: json.RawMessage(`{"approved":true,"updated_input":{"cmd":"ls -l"}}`)}
	var in store.Interaction
	if code, raw := call(t, http.MethodPost, list+"/p1", answer); code != http.StatusAccepted || json.Unmarshal(raw, &in) != nil || in.State != store.InteractionSent {
		t.Fatalf("answer: %d %s", code, raw)
	}
	dec := d.read()
	var p proto.PermissionDecisionPayload
	if dec.Type != proto.TypePermissionDecision || dec.ID != "p1" || json.Unmarshal(dec.Payload, &p) != nil || p.DeliveryID != in.DeliveryID || !p.Approved {
		t.Fatalf("expected permission_decision p1 with delivery_id %s, got %s %s %s", in.DeliveryID, dec.Type, dec.ID, dec.Payload)
	}
	if code, raw := call(t, http.MethodPost, list+"/p1", answer); code != http.StatusAccepted {
		t.Fatalf("the same key and answer again answers the same decision: %d %s", code, raw)
	}
	other := core.AnswerRequest{Key: "k1", Answer: json.RawMessage(`{"approved":false}`)}
	if code, raw := call(t, http.MethodPost, list+"/p1", other); code != http.StatusConflict || !contains(raw, "answer_conflict") {
		t.Fatalf("the key with another answer: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPost, list+"/p1", core.AnswerRequest{Key: "k1", Answer: json.RawMessage(`{"approved":true,"extra":1}`)}); code != http.StatusBadRequest {
		t.Fatalf("an unknown member: %d %s", code, raw)
	}

	// p2 is withdrawn: a later answer is refused, and nothing goes out.
	d.send(proto.TypePermissionCancel, "p2", nil)
	waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Interactions[1].State == store.InteractionDetached })
	if code, raw := call(t, http.MethodPost, list+"/p2", core.AnswerRequest{Key: "k2", Answer: json.RawMessage(`{"approved":true}`)}); code != http.StatusConflict || !contains(raw, "not_pending") {
		t.Fatalf("an answer to a withdrawn request: %d %s", code, raw)
	}
	d.send(proto.TypeInteractionDecisionAck, "p1", &proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID, Applied: true})
	waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Interactions[0].State == store.InteractionApplied })
	d.send(proto.TypeDone, started.RunID, &proto.DonePayload{Content: "ok"})
	tr = waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Outcome != nil })
	if tr.Outcome.Status != proto.TurnCompleted {
		t.Fatalf("outcome %+v", tr.Outcome)
	}
	if code, raw := call(t, http.MethodPost, list+"/p9", answer); code != http.StatusConflict || !contains(raw, "turn_finished") {
		t.Fatalf("an answer to a finished Turn: %d %s", code, raw)
	}
}
