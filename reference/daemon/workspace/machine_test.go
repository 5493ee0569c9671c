package workspace

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
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

// readyHost: a read-only handle "ro" on envID and nothing that blocks a write.
type readyHost struct{}

func (readyHost) Target(handle, runID string) Target {
	if handle == "ro" {
		return Target{Owner: "handle:ro", Open: true, ReadOnly: true, EnvironmentID: envID}
	}
	return Target{}
}
func (readyHost) WriteBlocked(string, string) string { return "" }

func frame(t testing.TB, typ, id string, p any) proto.Envelope {
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return proto.Envelope{Type: typ, ID: id, Payload: raw}
}

// one handles a frame that must get exactly one reply, and returns its payload.
func one[T any](t testing.TB, m *Machine, env proto.Envelope) *T {
	t.Helper()
	effects := m.Handle(env, epoch, readyHost{})
	if len(effects) != 1 {
		t.Fatalf("%s %s: %d effects %v, want one reply", env.Type, env.ID, len(effects), effects)
	}
	p, ok := effects[0].(Reply).Payload.(*T)
	if !ok {
		t.Fatalf("%s: reply %v", env.Type, effects[0])
	}
	return p
}

// writeThrough writes body at path through the machine in 64 KiB chunks.
func writeThrough(t testing.TB, m *Machine, id, path string, body []byte) *proto.WorkspaceWriteResultPayload {
	sum := sha256.Sum256(body)
	begin := proto.WorkspaceWritePayload{Step: proto.StepBegin, EnvironmentID: envID, SessionID: sessionID, Path: path,
		SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}
	if r := one[proto.WorkspaceWriteResultPayload](t, m, frame(t, proto.TypeWorkspaceWrite, id, begin)); r.Outcome != proto.OutcomeReady {
		t.Fatalf("begin: %+v", r)
	}
	for off := 0; off < len(body); off += proto.TransferChunkBytes {
		data := body[off:min(off+proto.TransferChunkBytes, len(body))]
		chunk := proto.WorkspaceWritePayload{Step: proto.StepChunk, Offset: int64(off), Data: data}
		if r := one[proto.WorkspaceWriteResultPayload](t, m, frame(t, proto.TypeWorkspaceWrite, id, chunk)); r.Offset != int64(off+len(data)) {
			t.Fatalf("chunk at %d: %+v", off, r)
		}
	}
	return one[proto.WorkspaceWriteResultPayload](t, m, frame(t, proto.TypeWorkspaceWrite, id, proto.WorkspaceWritePayload{Step: proto.StepCommit}))
}

// exportThrough pulls a whole export and checks every chunk's offset and size (WS-27, WS-28).
func exportThrough(t testing.TB, m *Machine, id string) []byte {
	var archive bytes.Buffer
	p := one[proto.WorkspaceExportResultPayload](t, m, frame(t, proto.TypeWorkspaceExport, id,
		proto.WorkspaceExportPayload{Step: proto.ExportBegin, Handle: "ro", EnvironmentID: envID}))
	for p.Outcome == proto.OutcomeChunk {
		if p.Offset != int64(archive.Len()) || len(p.Data) == 0 || len(p.Data) > proto.TransferChunkBytes {
			t.Fatalf("chunk at offset %d with %d bytes after %d bytes", p.Offset, len(p.Data), archive.Len())
		}
		archive.Write(p.Data)
		p = one[proto.WorkspaceExportResultPayload](t, m, frame(t, proto.TypeWorkspaceExport, id,
			proto.WorkspaceExportPayload{Step: proto.ExportNext, Offset: int64(archive.Len())}))
	}
	if p.Outcome != proto.OutcomeCompleted || p.Offset != int64(archive.Len()) {
		t.Fatalf("export ended %+v after %d bytes", p, archive.Len())
	}
	return archive.Bytes()
}

// untar returns an archive's regular files by name, and its directories with a trailing "/".
func untar(t testing.TB, data []byte) map[string]string {
	out := map[string]string{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("archive: %v", err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir {
			t.Errorf("member %s has type %c: only files and directories are exported", h.Name, h.Typeflag)
		}
		out[h.Name] = string(body)
	}
}

// TestWriteThenExportOnDisk: bytes written through the machine come back by read and in the
// export, byte for byte; nothing outside the workspace is exported through a symlink.
func TestWriteThenExportOnDisk(t *testing.T) {
	tr := newTree(t)
	tr.symlink("escape", tr.out)
	tr.symlink("escape-file", filepath.Join(tr.out, "secret"))
	m := &Machine{FS: tr.open()}
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string]string{}
	for i, size := range []int{0, 1, proto.TransferChunkBytes, proto.TransferChunkBytes + 1, 300_000} {
		body := make([]byte, size)
		for j := range body {
			body[j] = byte(rng.IntN(256))
		}
		path := fmt.Sprintf("out/%d/file.bin", i)
		if r := writeThrough(t, m, fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), path, body); r.Outcome != proto.OutcomeCompleted || r.SizeBytes != int64(size) {
			t.Fatalf("write %s: %+v", path, r)
		}
		want[path] = string(body)
		want[fmt.Sprintf("out/%d/", i)] = ""
		read := NativeRead(m.FS, proto.WorkspaceReadPayload{Path: path, MaxBytes: proto.WorkspaceReadMaxBytes})
		if !bytes.Equal(read.Data, body) || read.Truncated {
			t.Errorf("read back %s: %d bytes truncated=%v, want %d bytes", path, len(read.Data), read.Truncated, size)
		}
	}
	want["out/"] = ""
	got := untar(t, exportThrough(t, m, "x1"))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("exported archive (+) differs from what was written (-):\n%s", diff)
	}
}

// TestBusy: a pending write and an open export hold the Environment against execution (WS-24).
func TestBusy(t *testing.T) {
	m := &Machine{FS: &Fake{}}
	id := "00000000-0000-4000-8000-000000000001"
	begin := proto.WorkspaceWritePayload{Step: proto.StepBegin, EnvironmentID: envID, SessionID: sessionID, Path: "f",
		SizeBytes: 1, SHA256: hex.EncodeToString(func() []byte { s := sha256.Sum256([]byte("x")); return s[:] }())}
	if m.Busy() {
		t.Fatal("busy before anything")
	}
	one[proto.WorkspaceWriteResultPayload](t, m, frame(t, proto.TypeWorkspaceWrite, id, begin))
	if !m.Busy() {
		t.Error("not busy while a write receives its body")
	}
	one[proto.WorkspaceWriteResultPayload](t, m, frame(t, proto.TypeWorkspaceWrite, id, proto.WorkspaceWritePayload{Step: proto.StepChunk, Data: []byte("x")}))
	one[proto.WorkspaceWriteResultPayload](t, m, frame(t, proto.TypeWorkspaceWrite, id, proto.WorkspaceWritePayload{Step: proto.StepCommit}))
	if m.Busy() {
		t.Error("busy after the write completed")
	}
	one[proto.WorkspaceExportResultPayload](t, m, frame(t, proto.TypeWorkspaceExport, "x", proto.WorkspaceExportPayload{Step: proto.ExportBegin, Handle: "ro", EnvironmentID: envID}))
	if !m.Busy() {
		t.Error("not busy while an export is open")
	}
	m.Close()
	if m.Busy() {
		t.Error("busy after Close")
	}
}

// BenchmarkWrite50MiB: a 50 MiB write through the machine onto a real directory.
func BenchmarkWrite50MiB(b *testing.B) {
	body := bytes.Repeat([]byte("0123456789abcdef"), proto.TransferMaxBytes/16)
	d, err := OpenDir(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	m := &Machine{FS: d}
	b.SetBytes(int64(len(body)))
	for i := 0; b.Loop(); i++ {
		if r := writeThrough(b, m, fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), "big.bin", body); r.Outcome != proto.OutcomeCompleted {
			b.Fatal(r)
		}
	}
}

// BenchmarkExport50MiB: a workspace of one 50 MiB file exported through the machine.
func BenchmarkExport50MiB(b *testing.B) {
	dir := b.TempDir()
	d, err := OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteFile("big.bin", bytes.Repeat([]byte("0123456789abcdef"), proto.TransferMaxBytes/16)); err != nil {
		b.Fatal(err)
	}
	m := &Machine{FS: d}
	b.SetBytes(proto.TransferMaxBytes)
	for i := 0; b.Loop(); i++ {
		if n := len(exportThrough(b, m, fmt.Sprint("x", i))); n < proto.TransferMaxBytes {
			b.Fatalf("archive of %d bytes", n)
		}
	}
}
