package environment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/clock"
)

func newEnv(t *testing.T) *Environment {
	t.Helper()
	e, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func TestWriteFileLandsAtItsLogicalPath(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct {
		path string
		data []byte
	}{{"/workspace/a.txt", []byte("hello")}, {"/workspace/deep/er/b.bin", []byte{0, 1, 2}}, {"/workspace/empty", nil}} {
		if err := e.WriteFile(c.path, c.data); err != nil {
			t.Fatalf("WriteFile(%s): %v", c.path, err)
		}
		got, err := os.ReadFile(filepath.Join(e.WorkspaceDir(), strings.TrimPrefix(c.path, "/workspace/")))
		if err != nil || string(got) != string(c.data) {
			t.Fatalf("%s on disk = %q, %v; want %q", c.path, got, err, c.data)
		}
		ent, err := e.Stat(c.path)
		if want := (Entry{Kind: File, Size: int64(len(c.data)), SHA256: sum(c.data)}); err != nil || ent != want {
			t.Fatalf("Stat(%s) = %+v, %v; want %+v", c.path, ent, err, want)
		}
	}
	// A second write replaces the file, and leaves no temporary file behind.
	if err := e.WriteFile("/workspace/a.txt", []byte("again")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(e.WorkspaceDir())
	var names []string
	for _, ent := range entries {
		names = append(names, ent.Name())
	}
	if diff := cmp.Diff([]string{"a.txt", "deep", "empty"}, names); diff != "" {
		t.Fatalf("workspace entries (-want +got):\n%s", diff)
	}
}

func TestSymlinksAndEscapesAreRefused(t *testing.T) {
	e := newEnv(t)
	outside := t.TempDir()
	ws := e.WorkspaceDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(ws, "link-dir")))
	must(os.Symlink(filepath.Join(outside, "target"), filepath.Join(ws, "link-file")))
	must(os.Mkdir(filepath.Join(ws, "dir"), 0o755))
	must(os.WriteFile(filepath.Join(ws, "plain"), []byte("x"), 0o644))
	for _, p := range []string{
		"/workspace/link-dir/x",    // under a symlink to outside
		"/workspace/link-file",     // a symlink destination: replacing it would be fine, but it is refused
		"/workspace/dir",           // a directory destination
		"/workspace/plain/x",       // under a file
		"/workspace/../etc/passwd", // not clean
		"/workspace",               // the workspace itself
		"/etc/passwd",              // outside
		"/workspacex/a",            // a prefix that is not the workspace
	} {
		err := e.WriteFile(p, []byte("evil"))
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("WriteFile(%s) = %v, want ErrUnsafe", p, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something was written outside the root: %v", entries)
	}
	for p, want := range map[string]Kind{"/workspace/link-dir": Symlink, "/workspace/link-dir/x": Unsafe, "/workspace/dir": Directory,
		"/workspace/missing": Absent, "/workspace/missing/x": Absent, "/workspace/plain/x": Unsafe} {
		if ent, err := e.Stat(p); err != nil || ent.Kind != want {
			t.Errorf("Stat(%s) = %+v, %v; want %s", p, ent, err, want)
		}
	}
	if _, err := e.ReadFile("/workspace/link-file"); !errors.Is(err, ErrUnsafe) {
		t.Errorf("ReadFile through a symlink = %v, want ErrUnsafe", err)
	}
}

func TestCapabilitiesEnvAndPackages(t *testing.T) {
	e := newEnv(t)
	if err := e.InstallSkill(Capability{Name: "review/code", Description: "d", Body: []byte("# skill")}); err != nil {
		t.Fatal(err)
	}
	if err := e.InstallSkill(Capability{Name: "bad", Body: []byte{0xff, 0xfe}}); !errors.Is(err, ErrInvalidContent) {
		t.Fatalf("a non-UTF-8 skill body = %v, want ErrInvalidContent", err)
	}
	if err := e.InstallPlugin(7, Capability{Name: "p1", Description: "d", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := e.InstallPlugin(7, Capability{Name: "p2", Description: "d", Body: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	skills, _ := e.Skills()
	plugins, _ := e.Plugins()
	if diff := cmp.Diff([]string{"review/code"}, skills); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int]string{7: "p2"}, plugins); diff != "" {
		t.Errorf("plugins (-want +got):\n%s", diff)
	}
	_ = e.Configure(map[string]string{"A": "1", "B": "2"})
	_ = e.Configure(map[string]string{"B": "3"})
	env, _ := e.Env()
	if diff := cmp.Diff(map[string]string{"A": "1", "B": "3"}, env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	_ = e.RecordPackages("npm", []string{"left-pad", "react@18"})
	pkgs, _ := e.Packages("npm")
	if diff := cmp.Diff([]string{"left-pad", "react@18"}, pkgs); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

func TestTempIsRemovedOnClose(t *testing.T) {
	e, err := Temp()
	if err != nil {
		t.Fatal(err)
	}
	dir := e.Dir()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the temporary root %s survived Close: %v", dir, err)
	}
}

func TestRunSetup(t *testing.T) {
	e := newEnv(t)
	_ = e.Configure(map[string]string{"GREETING": "hi"})
	_ = os.Mkdir(filepath.Join(e.WorkspaceDir(), "sub"), 0o755)
	ctx := context.Background()
	c := clock.Real()
	for _, tc := range []struct {
		cwd, command string
		want         CommandOutcome
	}{
		{"", `test "$GREETING" = hi && test "$PWD" = "$HOME" && echo ok > made`, CommandOutcome{Result: Exited}},
		{"/workspace/sub", `test "$(basename "$PWD")" = sub`, CommandOutcome{Result: Exited}},
		{"", "exit 42", CommandOutcome{Result: Exited, ExitCode: 42}},
		{"", "kill -9 $$", CommandOutcome{Result: Unconfirmed}},
		{"/workspace/missing", "true", CommandOutcome{Result: NotStarted}},
	} {
		got := e.RunSetup(ctx, c, time.Minute, tc.cwd, tc.command)
		got.Err = nil
		if got != tc.want {
			t.Errorf("RunSetup(%q, %q) = %+v, want %+v", tc.cwd, tc.command, got, tc.want)
		}
	}
	if ent, _ := e.Stat("/workspace/made"); ent.Kind != File {
		t.Errorf("the command's file: %+v", ent)
	}
}

// The bound is the injected clock's: a command that would run for an hour is killed, with its
// whole process group, as soon as the fake clock passes the bound.
func TestRunSetupBoundOnTheInjectedClock(t *testing.T) {
	e := newEnv(t)
	fake := clock.NewFake()
	done := make(chan CommandOutcome)
	go func() {
		done <- e.RunSetup(context.Background(), fake, 120*time.Second, "", "sleep 3600 & sleep 3600")
	}()
	fake.AdvanceWhenDue(120*time.Second, 10*time.Second)
	select {
	case got := <-done:
		if got.Result != Unconfirmed {
			t.Fatalf("outcome %+v, want Unconfirmed", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the command outlived its bound")
	}
}
