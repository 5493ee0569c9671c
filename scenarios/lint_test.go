package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// loadErrors returns the lines of a load's errors.
func loadErrors(t *testing.T, err error) []string {
	t.Helper()
	var errs LoadErrors
	if !errors.As(err, &errs) {
		t.Fatalf("want load errors, got %v", err)
	}
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// A placeholder that is not ${name} is an error at its line, wherever a template holds it.
func TestMalformedPlaceholdersAreErrors(t *testing.T) {
	text := `id: a
title: t
vars:
  v: "x-${}"
steps:
  - core: {type: prompt_cancel, id: "${run", payload: {delivery_id: "${1bad}"}}
  - core: {type: prompt_cancel, id: "${run}", payload: {delivery_id: "cost $5, ${ok} and {x}"}}
  - check: {turn: {run: "${Run}", status: failed}}
`
	_, err := Parse("f.yaml", []byte(text))
	want := []string{
		`f.yaml:4: malformed placeholder "${}": a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _`,
		`f.yaml:6: malformed placeholder "${run": a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _`,
		`f.yaml:6: malformed placeholder "${1bad}": a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _`,
		`f.yaml:8: malformed placeholder "${Run}": a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _`,
	}
	if diff := cmp.Diff(want, loadErrors(t, err)); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
}

// A file over the bound is refused before it is parsed: its bytes are not even YAML here, and the
// only error is its size.
func TestOversizeFilesAreRefusedUnread(t *testing.T) {
	huge := []byte(strings.Repeat("[", MaxFileBytes+1))
	fsys := fstest.MapFS{
		"huge.yaml": {Data: huge},
		"ok.yaml":   {Data: []byte("id: a\ntitle: t\nsteps: [{silence: core}]\n")},
		"pipe.yaml": {Mode: fs.ModeNamedPipe},
	}
	cat, err := LoadFS(fsys, "dir")
	want := []string{
		fmt.Sprintf("dir/huge.yaml: %d bytes, over the 1 MiB a scenario file may hold; not read", MaxFileBytes+1),
		"dir/pipe.yaml: not a regular file",
	}
	if diff := cmp.Diff(want, loadErrors(t, err)); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
	if _, ok := cat.Get("a"); !ok {
		t.Fatal("the files within the bound were not loaded")
	}
	if _, err := Parse("huge.yaml", huge); err == nil || !strings.Contains(err.Error(), "over the 1 MiB") {
		t.Fatalf("Parse took an oversize file: %v", err)
	}
}

// A catalog over the total bound is refused as a whole, before any file is read.
func TestOversizeCatalogsAreRefusedUnread(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range MaxCatalogBytes/MaxFileBytes + 1 {
		fsys[fmt.Sprintf("f%d.yaml", i)] = &fstest.MapFile{Data: make([]byte, MaxFileBytes)}
	}
	_, err := LoadFS(fsys, "dir")
	if err == nil || !strings.Contains(err.Error(), "dir: the scenario files hold 9437184 bytes together, over the 8 MiB a catalog may hold; nothing was read") {
		t.Fatalf("err = %v", err)
	}
}

// An error list stops at MaxErrors and counts the rest.
func TestErrorListsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("id: a\ntitle: t\nsteps:\n  - silence: core\n")
	for range MaxErrors + 10 {
		b.WriteString("  - sned: {}\n")
	}
	_, err := Parse("f.yaml", []byte(b.String()))
	var errs LoadErrors
	if !errors.As(err, &errs) {
		t.Fatalf("err = %v", err)
	}
	if len(errs) != MaxErrors+1 || errs[MaxErrors].Error() != "… and 10 more" || errs.Total() != MaxErrors+10 {
		t.Fatalf("got %d lines, last %q, total %d", len(errs), errs[len(errs)-1], errs.Total())
	}
	if !strings.HasPrefix(errs[0].Error(), "f.yaml:5: ") {
		t.Fatalf("the first errors are kept: %q", errs[0])
	}
}

// A path that cannot be a catalog is named in the error.
func TestLoadDirNamesAPathItCannotUse(t *testing.T) {
	empty := t.TempDir()
	file := filepath.Join(empty, "x.yaml")
	if err := os.WriteFile(file, []byte("id: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{"testdata/no-such-dir", "scenario directory testdata/no-such-dir does not exist"},
		{file, file + " is not a directory of scenario files"},
		{t.TempDir(), "no scenario files (*.yaml, *.yml)"},
	} {
		if _, err := LoadDir(c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("LoadDir(%s) = %v, want %q", c.dir, err, c.want)
		}
	}
}
