package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/internal/testbin"
)

// misbehaveBundle certifies a misbehaving daemon (internal/misbehave --mode MODE) on the given
// scenarios into a new bundle, playing every one (--no-fail-fast), and returns the bundle.
func misbehaveBundle(t *testing.T, mode string, extra []string, run ...string) string {
	t.Helper()
	bin, err := testbin.Build("../../internal/misbehave")
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "evidence")
	args := append([]string{"certify", "--runtime-cmd", misbehaveCmd(bin, mode), "--bundle", bundle, "--no-fail-fast",
		"--markdown", "", "--quiet", "--seed", "tools-" + mode, "--run", strings.Join(run, ",")}, extra...)
	out, err := wirecheckCommand(args...).CombinedOutput()
	if code := exitCodeOf(err); code != 1 {
		t.Fatalf("certify a daemon of mode %s: exit %d, want 1 (not certified)\n%s", mode, code, out)
	}
	return bundle
}

func misbehaveCmd(bin, mode string) string {
	return bin + " --mode " + mode + " --server {core_url} --device {device_id}"
}

// exitCodesOf is the codes the "Exit status:" section of a command's --help lists.
func exitCodesOf(t *testing.T, command string) []int {
	t.Helper()
	out, err := wirecheckCommand(command, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", command, err, out)
	}
	_, section, ok := strings.Cut(string(out), "Exit status:")
	if !ok {
		t.Fatalf("%s --help states no exit status:\n%s", command, out)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	var codes []int
	for _, m := range regexp.MustCompile(`(?m)^\s+(\d)  `).FindAllStringSubmatch(section, -1) {
		codes = append(codes, int(m[1][0]-'0'))
	}
	return codes
}

// A bundle of a daemon that exits before its first step (misbehave --mode exit: every scenario
// fails before connecting, one is not applicable against a daemon in another process) rejudges
// clean: not applicable stays not applicable, and nothing the run never reached is held against
// it. Every exit code --help states is the one returned.
func TestRejudgeABundleOfADaemonThatExitsAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bundle := misbehaveBundle(t, "exit", nil, "admission/prepare/idle-executor-is-reused", "connection/credential/wrong",
		"runtime/stall/status-send-budget-expires-and-the-admission-fails")
	if diff := cmp.Diff([]int{0, 1, 3}, exitCodesOf(t, "rejudge")); diff != "" {
		t.Errorf("rejudge --help exit codes (-want +got):\n%s", diff)
	}

	out, err := wirecheckCommand("rejudge", bundle).CombinedOutput()
	if code := exitCodeOf(err); code != 0 {
		t.Fatalf("rejudge of an untouched bundle: exit %d, want 0\n%s", code, out)
	}
	want := "3 journals rejudged: 0 frames revalidated, 0 matched against the catalog's steps; 1 recorded not applicable " +
		"(no step played, none rejudged); 2 recorded as not passing rejudged alike, up to where each run ended; nothing differs\n"
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("rejudge (-want +got):\n%s", diff)
	}

	// A journal that is not one is listed and fails the rejudge (exit 1), as --help says.
	if err := os.WriteFile(filepath.Join(bundle, "journals", "zz.jsonl"), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = wirecheckCommand("rejudge", bundle).CombinedOutput()
	if code := exitCodeOf(err); code != 1 || !strings.Contains(string(out), "journals/zz.jsonl: not a journal") ||
		!strings.Contains(string(out), "; 1 journal cannot be read as one\n") {
		t.Errorf("rejudge with a broken journal: exit %d, want 1 and the journal named\n%s", code, out)
	}

	for _, args := range [][]string{{"rejudge", bundle, "--bogus"}, {"rejudge"}, {"rejudge", t.TempDir()}} {
		out, err := wirecheckCommand(args...).CombinedOutput()
		if code := exitCodeOf(err); code != 3 {
			t.Errorf("%q: exit %d, want 3 (usage error)\n%s", args, code, out)
		}
	}
}
