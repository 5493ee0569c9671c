package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/load"
)

func runLoad(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newLoadCommand()
	var out, stderr bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&stderr)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String() + stderr.String(), err
}

func TestLoadRefusesNonLoopbackCore(t *testing.T) {
	for _, u := range []string{"http://192.0.2.1:8080", "http://[2001:db8::1]:8080"} {
		out, err := runLoad(t, "--core-url", u, "--runtimes", "1", "--turns", "0", "--duration", "1s",
			"--register-cmd", "echo must-not-run credential")
		if err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: want a refusal naming loopback, got %v\n%s", u, err, out)
		}
		if exitCode(err) != exitUsage {
			t.Errorf("%s: exit code %d, want %d", u, exitCode(err), exitUsage)
		}
	}
}

// TestLoadAgainstReferenceCore runs the command end to end: the reference Core as a child process
// (this test binary re-executed as wirecheck) and in process; the seed is printed and the JSON
// report holds sane numbers.
func TestLoadAgainstReferenceCore(t *testing.T) {
	for _, mode := range []string{"child", "inproc"} {
		t.Run(mode, func(t *testing.T) {
			t.Setenv(reexecMain, "1")
			path := filepath.Join(t.TempDir(), "load.json")
			out, err := runLoad(t, "--core", mode, "--runtimes", "20", "--turns", "40", "--rate", "100",
				"--cancel", "0.2", "--seed", "42", "--json", path)
			if err != nil {
				t.Fatalf("load: %v\n%s", err, out)
			}
			if !strings.Contains(out, "seed 42") {
				t.Errorf("the seed is not printed:\n%s", out)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var rep load.Report
			if err := json.Unmarshal(raw, &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Seed != 42 || rep.Accepted != 40 || !rep.OK() || rep.Latency["completion"].N == 0 {
				t.Errorf("report: seed %d, %d accepted, ok %v, completion %+v\n%s", rep.Seed, rep.Accepted, rep.OK(), rep.Latency["completion"], out)
			}
			if mode == "child" && rep.Memory.CoreRSSBytes == 0 {
				t.Errorf("the child Core's memory was not measured")
			}
		})
	}
}

func TestLoadRegisterCommand(t *testing.T) {
	d, err := load.CommandRegistrar(`echo "dev-$WIRECHECK_DEVICE_INDEX secret"`)(context.Background(), 7)
	if err != nil || d.ID != "dev-7" || d.Credential != "secret" {
		t.Errorf("got %+v, %v", d, err)
	}
	d, err = load.CommandRegistrar(`echo '{"device_id":"a","credential":"b"}'`)(context.Background(), 0)
	if err != nil || d.ID != "a" || d.Credential != "b" {
		t.Errorf("got %+v, %v", d, err)
	}
	if _, err := load.CommandRegistrar(`echo only-one-word`)(context.Background(), 0); err == nil {
		t.Error("a registration without a credential was accepted")
	}
}
