package daemon_test

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

const (
	wsEnv     = "11111111-1111-4111-8111-111111111111"
	wsSession = "22222222-2222-4222-8222-222222222222"
)

func mutationID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// result reads up to the next frame of typ for id and decodes its payload into T.
func result[T any](s *coreStub, typ, id string) *T {
	s.tb.Helper()
	f := s.until(typ+" "+id, func(env proto.Envelope) bool { return env.Type == typ && env.ID == id })
	var p T
	if err := json.Unmarshal(f.env.Payload, &p); err != nil {
		s.tb.Fatalf("%s %s: %v", typ, f.env.Payload, err)
	}
	return &p
}

func (s *coreStub) write(id, path string, body []byte) *proto.WorkspaceWriteResultPayload {
	s.tb.Helper()
	sum := sha256.Sum256(body)
	s.send(proto.TypeWorkspaceWrite, id, proto.WorkspaceWritePayload{Step: proto.StepBegin, EnvironmentID: wsEnv,
		SessionID: wsSession, Path: path, SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])})
	if r := result[proto.WorkspaceWriteResultPayload](s, proto.TypeWorkspaceWriteResult, id); r.Outcome != proto.OutcomeReady {
		return r
	}
	for off := 0; off < len(body); off += proto.TransferChunkBytes {
		data := body[off:min(off+proto.TransferChunkBytes, len(body))]
		s.send(proto.TypeWorkspaceWrite, id, proto.WorkspaceWritePayload{Step: proto.StepChunk, Offset: int64(off), Data: data})
		if r := result[proto.WorkspaceWriteResultPayload](s, proto.TypeWorkspaceWriteResult, id); r.Outcome != proto.OutcomeReceived {
			s.tb.Fatalf("chunk at %d: %+v", off, r)
		}
	}
	s.send(proto.TypeWorkspaceWrite, id, proto.WorkspaceWritePayload{Step: proto.StepCommit})
	return result[proto.WorkspaceWriteResultPayload](s, proto.TypeWorkspaceWriteResult, id)
}

// readOnly prepares a read-only preparation on the workspace and returns its status (ready, or
// the rejection).
func (s *coreStub) readOnly(id, session string) proto.PreparationStatusPayload {
	s.send(proto.TypeExecutionPrepare, id, map[string]any{"session_id": session, "configuration": map[string]any{
		"agent_kind": "contract", "agent_state_key": "agents-api-" + session, "strict_resume": true,
		"release_on_completion": true, "workspace_read_only": true,
		"local_environment": map[string]any{"id": wsEnv, "workspace_directory": "/workspace", "capability_sources": nil}}})
	st := s.status(id)
	if st.State == proto.StatePreparing {
		st = s.status(id)
	}
	return st
}

func (s *coreStub) export(id, handle string) []byte {
	s.tb.Helper()
	s.send(proto.TypeWorkspaceExport, id, proto.WorkspaceExportPayload{Step: proto.ExportBegin, Handle: handle, EnvironmentID: wsEnv})
	var archive bytes.Buffer
	for {
		r := result[proto.WorkspaceExportResultPayload](s, proto.TypeWorkspaceExportResult, id)
		switch {
		case r.Outcome == proto.OutcomeCompleted && r.Offset == int64(archive.Len()):
			return archive.Bytes()
		case r.Outcome != proto.OutcomeChunk || r.Offset != int64(archive.Len()):
			s.tb.Fatalf("export after %d bytes: %+v", archive.Len(), r)
		}
		archive.Write(r.Data)
		s.send(proto.TypeWorkspaceExport, id, proto.WorkspaceExportPayload{Step: proto.ExportNext, Offset: int64(archive.Len())})
	}
}

func untarAll(tb testing.TB, data []byte) map[string]string {
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			tb.Fatalf("archive: %v", err)
		}
		body, _ := io.ReadAll(tr)
		out[h.Name] = string(body)
	}
}

// TestWorkspaceOverTheWire: bytes written through workspace_write come back, byte for byte, from
// workspace_read and in the workspace_export archive of a read-only preparation; the write and the
// preparation exclude each other.
func TestWorkspaceOverTheWire(t *testing.T) {
	s := startDaemon(t)
	s.ws.SetReadLimit(proto.MaxFrameBytes) // results of 1 MiB reads and 64 KiB export chunks
	rng := rand.New(rand.NewPCG(7, 7))
	big := make([]byte, 3*proto.TransferChunkBytes+17)
	for i := range big {
		big[i] = byte(rng.IntN(256))
	}
	if r := s.write(mutationID(1), "out/big.bin", big); r.Outcome != proto.OutcomeCompleted || r.SizeBytes != int64(len(big)) {
		t.Fatalf("write: %+v", r)
	}
	if r := s.write(mutationID(2), "notes.txt", []byte("hello")); r.Outcome != proto.OutcomeCompleted {
		t.Fatalf("write: %+v", r)
	}
	ro := s.readOnly("ro-1", "s1")
	if ro.State != proto.StateReady || ro.ExecutorID != "" {
		t.Fatalf("read-only preparation: %+v", ro)
	}
	// An owned preparation holds the Environment against writes (WS-20).
	if r := s.write(mutationID(3), "late.txt", []byte("x")); r.Outcome != proto.OutcomeRejected || r.ErrorCode != proto.CodeResourceUnavailable {
		t.Errorf("write beside an owned preparation: %+v", r)
	}
	s.send(proto.TypeWorkspaceRead, "r1", proto.WorkspaceReadPayload{Handle: ro.Handle, EnvironmentID: wsEnv, Path: "out/big.bin", MaxBytes: proto.WorkspaceReadMaxBytes})
	if r := result[proto.WorkspaceReadResultPayload](s, proto.TypeWorkspaceReadResult, "r1"); !bytes.Equal(r.Data, big) || !r.CloseAcknowledged {
		t.Errorf("read back %d bytes (close_acknowledged=%v), want the %d written", len(r.Data), r.CloseAcknowledged, len(big))
	}
	s.send(proto.TypeWorkspaceRead, "r2", proto.WorkspaceReadPayload{Handle: ro.Handle, EnvironmentID: wsEnv, Operation: proto.ReadDirectory, MaxEntries: 10})
	r2 := result[proto.WorkspaceReadResultPayload](s, proto.TypeWorkspaceReadResult, "r2")
	five := int64(5)
	want := &proto.WorkspaceDirectoryResult{Entries: []proto.DirectoryEntry{{Name: "notes.txt", Kind: "file", SizeBytes: &five}, {Name: "out", Kind: "directory"}}}
	if diff := cmp.Diff(want, r2.Directory); diff != "" {
		t.Errorf("listing of the root (-want +got):\n%s", diff)
	}
	got := untarAll(t, s.export("x1", ro.Handle))
	if diff := cmp.Diff(map[string]string{"notes.txt": "hello", "out/": "", "out/big.bin": string(big)}, got); diff != "" {
		t.Errorf("exported archive (-want +got):\n%s", diff)
	}
}

// TestWorkspaceWriteUnconfirmedKeepsTheEnvironment (WS-22, WS-24): the contract's scripted
// .contract/unconfirmed destination ends the write unknown; the write then keeps the Environment:
// no second write, no execution.
func TestWorkspaceWriteUnconfirmedKeepsTheEnvironment(t *testing.T) {
	s := startDaemon(t)
	if r := s.write(mutationID(1), ".contract/unconfirmed", []byte("x")); r.Outcome != proto.OutcomeUnknown || r.ErrorCode != proto.CodeWriteUnconfirmed {
		t.Fatalf("scripted write: %+v", r)
	}
	if r := s.write(mutationID(2), "f", []byte("x")); r.ErrorCode != proto.CodeWriteCapacity {
		t.Errorf("a second write: %+v, want write_capacity", r)
	}
	if st := s.readOnly("ro-1", "s1"); st.State != proto.StateRejected || st.ErrorCode != proto.CodeResourceUnavailable {
		t.Errorf("a preparation after an unconfirmed write: %+v, want resource_unavailable", st)
	}
}
