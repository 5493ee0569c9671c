package core_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
)

func call(t *testing.T, method, url string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, url, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func TestJSONAPI(t *testing.T) {
	c, base := serve(t, core.Config{})
	code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
	var dev core.DeviceResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil || dev.Credential == "" {
		t.Fatalf("register: %d %s", code, raw)
	}
	if code, _ := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"}); code != http.StatusConflict {
		t.Fatalf("a second registration: %d", code)
	}
	if code, raw := call(t, http.MethodGet, base+"/api/v1/devices/dev", nil); code != 200 || strings.Contains(string(raw), dev.Credential) || !strings.Contains(string(raw), `"online":false`) {
		t.Fatalf("device: %d %s", code, raw)
	}
	turn := core.TurnRequest{DeviceID: "dev", Environment: "none", Configuration: proto.PromptRequestPayload{AgentKind: "contract"}, Input: proto.TextInput("hi")}
	if code, raw := call(t, http.MethodPost, base+"/api/v1/turns", turn); code != http.StatusConflict || !strings.Contains(string(raw), "device_offline") {
		t.Fatalf("offline: %d %s", code, raw)
	}

	d := dial(t, base, "dev", dev.Credential, "environment_none")
	waitCapabilities(t, c, "dev")
	code, raw = call(t, http.MethodPost, base+"/api/v1/turns", turn)
	var denied core.APIError
	if code != http.StatusUnprocessableEntity || json.Unmarshal(raw, &denied) != nil || denied.Error != "admission_denied" || len(denied.Missing) != 1 || denied.Missing[0] != "preparation" {
		t.Fatalf("denied: %d %s", code, raw)
	}
	bad := turn
	bad.Input = nil
	if code, raw := call(t, http.MethodPost, base+"/api/v1/turns", bad); code != http.StatusBadRequest {
		t.Fatalf("invalid: %d %s", code, raw)
	}
	_ = d

	d2 := dial(t, base, "dev", dev.Credential, "preparation", "environment_none")
	waitCapabilities(t, c, "dev", "preparation")
	code, raw = call(t, http.MethodPost, base+"/api/v1/turns", turn)
	var started core.TurnResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &started) != nil {
		t.Fatalf("start: %d %s", code, raw)
	}
	tr, _ := c.Turn(started.TurnID)
	d2.toStarted(tr)
	if code, _ := call(t, http.MethodPost, base+"/api/v1/turns/"+started.TurnID+"/cancel", nil); code != http.StatusAccepted {
		t.Fatalf("cancel: %d", code)
	}
	if cancel := d2.read(); cancel.Type != proto.TypePromptCancel || cancel.ID != started.RunID {
		t.Fatalf("expected prompt_cancel for the run, got %+v", cancel)
	}
	d2.send(proto.TypeInteractionDecisionAck, started.RunID, &proto.InteractionDecisionAckPayload{DeliveryID: execution.CancelDeliveryID(started.RunID),
		Applied: true, Outcome: &proto.DonePayload{Content: "partial"}})
	for {
		ch := c.Changed()
		if tr, _ := c.Turn(started.TurnID); tr.Outcome != nil {
			if tr.Outcome.Status != proto.TurnCancelled || tr.Outcome.Content != "partial" {
				t.Fatalf("outcome %+v", tr.Outcome)
			}
			break
		}
		<-ch
	}
	if code, raw := call(t, http.MethodGet, base+"/api/v1/turns/"+started.TurnID, nil); code != 200 || !strings.Contains(string(raw), `"status":"cancelled"`) {
		t.Fatalf("turn: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodGet, base+"/api/v1/turns/"+started.TurnID+"/journal", nil); code != 200 || !strings.Contains(string(raw), "interaction_decision_ack") {
		t.Fatalf("journal: %d %s", code, raw)
	}
	if code, _ := call(t, http.MethodPost, base+"/api/v1/turns/"+started.TurnID+"/cancel", nil); code != http.StatusConflict {
		t.Fatalf("cancel a finished Turn: %d", code)
	}
	if code, _ := call(t, http.MethodGet, base+"/api/v1/turns/nope", nil); code != http.StatusNotFound {
		t.Fatalf("unknown turn: %d", code)
	}
}
