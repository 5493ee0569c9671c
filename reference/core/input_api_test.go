package core_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// waitTurn waits until the Turn's record satisfies ok.
func waitTurn(t *testing.T, c *core.Core, id string, ok func(*store.Turn) bool) *store.Turn {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := c.Changed()
		tr, err := c.Turn(id)
		if err == nil && ok(tr) {
			return tr
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("the Turn never got there: %+v (%v)", tr, err)
		}
	}
}

// TestInputAPI: POST /api/v1/turns/{id}/input delivers active input under an idempotency key,
// and the Turn record shows each input's state and the cursor.
func TestInputAPI(t *testing.T) {
	c, base := serve(t, core.Config{})
	code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
	var dev core.DeviceResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil {
		t.Fatalf("register: %d %s", code, raw)
	}
	d := dial(t, base, "dev", dev.Credential, "preparation", "environment_none", "durable_input_receipts")
	waitCapabilities(t, c, "dev", "preparation", "durable_input_receipts")
	code, raw = call(t, http.MethodPost, base+"/api/v1/turns", core.TurnRequest{DeviceID: "dev", Environment: "none",
		Configuration: proto.PromptRequestPayload{AgentKind: "contract"}, Input: proto.TextInput("hi")})
	var started core.TurnResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &started) != nil {
		t.Fatalf("start: %d %s", code, raw)
	}
	url := base + "/api/v1/turns/" + started.TurnID + "/input"
	tr, _ := c.Turn(started.TurnID)
	d.toStarted(tr)
	waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Phase == store.PhaseRunning })

	var in store.Input
	code, raw = call(t, http.MethodPost, url, core.InputRequest{Key: "k1", Input: proto.TextInput("steer")})
	if code != http.StatusAccepted || json.Unmarshal(raw, &in) != nil || in.ID != "1" || in.State != store.InputSent {
		t.Fatalf("input: %d %s", code, raw)
	}
	steer := d.read()
	var p proto.PromptSteerPayload
	if steer.Type != proto.TypePromptSteer || steer.ID != started.RunID || json.Unmarshal(steer.Payload, &p) != nil || p.InputID != "1" || !p.DurableReceipt {
		t.Fatalf("expected prompt_steer for input 1 with durable_receipt, got %s %s", steer.Type, steer.Payload)
	}
	if code, raw := call(t, http.MethodPost, url, core.InputRequest{Key: "k1", Input: proto.TextInput("steer")}); code != http.StatusAccepted || json.Unmarshal(raw, &in) != nil || in.ID != "1" {
		t.Fatalf("the same key again must answer the same input: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPost, url, core.InputRequest{Key: "k1", Input: proto.TextInput("other")}); code != http.StatusConflict || !contains(raw, "input_conflict") {
		t.Fatalf("the key with other content: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPost, url, core.InputRequest{Key: " ", Input: proto.TextInput("x")}); code != http.StatusBadRequest {
		t.Fatalf("a blank key: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPost, url, core.InputRequest{Key: "k2", Input: proto.TextInput("second")}); code != http.StatusAccepted || json.Unmarshal(raw, &in) != nil || in.State != store.InputPending {
		t.Fatalf("a second input waits for the first one's receipt: %d %s", code, raw)
	}

	d.send(proto.TypePromptSteerAck, started.RunID, &proto.PromptSteerAckPayload{InputID: "1", Written: true})
	tr = waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Inputs[0].State == store.InputWritten })
	if tr.InputCursor != 0 || tr.Inputs[1].State != store.InputPending {
		t.Fatalf("written must not move the cursor: %+v", tr.Inputs)
	}
	d.send(proto.TypePromptSteerAck, started.RunID, &proto.PromptSteerAckPayload{InputID: "1", Accepted: true})
	if next := d.read(); next.Type != proto.TypePromptSteer || !contains(next.Payload, `"input_id":"2"`) {
		t.Fatalf("after accepted the second input goes out, got %s %s", next.Type, next.Payload)
	}
	d.send(proto.TypePromptSteerAck, started.RunID, &proto.PromptSteerAckPayload{InputID: "2", ErrorCode: proto.CodeRejected})
	tr = waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Outcome != nil })
	if tr.Outcome.Reason != "input_rejected" || tr.InputCursor != 1 || tr.Inputs[0].State != store.InputAccepted ||
		tr.Inputs[1].State != store.InputFailed || tr.Inputs[1].Code != proto.CodeRejected {
		t.Fatalf("outcome %+v, inputs %+v, cursor %d", tr.Outcome, tr.Inputs, tr.InputCursor)
	}
	if code, raw := call(t, http.MethodGet, base+"/api/v1/turns/"+started.TurnID, nil); code != 200 || !contains(raw, `"input_cursor":1`) || !contains(raw, `"state":"failed"`) {
		t.Fatalf("turn: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPost, url, core.InputRequest{Key: "k3", Input: proto.TextInput("late")}); code != http.StatusConflict || !contains(raw, "turn_finished") {
		t.Fatalf("input to a finished Turn: %d %s", code, raw)
	}
}

func contains(raw []byte, s string) bool { return strings.Contains(string(raw), s) }
