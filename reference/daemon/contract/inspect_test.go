package contract_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/environment"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// doneOf runs one Turn of script with env bound and returns its done metadata.
func doneOf(t *testing.T, env *environment.Environment, script string) map[string]string {
	t.Helper()
	ctx := context.Background()
	if env != nil {
		ctx = harness.WithEnvironment(ctx, env)
	}
	h := contract.New(clock.NewFake(), proto.AgentKindCapabilities{})
	e, err := h.NewExecutor(ctx, &proto.PromptRequestPayload{AgentOptions: json.RawMessage(`{"contract":` + script + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := e.Start(ctx, "run-1", proto.TextInput("hi"))
	if err != nil {
		t.Fatal(err)
	}
	for range turn.Events() {
	}
	return turn.Result().Done.Metadata
}

func TestInspectReportsTheEnvironment(t *testing.T) {
	env, err := environment.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	_ = env.WriteFile("/workspace/a.txt", []byte("hello"))
	_ = env.WriteFile("/workspace/empty", nil)
	_ = os.Mkdir(filepath.Join(env.WorkspaceDir(), "dir"), 0o755)
	_ = os.Symlink("/etc", filepath.Join(env.WorkspaceDir(), "link"))
	_ = env.Configure(map[string]string{"A": "x=y"})
	_ = env.InstallSkill(environment.Capability{Name: "s2", Body: []byte("b")})
	_ = env.InstallSkill(environment.Capability{Name: "s1", Body: []byte("b")})
	_ = env.InstallPlugin(3, environment.Capability{Name: "p", Body: []byte("b")})
	got := doneOf(t, env, `{"turn":{"metadata":{"k":"v"},"inspect":{"files":["/workspace/a.txt","/workspace/empty","/workspace/dir","/workspace/link","/workspace/link/passwd","/workspace/none"],"env":["A","B"],"skills":true,"plugins":true}}}`)
	want := map[string]string{
		"k":                           "v",
		"file:/workspace/a.txt":       "file size=5 sha256=2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
		"file:/workspace/empty":       "file size=0 sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"file:/workspace/dir":         "directory",
		"file:/workspace/link":        "symlink",
		"file:/workspace/link/passwd": "unsafe",
		"file:/workspace/none":        "absent",
		"env:A":                       "set=x=y",
		"env:B":                       "unset",
		"skills":                      `["s1","s2"]`,
		"plugins":                     `{"3":"p"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("done metadata (-want +got):\n%s", diff)
	}
	// An empty Environment: empty lists, not null.
	empty, _ := environment.Open(t.TempDir())
	defer empty.Close()
	got = doneOf(t, empty, `{"turn":{"inspect":{"skills":true,"plugins":true}}}`)
	if diff := cmp.Diff(map[string]string{"skills": "[]", "plugins": "{}"}, got); diff != "" {
		t.Fatalf("empty Environment (-want +got):\n%s", diff)
	}
	// No Environment at all.
	got = doneOf(t, nil, `{"turn":{"inspect":{"files":["/workspace/a"]}}}`)
	if diff := cmp.Diff(map[string]string{"inspect": "no_environment"}, got); diff != "" {
		t.Fatalf("no Environment (-want +got):\n%s", diff)
	}
}

func TestInspectIsStrict(t *testing.T) {
	for script, want := range map[string]string{
		`{"turn":{"inspect":{"files":["/etc/passwd"]}}}`:     "turn.inspect.files[0]",
		`{"turn":{"inspect":{"files":["/workspace/../x"]}}}`: "turn.inspect.files[0]",
		`{"turn":{"inspect":{"env":["A=B"]}}}`:               "turn.inspect.env[0]",
		`{"turn":{"inspect":{"skill":true}}}`:                "skill",
		`{"turn":{"inspect":{"files":` + many(65) + `}}}`:    "at most 64",
	} {
		_, err := contract.Parse(json.RawMessage(`{"contract":` + script + `}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error naming %q", script, err, want)
		}
	}
}

func many(n int) string {
	paths := make([]string, n)
	for i := range paths {
		paths[i] = "/workspace/f"
	}
	data, _ := json.Marshal(paths)
	return string(data)
}
