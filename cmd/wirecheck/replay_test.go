package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/internal/testbin"
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
		"same              workspace/runtime/multi-chunk-write-reads-back-byte-for-byte\n",
		"same              runs/prepared/completes-and-releases-before-done\n",
		"not replayable    connection/credential/wrong: it holds no frame but heartbeats",
		"2 replays: 2 the same, 0 diverge; 1 not replayable\n",
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
	for _, want := range []string{"diverges          workspace/runtime/multi-chunk-write-reads-back-byte-for-byte\n  recorded: pass\n", "  now (fail) at the replay's step ", "1 replay: 0 the same, 1 diverges\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
}

// The same bundle holds nothing replayable: replay says why for each journal, in the recorded
// run's own words, and exits 0.
func TestReplayABundleOfADaemonThatExitsAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bundle := misbehaveBundle(t, "exit", nil, "admission/prepare/idle-executor-is-reused", "connection/credential/wrong",
		"runtime/stall/status-send-budget-expires-and-the-admission-fails")
	if diff := cmp.Diff([]int{0, 1, 2, 3}, exitCodesOf(t, "replay")); diff != "" {
		t.Errorf("replay --help exit codes (-want +got):\n%s", diff)
	}
	out, err := wirecheckCommand("replay", bundle, "--reference").CombinedOutput()
	if code := exitCodeOf(err); code != 0 {
		t.Fatalf("replay of a bundle with nothing replayable: exit %d, want 0\n%s", code, out)
	}
	want := []string{
		// The recorded failure is quoted, whatever its words ("before connecting", "before its
		// first request"): that it stopped, and how.
		"not replayable    admission/prepare/idle-executor-is-reused: the recorded run ended (fail) before any frame: the Runtime stopped before ",
		"not replayable    connection/credential/wrong: the recorded run ended (fail) before any frame: the Runtime stopped before ",
		"not replayable    runtime/stall/status-send-budget-expires-and-the-admission-fails: recorded not applicable, so nothing was played: await_stall needs",
		"nothing to replay: none of the 3 journals of " + bundle + " is replayable (each reason is above)",
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("replay printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d: %q\n  want it to begin %q", i+1, lines[i], w)
		}
		if i < 2 && !strings.HasSuffix(lines[i], "(exit code 7)") {
			t.Errorf("line %d: %q does not say how the daemon stopped", i+1, lines[i])
		}
	}
	if strings.Contains(string(out), "fault relay") {
		t.Errorf("replay blames a fault relay no scenario used:\n%s", out)
	}

	for _, args := range [][]string{{"replay", bundle, "--reference", "--bogus"}, {"replay", bundle, "--reference", "--run", "nothing/**"},
		{"replay", t.TempDir(), "--reference"}, {"replay", bundle}} {
		out, err := wirecheckCommand(args...).CombinedOutput()
		if code := exitCodeOf(err); code != 3 {
			t.Errorf("%q: exit %d, want 3 (usage error)\n%s", args, code, out)
		}
	}
}

// A daemon's recorded failures replay against that daemon as "fails as recorded", each with the
// failure it recorded, and exit 0; against the reference, which answers otherwise, they diverge
// with the recorded verdict beside what came now, and exit 1. A fault step that was armed but
// never applied (the daemon stopped answering before it) makes no journal unreplayable.
func TestReplayTellsRecordedFailuresApart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bundle := misbehaveBundle(t, "hang-after-ready", []string{"--step-timeout", "1s"},
		"admission/prepare/history-unavailable", "faults/cut-after-started-is-unknown-and-nothing-is-replayed")
	bin, err := testbin.Build("../../internal/misbehave")
	if err != nil {
		t.Fatal(err)
	}

	out, err := wirecheckCommand("replay", bundle, "--runtime-cmd", misbehaveCmd(bin, "hang-after-ready")).CombinedOutput()
	if code := exitCodeOf(err); code != 0 {
		t.Fatalf("replay against the daemon that recorded it: exit %d, want 0\n%s", code, out)
	}
	for _, w := range []string{
		"fails as recorded admission/prepare/history-unavailable\n  recorded: fail at step 2, runtime sends preparation_status: runtime frame differs",
		"fails as recorded faults/cut-after-started-is-unknown-and-nothing-is-replayed\n  recorded: fail at step ",
		"2 replays: 0 the same, 2 fail or end as recorded, 0 diverge\n",
	} {
		if !strings.Contains(string(out), w) {
			t.Errorf("replay against the daemon that recorded it lacks %q:\n%s", w, out)
		}
	}
	if slices.ContainsFunc(strings.Split(string(out), "\n"), func(l string) bool { return strings.HasPrefix(l, "same") }) {
		t.Errorf("a recorded failure replays as \"same\":\n%s", out)
	}

	out, err = wirecheckCommand("replay", bundle, "--reference", "--run", "admission/**").CombinedOutput()
	if code := exitCodeOf(err); code != 1 {
		t.Fatalf("replay against the reference: exit %d, want 1\n%s", code, out)
	}
	for _, w := range []string{
		"diverges          admission/prepare/history-unavailable\n  recorded: fail at step 2, runtime sends preparation_status: runtime frame differs",
		"  now (fail) at the replay's step ",
		"1 replay: 0 the same, 1 diverges\n",
	} {
		if !strings.Contains(string(out), w) {
			t.Errorf("replay against the reference lacks %q:\n%s", w, out)
		}
	}
}
