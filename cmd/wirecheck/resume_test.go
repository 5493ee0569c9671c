package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A certification interrupted after its first scenario, resumed from its bundle, reports the
// verdicts a single run with the same seed reports, scenario for scenario, in the same order, and
// its bundle verifies.
func TestResumedCertificationEqualsOneRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, resumed, single := filepath.Join(dir, "first"), filepath.Join(dir, "resumed"), filepath.Join(dir, "single")
	key := filepath.Join(dir, "signing.pem")
	if out, err := wirecheckCommand("keygen", "--out", key).CombinedOutput(); err != nil {
		t.Fatalf("keygen: %v\n%s", err, out)
	}
	args := []string{"certify", "--reference", "--run", "admission/prepare", "--markdown", "", "--seed", "resume-test", "--sign-key", key}

	cmd := wirecheckCommand(append(args, "--bundle", first)...)
	cmd.Env = append(cmd.Env, "CI=1") // one progress line per scenario
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "[ 1/") { // the first verdict is in: interrupt the run
			_ = cmd.Process.Signal(syscall.SIGINT)
			break
		}
	}
	for lines.Scan() {
	}
	if code := exitCodeOf(cmd.Wait()); code != 2 {
		t.Fatalf("the interrupted run: exit %d, want 2", code)
	}

	out, err := wirecheckCommand("certify", "--reference", "--resume", first, "--bundle", resumed, "--markdown", "", "--quiet", "--sign-key", key).CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "resuming "+first+" (seed resume-test): ") {
		t.Errorf("resume does not say what it continues:\n%s", out)
	}
	if out, err := wirecheckCommand(append(args, "--bundle", single, "--quiet")...).CombinedOutput(); err != nil {
		t.Fatalf("the single run: %v\n%s", err, out)
	}
	type verdict struct{ ID, Verdict, Seed string }
	verdicts := func(bundle string) []verdict {
		raw, err := os.ReadFile(filepath.Join(bundle, "report.json"))
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Cases []struct{ ID, Verdict, Seed string }
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		var out []verdict
		for _, c := range r.Cases {
			out = append(out, verdict(c))
		}
		return out
	}
	got, want := verdicts(resumed), verdicts(single)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resumed run against one run (-one +resumed):\n%s", diff)
	}
	if slices.ContainsFunc(got, func(v verdict) bool { return v.Verdict != "pass" }) {
		t.Errorf("a resumed verdict is not pass: %v", got)
	}
	// The first run's journals are kept with their signatures; the resumed run signs its own
	// journals and the new manifest.
	if out, err := wirecheckCommand("verify", resumed, "--pubkey", key+".pub").CombinedOutput(); err != nil || !strings.Contains(string(out), "manifest matches and is signed by ") {
		t.Errorf("the resumed bundle does not verify: %v\n%s", err, out)
	}

	// Nothing left: resuming a finished run is refused, as is another seed.
	if out, err := wirecheckCommand("certify", "--reference", "--resume", resumed, "--bundle", filepath.Join(dir, "again")).CombinedOutput(); exitCodeOf(err) != exitUsage || !strings.Contains(string(out), "nothing to continue") {
		t.Errorf("resuming a finished run: %v\n%s", err, out)
	}
	if out, err := wirecheckCommand("certify", "--reference", "--resume", first, "--seed", "other", "--bundle", filepath.Join(dir, "other")).CombinedOutput(); exitCodeOf(err) != exitUsage || !strings.Contains(string(out), "played seed resume-test") {
		t.Errorf("resuming with another seed: %v\n%s", err, out)
	}
}
