package main

import (
	"os"
	"path/filepath"
	"testing"
)

// run writes every generated file and removes the .json files it no longer generates.
func TestRunWritesAndPrunes(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "retired_type.json")
	keep := filepath.Join(dir, "notes.txt")
	for _, p := range []string{stale, keep} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"delta.json", "index.json", "README.md", "http_error.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale %s not removed", stale)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a file that is not a schema was removed: %v", err)
	}
}
