package core_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

const (
	prepEnv  = "11111111-1111-4111-8111-111111111111"
	prepSess = "22222222-2222-4222-8222-222222222222"
)

// TestPreparationAPI: a preparation is validated with the wire's validators at the API (a bad
// path is a 400 naming the operation and the member, and nothing is stored), read back, and run
// on the device's next connection; its result is visible per connection.
func TestPreparationAPI(t *testing.T) {
	c, base := serve(t, core.Config{})
	cred, err := c.RegisterDevice("dev", "")
	if err != nil {
		t.Fatal(err)
	}
	url := base + "/api/v1/devices/dev/preparation"
	bad := store.Preparation{EnvironmentID: prepEnv, SessionID: prepSess, Operations: []store.PreparationOperation{
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/../etc/passwd"}, Content: []byte("x")}}}
	code, raw := call(t, http.MethodPut, url, bad)
	if code != http.StatusBadRequest || !strings.Contains(string(raw), "operations[0]: runtime_prepare.begin.file.path") {
		t.Fatalf("a path outside /workspace: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPut, base+"/api/v1/devices/nobody/preparation", bad); code != http.StatusNotFound {
		t.Fatalf("an unknown device: %d %s", code, raw)
	}
	good := store.Preparation{EnvironmentID: prepEnv, SessionID: prepSess, Operations: []store.PreparationOperation{
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/a.txt"}, Content: []byte("hello")},
		{Action: proto.ActionInitialize, Initialization: &proto.RuntimeInitialization{Action: proto.InitSetup, Command: "make deps"}}}}
	if code, raw := call(t, http.MethodPut, url, good); code != http.StatusOK {
		t.Fatalf("put: %d %s", code, raw)
	}
	var view core.PreparationView
	code, raw = call(t, http.MethodGet, url, nil)
	if code != http.StatusOK || json.Unmarshal(raw, &view) != nil {
		t.Fatalf("get: %d %s", code, raw)
	}
	good.Revision = 1 // the first preparation set for the device
	if diff := cmp.Diff(&good, view.Preparation); diff != "" || view.Last != nil {
		t.Fatalf("read back (-put +got):\n%s\nlast: %+v", diff, view.Last)
	}

	d := dial(t, base, "dev", cred, "preparation", "environment_none")
	begin := d.read()
	var p proto.RuntimePreparePayload
	if begin.Type != proto.TypeRuntimePrepare || json.Unmarshal(begin.Payload, &p) != nil || p.Step != proto.StepBegin || p.SizeBytes != 5 {
		t.Fatalf("first frame: %s %s", begin.Type, begin.Payload)
	}
	d.send(proto.TypeRuntimePrepareResult, begin.ID, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReady})
	if chunk := d.read(); chunk.ID != begin.ID || !strings.Contains(string(chunk.Payload), `"chunk"`) {
		t.Fatalf("chunk: %s", chunk.Payload)
	}
	d.send(proto.TypeRuntimePrepareResult, begin.ID, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReceived, Offset: 5})
	d.read() // commit
	d.send(proto.TypeRuntimePrepareResult, begin.ID, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeCompleted, SizeBytes: 5})
	second := d.read()
	if second.ID == begin.ID {
		t.Fatalf("the second operation reused the transfer ID %s", begin.ID)
	}
	d.send(proto.TypeRuntimePrepareResult, second.ID, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReady})
	d.read() // commit
	d.send(proto.TypeRuntimePrepareResult, second.ID, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeFailed, ErrorCode: proto.CodeRuntimePreparationFailed, ExitCode: 42})

	want := store.PreparationResult{State: store.PreparationFailed, Operation: 1, TransferID: second.ID, Outcome: proto.OutcomeFailed,
		ErrorCode: proto.CodeRuntimePreparationFailed, ExitCode: 42}
	timeout := time.After(5 * time.Second)
	for {
		changed := c.Changed()
		if v, err := c.Preparation("dev"); err == nil && v.Last != nil && v.Last.State != store.PreparationRunning {
			break
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatal("the preparation never ended")
		}
	}
	code, raw = call(t, http.MethodGet, url, nil)
	view = core.PreparationView{}
	if code != http.StatusOK || json.Unmarshal(raw, &view) != nil || view.Last == nil {
		t.Fatalf("get: %d %s", code, raw)
	}
	if diff := cmp.Diff(want, *view.Last, cmpopts.IgnoreFields(store.PreparationResult{}, "RunID", "Connection", "StartedAt", "EndedAt", "Detail")); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	journal, err := c.Store().Journal(view.Last.JournalKey())
	if err != nil || len(journal) < 8 {
		t.Fatalf("the preparation's journal: %v %d events", err, len(journal))
	}

	// A preparation set again is what the next connection sends: the Core caches the built
	// operations per revision, never past a change.
	_ = d.ws.CloseNow()
	changed := store.Preparation{EnvironmentID: prepEnv, SessionID: prepSess, Operations: []store.PreparationOperation{
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/b.txt"}, Content: []byte("changed body")}}}
	if code, raw := call(t, http.MethodPut, url, changed); code != http.StatusOK {
		t.Fatalf("put again: %d %s", code, raw)
	}
	d = dial(t, base, "dev", cred, "preparation", "environment_none")
	begin = d.read()
	p = proto.RuntimePreparePayload{}
	if json.Unmarshal(begin.Payload, &p) != nil || p.File == nil || p.File.Path != "/workspace/b.txt" || p.SizeBytes != int64(len("changed body")) {
		t.Fatalf("the next connection's begin after the preparation changed: %s", begin.Payload)
	}
	_ = d.ws.CloseNow()

	if code, _ := call(t, http.MethodDelete, url, nil); code != http.StatusNoContent {
		t.Fatalf("delete: %d", code)
	}
}

// TestAPreparationIsSentAsItWasSet: Core keeps its own copy of a preparation set through the Go
// API, built once when it is set (the connections reuse those operations), so a caller that
// reuses its buffer afterwards changes nothing on the wire.
func TestAPreparationIsSentAsItWasSet(t *testing.T) {
	c, base := serve(t, core.Config{})
	cred, err := c.RegisterDevice("dev", "")
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("hello")
	if err := c.SetPreparation("dev", &store.Preparation{EnvironmentID: prepEnv, SessionID: prepSess, Operations: []store.PreparationOperation{
		{Action: proto.ActionFile, File: &proto.PreparedFile{Path: "/workspace/a.txt"}, Content: body}}}); err != nil {
		t.Fatal(err)
	}
	copy(body, "HELLO")

	d := dial(t, base, "dev", cred, "preparation", "environment_none")
	begin := d.read()
	var p proto.RuntimePreparePayload
	if err := json.Unmarshal(begin.Payload, &p); err != nil || p.Step != proto.StepBegin {
		t.Fatalf("first frame: %s %s", begin.Type, begin.Payload)
	}
	// sha256("hello")
	if want := "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"; p.SHA256 != want {
		t.Fatalf("begin declares sha256 %s, want the body as set (%s)", p.SHA256, want)
	}
	d.send(proto.TypeRuntimePrepareResult, begin.ID, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReady})
	chunk := d.read()
	var ch proto.RuntimePreparePayload
	if err := json.Unmarshal(chunk.Payload, &ch); err != nil || string(ch.Data) != "hello" {
		t.Fatalf("the chunk carries %q (%v), want the body as set", ch.Data, err)
	}
}
