package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A certification's bundle replays the same against the Runtime it recorded, and against a daemon
// that answers otherwise the first divergence names the scenario and its step.
func TestReplayFindsTheFirstDivergence(t *testing.T) {
	t.Parallel()
	bundle := filepath.Join(t.TempDir(), "evidence")
	out, err := wirecheckCommand("certify", "--reference", "--bundle", bundle, "--markdown", "", "--quiet", "--seed", "replay-test",
		"--run", "workspace/runtime/multi-chunk-write-reads-back-byte-for-byte,runs/prepared/completes-and-releases-before-done,connection/credential/wrong").CombinedOutput()
	if err != nil {
		t.Fatalf("certify: %v\n%s", err, out)
	}
	out, err = wirecheckCommand("replay", bundle, "--reference").CombinedOutput()
	if err != nil {
		t.Fatalf("replay against the reference it recorded: %v\n%s", err, out)
	}
	for _, want := range []string{
		"same            workspace/runtime/multi-chunk-write-reads-back-byte-for-byte",
		"same            runs/prepared/completes-and-releases-before-done",
		"not replayable  connection/credential/wrong: it holds no frame but heartbeats",
		"2 of 2 replays the same, 0 diverge",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}

	// A daemon bound to another workspace refuses the read-only preparation the recording made.
	daemon := os.Args[0] + " runtime --server {core_url} --device {device_id} --workspace /elsewhere"
	cmd := wirecheckCommand("replay", bundle, "--run", "workspace/**", "--runtime-cmd", daemon, "--env", reexecMain+"=1")
	out, err = cmd.CombinedOutput()
	if code := exitCodeOf(err); code != 1 {
		t.Fatalf("replay against a daemon on another workspace: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"diverges        workspace/runtime/multi-chunk-write-reads-back-byte-for-byte", "  at step ", "0 of 1 replays the same, 1 diverge"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
}
