package core_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

var workspaceCaps = []string{"preparation", "local_environment", "workspace_read_preparation", "workspace_output_export"}

const envID = "7f1c2a52-8b0e-4c3e-9a51-3d2f6e8b9c10"

// finishedTurn starts a self-hosted Turn through the JSON API and plays it to done.
func finishedTurn(t *testing.T, c *core.Core, base string) (*daemon, string) {
	t.Helper()
	code, raw := call(t, http.MethodPost, base+"/api/v1/devices", core.DeviceRequest{DeviceID: "dev"})
	var dev core.DeviceResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &dev) != nil {
		t.Fatalf("register: %d %s", code, raw)
	}
	d := dial(t, base, "dev", dev.Credential, workspaceCaps...)
	d.ws.SetReadLimit(proto.MaxFrameBytes) // write chunks are 64 KiB (base64 in JSON)
	waitCapabilities(t, c, "dev", workspaceCaps...)
	code, raw = call(t, http.MethodPost, base+"/api/v1/turns", core.TurnRequest{DeviceID: "dev", Environment: store.EnvironmentSelfHosted,
		Configuration: proto.PromptRequestPayload{AgentKind: "contract", LocalEnvironment: &proto.LocalEnvironment{ID: envID, WorkspaceDirectory: "/workspace"}},
		Input:         proto.TextInput("hi")})
	var started core.TurnResponse
	if code != http.StatusCreated || json.Unmarshal(raw, &started) != nil {
		t.Fatalf("start: %d %s", code, raw)
	}
	tr, _ := c.Turn(started.TurnID)
	d.toStarted(tr)
	d.send(proto.TypeDone, tr.RunID, &proto.DonePayload{Content: "ok"})
	waitTurn(t, c, started.TurnID, func(tr *store.Turn) bool { return tr.Outcome != nil })
	return d, started.TurnID
}

// waitOp polls an operation's record (through the API) until it is settled.
func waitOp(t *testing.T, c *core.Core, base, id string) store.WorkspaceOp {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := c.Changed()
		code, raw := call(t, http.MethodGet, base+"/api/v1/workspace/"+id, nil)
		var op store.WorkspaceOp
		if code != http.StatusOK || json.Unmarshal(raw, &op) != nil {
			t.Fatalf("GET operation: %d %s", code, raw)
		}
		if op.State != store.WorkspacePending {
			return op
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("operation %s stayed pending", id)
		}
	}
}

func decode[T any](t *testing.T, env proto.Envelope) *T {
	t.Helper()
	var p T
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		t.Fatalf("%s: %v", env.Type, err)
	}
	return &p
}

// TestWorkspaceWriteByBytes: a write of more than one 64 KiB chunk through the JSON API reaches
// the Runtime as begin (size, SHA-256), chunks at the acknowledged offsets and commit; the bytes
// the Runtime received are the bytes the API was given. The key is idempotent; another body under
// it is a conflict; a second write while one is pending is refused inside Core.
func TestWorkspaceWriteByBytes(t *testing.T) {
	c, base := serve(t, core.Config{})
	d, turnID := finishedTurn(t, c, base)
	rng := rand.New(rand.NewPCG(17, 17))
	content := make([]byte, 150<<10)
	for i := range content {
		content[i] = byte(rng.UintN(256))
	}
	url := base + "/api/v1/turns/" + turnID + "/workspace/write"
	body := core.WorkspaceRequestBody{Key: "w1", Path: "data/blob.bin", Content: base64.StdEncoding.EncodeToString(content)}
	code, raw := call(t, http.MethodPost, url, body)
	var op store.WorkspaceOp
	if code != http.StatusAccepted || json.Unmarshal(raw, &op) != nil {
		t.Fatalf("write: %d %s", code, raw)
	}
	begin := d.read()
	bp := decode[proto.WorkspaceWritePayload](t, begin)
	sum := sha256.Sum256(content)
	if begin.ID != op.ID || bp.Step != proto.StepBegin || bp.SizeBytes != int64(len(content)) || bp.SHA256 != hex.EncodeToString(sum[:]) || bp.EnvironmentID != envID {
		t.Fatalf("begin: %s %s", begin.ID, begin.Payload)
	}
	if code, raw := call(t, http.MethodPost, url, core.WorkspaceRequestBody{Key: "w2", Path: "x", Content: "eA=="}); code != http.StatusConflict || !bytes.Contains(raw, []byte("write_in_progress")) {
		t.Fatalf("a second write while one is pending: %d %s", code, raw)
	}
	if code, raw := call(t, http.MethodPost, url, core.WorkspaceRequestBody{Key: "w1", Path: "x", Content: "eA=="}); code != http.StatusConflict || !bytes.Contains(raw, []byte("workspace_conflict")) {
		t.Fatalf("another body under the key: %d %s", code, raw)
	}
	d.send(proto.TypeWorkspaceWriteResult, op.ID, &proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReady})
	var received []byte
	for {
		env := d.read()
		p := decode[proto.WorkspaceWritePayload](t, env)
		if p.Step == proto.StepCommit {
			break
		}
		if p.Step != proto.StepChunk || p.Offset != int64(len(received)) || len(p.Data) > proto.TransferChunkBytes {
			t.Fatalf("chunk at %d: step %s offset %d, %d bytes", len(received), p.Step, p.Offset, len(p.Data))
		}
		received = append(received, p.Data...)
		d.send(proto.TypeWorkspaceWriteResult, op.ID, &proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReceived, Offset: int64(len(received))})
	}
	if !bytes.Equal(received, content) {
		t.Fatalf("the Runtime received %d bytes that differ from the %d the API was given", len(received), len(content))
	}
	d.send(proto.TypeWorkspaceWriteResult, op.ID, &proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeCompleted, SizeBytes: int64(len(content))})
	done := waitOp(t, c, base, op.ID)
	if done.State != "completed" || done.SizeBytes != int64(len(content)) {
		t.Fatalf("the write: %+v", done)
	}
	code, raw = call(t, http.MethodPost, url, body)
	var again store.WorkspaceOp
	if code != http.StatusAccepted || json.Unmarshal(raw, &again) != nil || again.ID != op.ID || again.State != "completed" {
		t.Fatalf("the same key and body again: %d %s", code, raw)
	}
}

// TestWorkspaceExportByBytes: an export through a read-only preparation; the archive the API hands
// out is byte for byte the tar stream the Runtime sent, and the preparation is released.
func TestWorkspaceExportByBytes(t *testing.T) {
	c, base := serve(t, core.Config{})
	d, turnID := finishedTurn(t, c, base)
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	out := bytes.Repeat([]byte("output line\n"), 12000)
	_ = tw.WriteHeader(&tar.Header{Name: "outputs/log.txt", Mode: 0o644, Size: int64(len(out))})
	_, _ = tw.Write(out)
	_ = tw.Close()

	code, raw := call(t, http.MethodPost, base+"/api/v1/turns/"+turnID+"/workspace/export", core.WorkspaceRequestBody{Key: "e1"})
	var op store.WorkspaceOp
	if code != http.StatusAccepted || json.Unmarshal(raw, &op) != nil {
		t.Fatalf("export: %d %s", code, raw)
	}
	prep := d.read()
	pp := decode[proto.ExecutionPreparePayload](t, prep)
	if prep.Type != proto.TypeExecutionPrepare || pp.CheckReadOnlyPreparation() != nil {
		t.Fatalf("the read-only preparation: %s %s", prep.Type, prep.Payload)
	}
	d.send(proto.TypePreparationStatus, prep.ID, &proto.PreparationStatusPayload{Handle: "ro", Revision: 1, State: proto.StateReady})
	begin := d.read()
	if bp := decode[proto.WorkspaceExportPayload](t, begin); bp.Step != proto.ExportBegin || bp.Handle != "ro" || bp.EnvironmentID != envID {
		t.Fatalf("begin: %s", begin.Payload)
	}
	sent := archive.Bytes()
	for off := 0; off < len(sent); {
		end := min(off+proto.TransferChunkBytes, len(sent))
		d.send(proto.TypeWorkspaceExportResult, op.ID, &proto.WorkspaceExportResultPayload{Outcome: proto.OutcomeChunk, Offset: int64(off), Data: sent[off:end]})
		off = end
		if next := decode[proto.WorkspaceExportPayload](t, d.read()); next.Step != proto.ExportNext || next.Offset != int64(off) {
			t.Fatalf("next after %d bytes: %+v", off, next)
		}
	}
	d.send(proto.TypeWorkspaceExportResult, op.ID, &proto.WorkspaceExportResultPayload{Outcome: proto.OutcomeCompleted, Offset: int64(len(sent))})
	if rel := d.read(); rel.Type != proto.TypeExecutionRelease || rel.ID != prep.ID {
		t.Fatalf("expected the release of the read-only preparation, got %s %s", rel.Type, rel.ID)
	}
	// The record settles once the Runtime confirms the release (PJ-14).
	d.send(proto.TypePreparationStatus, prep.ID, &proto.PreparationStatusPayload{Handle: "ro", Revision: 2, State: proto.StateReleased})
	if done := waitOp(t, c, base, op.ID); done.State != "completed" || done.DataBytes != int64(len(sent)) || done.Cleanup != "" {
		t.Fatalf("the export: %+v", done)
	}
	resp, err := http.Get(base + "/api/v1/workspace/" + op.ID + "/content")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	_, _ = got.ReadFrom(resp.Body)
	if resp.Header.Get("Content-Type") != "application/x-tar" || !bytes.Equal(got.Bytes(), sent) {
		t.Fatalf("the download: %s, %d bytes (want the %d the Runtime sent)", resp.Header.Get("Content-Type"), got.Len(), len(sent))
	}
	tr := tar.NewReader(&got)
	h, err := tr.Next()
	if err != nil || h.Name != "outputs/log.txt" {
		t.Fatalf("the archive: %v %v", h, err)
	}
}

// TestWorkspaceUnknownWriteSurvivesRestart: a write Core left pending when it stopped is unknown
// (write_unconfirmed) after a restart, and it blocks the Session's next write.
func TestWorkspaceUnknownWriteSurvivesRestart(t *testing.T) {
	file := t.TempDir() + "/core.db"
	c, base := serve(t, core.Config{DataFile: file})
	d, turnID := finishedTurn(t, c, base)
	code, raw := call(t, http.MethodPost, base+"/api/v1/turns/"+turnID+"/workspace/write", core.WorkspaceRequestBody{Key: "w1", Path: "a.txt", Content: "aGk="})
	var op store.WorkspaceOp
	if code != http.StatusAccepted || json.Unmarshal(raw, &op) != nil {
		t.Fatalf("write: %d %s", code, raw)
	}
	_ = d.read() // begin: nothing answers it
	go func() {  // answer Core's close handshake
		for {
			if _, _, err := d.ws.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	_ = c.Close()
	c2, _ := serve(t, core.Config{DataFile: file})
	got, err := c2.WorkspaceOp(op.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Settled by the restart (its detail), not by the end of the connection Close caused: the
	// runners stop before the connections close, as at a process exit.
	want := store.WorkspaceOp{State: "unknown", ErrorCode: proto.CodeWriteUnconfirmed, Detail: "Core restarted before the operation's result"}
	if diff := cmp.Diff(want, store.WorkspaceOp{State: got.State, ErrorCode: got.ErrorCode, Detail: got.Detail}); diff != "" {
		t.Fatalf("after the restart (-want +got):\n%s", diff)
	}
}
