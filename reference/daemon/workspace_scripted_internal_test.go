package daemon

import (
	"errors"
	"io"
	"testing"

	"github.com/wirecheck/wirecheck/reference/daemon/workspace"
)

// TestScriptedPathsDenyAndBreakTheArchive pins docs/contract-harness.md §8.2 for .contract/denied
// (a read the filesystem denies, bytes and listing) and .contract/export_fails (a file on disk,
// read as usual, that the archiver cannot read: the export's stream fails).
func TestScriptedPathsDenyAndBreakTheArchive(t *testing.T) {
	dir, err := workspace.OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	fs := scriptedFS{dir}
	if _, _, err := fs.ReadFile(scriptDenied, 10); !errors.Is(err, workspace.ErrPermission) {
		t.Errorf("byte read of %s: %v, want a denied access", scriptDenied, err)
	}
	if _, _, err := fs.List(scriptDenied, 10); !errors.Is(err, workspace.ErrPermission) {
		t.Errorf("listing of %s: %v, want a denied access", scriptDenied, err)
	}
	if err := fs.WriteFile(scriptExportFails, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if data, _, err := fs.ReadFile(scriptExportFails, 10); err != nil || string(data) != "x" {
		t.Errorf("byte read of %s: %q, %v, want the file as written", scriptExportFails, data, err)
	}
	stream, err := workspace.NewTarStream(fs)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if _, err := stream.Next(64 << 10); err == nil || errors.Is(err, io.EOF) {
		t.Errorf("the archive's first chunk: %v, want the archiver's failure", err)
	}
}
