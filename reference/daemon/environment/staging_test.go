package environment

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// stagedNames lists what state/staging holds on disk.
func stagedNames(t *testing.T, e *Environment) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(e.Dir(), stagingDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var names []string
	for _, d := range entries {
		names = append(names, d.Name())
	}
	return names
}

func TestStagedBodyIsInstalledByRenameAndLeavesNothing(t *testing.T) {
	e := newEnv(t)
	s, err := e.Stage()
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("chunk "), 20000)
	for part := range bytes.SplitSeq(want, []byte(" ")) {
		if _, err := s.Write(append(part, ' ')); err != nil {
			t.Fatal(err)
		}
	}
	want = append(want, ' ') // SplitSeq's last part is empty: every part got its separator back
	if got, err := s.Bytes(); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Bytes() = %d bytes, %v; want the %d written", len(got), err, len(want))
	}
	if err := s.InstallFile("/workspace/deep/big.bin"); err != nil {
		t.Fatal(err)
	}
	got, err := e.ReadFile("/workspace/deep/big.bin")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("installed file: %d bytes, %v; want %d", len(got), err, len(want))
	}
	if names := stagedNames(t, e); len(names) != 0 {
		t.Fatalf("staging still holds %v", names)
	}
}

// A body staged past several write-back points (its write-back started as it is staged) is read
// back and installed whole, byte for byte.
func TestStagedBodyPastWriteBackPointsIsInstalledWhole(t *testing.T) {
	e := newEnv(t)
	s, err := e.Stage()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 2*writeBackBytes+12345)
	for i := range want {
		want[i] = byte(i * 7 / 5)
	}
	for rest := want; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		if _, err := s.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if s.flushed != 2*writeBackBytes { // 64 KiB divides writeBackBytes
		t.Fatalf("write-back started up to %d of %d bytes, want %d", s.flushed, len(want), 2*writeBackBytes)
	}
	if got, err := s.Bytes(); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Bytes() = %d bytes, %v; want the %d written", len(got), err, len(want))
	}
	if err := s.InstallFile("/workspace/big.bin"); err != nil {
		t.Fatal(err)
	}
	if got, err := e.ReadFile("/workspace/big.bin"); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("installed file: %d bytes, %v; want %d", len(got), err, len(want))
	}
}

func TestStagedInstallRefusesUnsafeDestinationsAndDiscards(t *testing.T) {
	e := newEnv(t)
	if err := os.Symlink("/etc", filepath.Join(e.WorkspaceDir(), "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(e.WorkspaceDir(), "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{"/workspace/link/passwd", "/workspace/link", "/workspace/dir", "/workspace", "/workspace/../x"} {
		s, err := e.Stage()
		if err != nil {
			t.Fatal(err)
		}
		_, _ = s.Write([]byte("pwned"))
		if err := s.InstallFile(dest); !errors.Is(err, ErrUnsafe) {
			t.Errorf("InstallFile(%s) = %v, want ErrUnsafe", dest, err)
		}
		if names := stagedNames(t, e); len(names) != 0 {
			t.Fatalf("a refused install left %v staged", names)
		}
	}
}

func TestDiscardAndReopenClearStaging(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	dropped, _ := e.Stage()
	_, _ = dropped.Write([]byte("half"))
	if err := dropped.Discard(); err != nil {
		t.Fatal(err)
	}
	left, _ := e.Stage() // a daemon that stops mid-transfer leaves this one
	defer left.f.Close()
	_, _ = left.Write([]byte("half"))
	if names := stagedNames(t, e); len(names) != 1 {
		t.Fatalf("staging holds %v, want the one body not discarded", names)
	}
	e.Close()
	e, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if names := stagedNames(t, e); len(names) != 0 {
		t.Fatalf("reopening kept half-received bodies %v", names)
	}
}
