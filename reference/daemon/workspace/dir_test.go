package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

// tree builds the same workspace on a real directory and on a Fake.
type tree struct {
	t    *testing.T
	dir  string // the workspace directory
	out  string // a directory outside it (symlink targets)
	fake *Fake
}

func newTree(t *testing.T) *tree {
	base := t.TempDir()
	tr := &tree{t: t, dir: filepath.Join(base, "workspace"), out: filepath.Join(base, "outside"), fake: &Fake{}}
	for _, d := range []string{tr.dir, tr.out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tr.out, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *tree) put(p, data string) {
	full := filepath.Join(tr.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		tr.t.Fatal(err)
	}
	tr.fake.Put(p, []byte(data))
}

func (tr *tree) mkdir(p string) {
	if err := os.MkdirAll(filepath.Join(tr.dir, p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	tr.fake.Mkdir(p)
}

// symlink links p to target (relative to the workspace, or the outside directory when outside).
func (tr *tree) symlink(p, target string) {
	if err := os.Symlink(target, filepath.Join(tr.dir, p)); err != nil {
		tr.t.Fatal(err)
	}
	tr.fake.Symlink(p)
}

func (tr *tree) fifo(p string) {
	if err := syscall.Mkfifo(filepath.Join(tr.dir, p), 0o644); err != nil {
		tr.t.Fatal(err)
	}
	tr.fake.Special(p)
}

func (tr *tree) open() *Dir {
	d, err := OpenDir(tr.dir)
	if err != nil {
		tr.t.Fatal(err)
	}
	tr.t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestDirMatchesFake: every read answers the same on a real directory and on the Fake, symlink
// attacks included; the Fake stands for the disk in the machine's tests only if this holds.
func TestDirMatchesFake(t *testing.T) {
	tr := newTree(t)
	tr.put("a.txt", "alpha")
	tr.put("docs/b.txt", "beta")
	tr.put("docs/empty", "")
	tr.mkdir("docs/sub")
	tr.symlink("docs/inside", "../a.txt")
	tr.symlink("escape", tr.out)
	tr.symlink("escape-file", filepath.Join(tr.out, "secret"))
	tr.symlink("loop", "docs")
	tr.fifo("docs/fifo")
	d := tr.open()

	bytesRead := func(p string, max int) proto.WorkspaceReadPayload {
		return proto.WorkspaceReadPayload{Path: p, MaxBytes: max}
	}
	list := func(p string, max int) proto.WorkspaceReadPayload {
		return proto.WorkspaceReadPayload{Path: p, Operation: proto.ReadDirectory, MaxEntries: max}
	}
	for _, req := range []proto.WorkspaceReadPayload{
		bytesRead("a.txt", 5), bytesRead("a.txt", 2), bytesRead("docs/empty", 1), bytesRead("missing", 1),
		bytesRead("docs", 1), bytesRead("docs/inside", 10), bytesRead("escape/secret", 10), bytesRead("escape-file", 10),
		bytesRead("loop/b.txt", 10), bytesRead("docs/fifo", 1), bytesRead("a.txt/x", 1),
		list("", 100), list("docs", 100), list("docs", 2), list("docs/sub", 1), list("escape", 10), list("loop", 10),
		list("loop/sub", 10), list("a.txt", 1), list("missing", 1), list("docs/fifo", 1),
	} {
		t.Run(fmt.Sprintf("%s/%s", req.Operation, req.Path), func(t *testing.T) {
			got, want := NativeRead(d, req), NativeRead(tr.fake, req)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("real directory (+) differs from the Fake (-):\n%s", diff)
			}
			if got.Outcome == proto.OutcomeUnknown {
				t.Errorf("an ambiguous result for a plain file system: %+v", got)
			}
		})
	}
}

// TestDirWriteRefusesUnsafeDestinations: the installer never writes through a symlink, over a
// directory, or under a file, and changes nothing when it refuses.
func TestDirWriteRefusesUnsafeDestinations(t *testing.T) {
	tr := newTree(t)
	tr.put("file", "f")
	tr.mkdir("dir")
	tr.symlink("escape", tr.out)
	tr.symlink("escape-file", filepath.Join(tr.out, "secret"))
	d := tr.open()
	for _, c := range []struct {
		path string
		want error
	}{
		{"dir", ErrIsDirectory}, {"escape/secret", ErrSymlink}, {"escape/new", ErrSymlink},
		{"escape-file", ErrSymlink}, {"file/x", ErrNotDirectory},
	} {
		err := d.WriteFile(c.path, []byte("pwned"))
		if !errors.Is(err, c.want) {
			t.Errorf("WriteFile(%q) = %v, want %v", c.path, err, c.want)
		}
		if fe := tr.fake.WriteFile(c.path, []byte("pwned")); !errors.Is(fe, c.want) {
			t.Errorf("Fake.WriteFile(%q) = %v, want %v", c.path, fe, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(tr.out, "secret")); string(data) != "secret" {
		t.Errorf("the file outside the workspace changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(tr.out, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was created outside the workspace: %v", err)
	}
	// Missing parents are created; the destination is replaced; no temporary file stays.
	if err := d.WriteFile("new/deep/f.txt", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("new/deep/f.txt", []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, _, err := d.ReadFile("new/deep/f.txt", 10)
	if err != nil || string(got) != "two" {
		t.Errorf("read back %q, %v; want \"two\"", got, err)
	}
	entries, _, _ := d.List("new/deep", 0)
	if len(entries) != 1 {
		t.Errorf("the directory holds %v, want only f.txt (no temporary file left)", entries)
	}
}

// TestDirWriteIsAtomic: a reader racing the installer sees the old body or the new one, whole.
func TestDirWriteIsAtomic(t *testing.T) {
	tr := newTree(t)
	d := tr.open()
	old, next := bytes.Repeat([]byte("a"), 1<<20), bytes.Repeat([]byte("b"), 1<<20)
	if err := d.WriteFile("f", old); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			got, _, err := d.ReadFile("f", 2<<20)
			if err != nil {
				t.Errorf("read during install: %v", err)
				return
			}
			if !bytes.Equal(got, old) && !bytes.Equal(got, next) {
				t.Errorf("a reader saw a partial file: %d bytes", len(got))
				return
			}
		}
	}()
	for i := range 20 {
		body := old
		if i%2 == 0 {
			body = next
		}
		if err := d.WriteFile("f", body); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
