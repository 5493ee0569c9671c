package core_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// waitSuspension polls a suspension record (through the API) until it is settled.
func waitSuspension(t *testing.T, c *core.Core, base, id string) store.Suspension {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := c.Changed()
		code, raw := call(t, http.MethodGet, base+"/api/v1/suspensions/"+id, nil)
		var s store.Suspension
		if code != http.StatusOK || json.Unmarshal(raw, &s) != nil {
			t.Fatalf("GET suspension: %d %s", code, raw)
		}
		if s.State != "pending" {
			return s
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("suspension %s stayed pending", id)
		}
	}
}

// An accepted quiesce fences the device: a Turn started meanwhile waits, unclaimed, and is
// claimed on the new connection once the resume there is accepted. The resume names the same
// pair and is refused inside Core on the connection that accepted the quiesce.
func TestSuspendFencesUntilResumed(t *testing.T) {
	c, base := serve(t, core.Config{})
	code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
	var dev core.DeviceResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil {
		t.Fatalf("register: %d %s", code, raw)
	}
	d := dial(t, base, "dev", dev.Credential, workspaceCaps...)
	waitCapabilities(t, c, "dev", workspaceCaps...)

	code, raw = call(t, http.MethodPost, base+"/api/v1/devices/dev/suspend", core.SuspensionRequestBody{Key: "s1", EnvironmentID: envID})
	var q store.Suspension
	if code != http.StatusAccepted || json.Unmarshal(raw, &q) != nil {
		t.Fatalf("suspend: %d %s", code, raw)
	}
	frame := d.read()
	var p proto.EnvironmentSuspendPayload
	if err := json.Unmarshal(frame.Payload, &p); err != nil {
		t.Fatal(err)
	}
	want := proto.EnvironmentSuspendPayload{EnvironmentID: envID, SuspendID: q.SuspendID}
	if frame.Type != proto.TypeEnvironmentQuiesce || frame.ID != q.ID || p != want {
		t.Fatalf("sent %s %s %s", frame.Type, frame.ID, frame.Payload)
	}
	d.send(proto.TypeEnvironmentQuiesced, q.ID, &proto.EnvironmentSuspendResultPayload{EnvironmentID: envID, SuspendID: q.SuspendID, Accepted: true})
	if got := waitSuspension(t, c, base, q.ID); got.State != "accepted" {
		t.Fatalf("quiesce %s %s: %s", got.State, got.ErrorCode, got.Detail)
	}

	code, raw = call(t, http.MethodPost, base+"/api/v1/turns", core.TurnRequest{DeviceID: "dev", Environment: store.EnvironmentSelfHosted,
		Configuration: proto.PromptRequestPayload{AgentKind: "contract", LocalEnvironment: &proto.LocalEnvironment{ID: envID, WorkspaceDirectory: "/workspace"}},
		Input:         proto.TextInput("queued")})
	var started core.TurnResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &started) != nil {
		t.Fatalf("start: %d %s", code, raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net, not a wait
	defer cancel()
	if err := c.Quiesce(ctx); err != nil {
		t.Fatal(err)
	}
	if tr, _ := c.Turn(started.TurnID); tr.Phase != store.PhaseQueued {
		t.Fatalf("the Turn on a suspended device is in phase %s, want queued", tr.Phase)
	}
	code, raw = call(t, http.MethodPost, base+"/api/v1/devices/dev/resume", core.SuspensionRequestBody{Key: "r0", Attempt: q.ID})
	if diff := cmp.Diff(http.StatusConflict, code); diff != "" || !json.Valid(raw) {
		t.Fatalf("resume on the same connection (-want +got):\n%s%s", diff, raw)
	}
	var refusal core.APIError
	_ = json.Unmarshal(raw, &refusal)
	if refusal.Error != "resume_needs_new_connection" {
		t.Fatalf("resume on the same connection refused with %s", raw)
	}

	// The host wakes the Runtime: a new connection, where the resume goes.
	// It declares steering besides, so the snapshot tells when Core has taken it.
	d2 := dial(t, base, "dev", dev.Credential, append([]string{"steering"}, workspaceCaps...)...)
	waitCapabilities(t, c, "dev", "steering")
	code, raw = call(t, http.MethodPost, base+"/api/v1/devices/dev/resume", core.SuspensionRequestBody{Key: "r1", Attempt: q.ID})
	var r store.Suspension
	if code != http.StatusAccepted || json.Unmarshal(raw, &r) != nil {
		t.Fatalf("resume: %d %s", code, raw)
	}
	frame = d2.read()
	if err := json.Unmarshal(frame.Payload, &p); err != nil {
		t.Fatal(err)
	}
	if frame.Type != proto.TypeEnvironmentResume || frame.ID != r.ID || p != want {
		t.Fatalf("sent %s %s %s", frame.Type, frame.ID, frame.Payload)
	}
	d2.send(proto.TypeEnvironmentResumed, r.ID, &proto.EnvironmentSuspendResultPayload{EnvironmentID: envID, SuspendID: q.SuspendID, Accepted: true})
	if got := waitSuspension(t, c, base, r.ID); got.State != "accepted" {
		t.Fatalf("resume %s %s: %s", got.State, got.ErrorCode, got.Detail)
	}
	// The fence lifted: the queued Turn is claimed on the new connection.
	if prep := d2.read(); prep.Type != proto.TypeExecutionPrepare {
		t.Fatalf("after the resume Core sent %s, want execution_prepare", prep.Type)
	}
}

// TestSuspensionPendingAtRestartIsUnknown: a quiesce Core left pending when it stopped is unknown
// after a restart (never accepted, never resent), and the device stays fenced.
func TestSuspensionPendingAtRestartIsUnknown(t *testing.T) {
	file := t.TempDir() + "/core.db"
	c, base := serve(t, core.Config{DataFile: file})
	code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
	var dev core.DeviceResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil {
		t.Fatalf("register: %d %s", code, raw)
	}
	d := dial(t, base, "dev", dev.Credential, workspaceCaps...)
	waitCapabilities(t, c, "dev", workspaceCaps...)
	code, raw = call(t, http.MethodPost, base+"/api/v1/devices/dev/suspend", core.SuspensionRequestBody{Key: "s1", EnvironmentID: envID})
	var q store.Suspension
	if code != http.StatusAccepted || json.Unmarshal(raw, &q) != nil {
		t.Fatalf("suspend: %d %s", code, raw)
	}
	_ = d.read() // the quiesce: nothing answers it
	go func() {  // answer Core's close handshake
		for {
			if _, _, err := d.ws.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	_ = c.Close()
	c2, _ := serve(t, core.Config{DataFile: file})
	got, err := c2.Suspension(q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(store.Suspension{State: "unknown", ErrorCode: "suspension_unconfirmed"}, store.Suspension{State: got.State, ErrorCode: got.ErrorCode}); diff != "" {
		t.Fatalf("after the restart (-want +got):\n%s", diff)
	}
	if s, _ := c2.Suspensions("dev"); !s.Suspended || s.Attempt != q.ID {
		t.Fatalf("after the restart the device is suspended=%v by %q, want fenced by %s", s.Suspended, s.Attempt, q.ID)
	}
}
