package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wirecheckCommand is `wirecheck args...` run by this test binary (see reexecMain), with no
// terminal and CI unset.
func wirecheckCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = []string{reexecMain + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	return cmd
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// Every mistake a user can make on the command line is found before the first scenario: exit 3,
// what is wrong, and nothing played.
func TestCertifyUsageErrorsExitThreeBeforeAnyScenario(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	if err := os.MkdirAll(filepath.Join(full, "old-run"), 0o755); err != nil {
		t.Fatal(err)
	}
	knownFailing := filepath.Join(dir, "known-failing.txt")
	if err := os.WriteFile(knownFailing, []byte("admission/prepare\nadmision/renamed-long-ago\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	daemon := os.Args[0] + " runtime --server {core_url} --device {device_id}"
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"a daemon that is not there":   {[]string{"--runtime-cmd", "./no-such-daemon --core {core_url}"}, `the daemon command "./no-such-daemon" is not an executable`},
		"no target":                    {nil, "give exactly one target"},
		"parallel 0":                   {[]string{"--reference", "--parallel", "0"}, "--parallel 0: at least one"},
		"an unwritable report":         {[]string{"--reference", "--html", filepath.Join(dir, "missing", "report.html")}, "--html " + filepath.Join(dir, "missing", "report.html") + ": directory"},
		"a bundle that is not empty":   {[]string{"--reference", "--bundle", full}, "--bundle " + full + ": is not empty"},
		"a run pattern matching none":  {[]string{"--reference", "--run", "admision"}, `run pattern "admision" matches no scenario`},
		"a label matching none":        {[]string{"--reference", "--label-filter", "!long-timers"}, "the labels are: "},
		"a stale known-failing entry":  {[]string{"--reference", "--known-failing", knownFailing}, `"admision/renamed-long-ago" matches no scenario`},
		"a credential through --env":   {[]string{"--runtime-cmd", daemon, "--env", "WIRECHECK_CREDENTIAL=leaked"}, "the credential's variable"},
		"an unset variable to pass":    {[]string{"--runtime-cmd", daemon, "--env", "WIRECHECK_TEST_SURELY_UNSET"}, "not set in wirecheck's environment"},
		"an unknown flag":              {[]string{"--reference", "--paralel", "2"}, "unknown flag: --paralel"},
		"an argument":                  {[]string{"--reference", "admission"}, `unknown command "admission"`},
		"a shard that is not K/N":      {[]string{"--reference", "--shard", "3"}, `--shard "3": give K/N`},
		"a shard beyond N":             {[]string{"--reference", "--shard", "4/3"}, "--shard 4/3: K must be in 1..N"},
		"an empty shard":               {[]string{"--reference", "--run", "admission/capacity/oldest-retired-record-is-pruned", "--shard", "2/2"}, "shard 2/2 is empty: the selection has only 1 scenario,"},
		"a sign key without a bundle":  {[]string{"--reference", "--sign-key", knownFailing}, "--sign-key signs the evidence bundle: give --bundle too"},
		"a sign key that is no key":    {[]string{"--reference", "--bundle", filepath.Join(dir, "b"), "--sign-key", knownFailing}, `not a PEM "PRIVATE KEY"`},
		"every problem at once, first": {[]string{"--reference", "--parallel", "0", "--json", filepath.Join(dir, "missing", "r.json")}, "--json"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each case is its own process, reading only what the cases share
			cmd := wirecheckCommand(append([]string{"certify"}, c.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if code := exitCodeOf(err); code != 3 {
				t.Fatalf("exit %d, want 3 (usage)\n%s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), c.want) {
				t.Errorf("stderr does not say %q:\n%s", c.want, stderr.String())
			}
			if strings.Contains(stderr.String(), "wirecheck certify: ") {
				t.Errorf("scenarios were played:\n%s", stderr.String())
			}
		})
	}
}

// The exit codes and the daemon's environment are documented where a user looks first.
func TestCertifyHelpDocumentsExitCodesAndEnvironment(t *testing.T) {
	out, err := wirecheckCommand("certify", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0  certified", "1  not certified", "2  harness error", "3  usage or configuration error",
		"--env NAME passes", "--env PATH --env HOME", "Ctrl-C or SIGTERM", "each bounded by the time its steps wait", "--shard K/N", "wirecheck merge"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("certify --help does not say %q", want)
		}
	}
}

// merge's help says what it refuses and its exit codes.
func TestMergeHelpDocumentsRefusalsAndExitCodes(t *testing.T) {
	out, err := wirecheckCommand("merge", "--help").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"merge OUT SHARD_DIR...", "manifest.json", "shard.catalog_digest", "a shard given twice or missing",
		"a scenario present in", "0  certified", "3  the shards cannot be merged"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("merge --help does not say %q", want)
		}
	}
	if code, stderr := runWirecheck("merge", t.TempDir()); code != 3 || !strings.Contains(stderr, "give OUT, then every shard's bundle directory") {
		t.Errorf("merge with no shard: exit %d:\n%s", code, stderr)
	}
}

// Ctrl-C or SIGTERM in the middle of a ten-minute advance against a daemon in another process:
// the wait was announced, wirecheck ends within 2 s with exit 2, and the reports are written with
// the scenario as an interrupted harness error.
func TestCertifyEndsWithinTwoSecondsOfASignalDuringALongWait(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary and a daemon")
	}
	catalog := t.TempDir()
	if err := os.WriteFile(filepath.Join(catalog, "long.yaml"), []byte(`id: test/long-advance
title: An advance of ten minutes
spec: [runtime-protocol.md#ownership-and-connection]
labels: [long-timer]
tests: runtime
steps:
  - {advance: 10m}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := t.TempDir()
			report := filepath.Join(out, "report.json")
			cmd := wirecheckCommand("certify", "--catalog", catalog, "--json", report, "--bundle", filepath.Join(out, "bundle"),
				"--runtime-cmd", os.Args[0]+" runtime --server {core_url} --device {device_id}",
				"--env", reexecMain+"=1") // the daemon is this test binary too
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }()
			lines, quit := make(chan string), make(chan struct{})
			defer close(quit)
			go func() { // owner: the child's stderr; ends when it closes or the test does
				defer close(lines)
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					select {
					case lines <- sc.Text():
					case <-quit:
						return
					}
				}
			}()
			var seen []string
			bound := time.NewTimer(time.Minute)
			defer bound.Stop()
		announce:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("wirecheck ended before the long wait:\n%s", strings.Join(seen, "\n"))
					}
					seen = append(seen, l)
					if l == "test/long-advance: waiting 10m0s of real time (advance step 1)" {
						break announce
					}
				case <-bound.C:
					t.Fatalf("the long wait was never announced:\n%s", strings.Join(seen, "\n"))
				}
			}
			signalled := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			ended := time.NewTimer(30 * time.Second)
			defer ended.Stop()
		drain:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						break drain
					}
					seen = append(seen, l)
				case <-ended.C:
					t.Fatalf("wirecheck still runs 30 s after %v:\n%s", sig, strings.Join(seen, "\n"))
				}
			}
			err = cmd.Wait()
			took := time.Since(signalled)
			t.Logf("ended %v after %v:\n%s", took.Round(time.Millisecond), sig, strings.Join(seen, "\n"))
			if took > 2*time.Second {
				t.Errorf("wirecheck took %v to end after %v", took, sig)
			}
			if code := exitCodeOf(err); code != 2 {
				t.Errorf("exit %d, want 2 (interrupted)", code)
			}
			data, err := os.ReadFile(report)
			if err != nil || !bytes.Contains(data, []byte("interrupted")) || !bytes.Contains(data, []byte("harness_error")) {
				t.Errorf("the JSON report does not record the interrupted scenario (%v):\n%s", err, data)
			}
			if _, err := os.Stat(filepath.Join(out, "bundle", "report.json")); err != nil {
				t.Errorf("no bundle: %v", err)
			}
		})
	}
}

// An image the engine does not have is found before the first scenario.
func TestCertifyRefusesAnImageTheEngineLacks(t *testing.T) {
	engine, err := exec.LookPath("podman")
	if err != nil {
		t.Skip("no podman on this machine")
	}
	conf := os.Getenv("CONTAINERS_CONF")
	if conf == "" {
		conf, _ = filepath.Abs("../../.ci/containers.conf")
	}
	cmd := wirecheckCommand("certify", "--runtime-image", "localhost/wirecheck-surely-missing:none", "--engine", engine)
	cmd.Env = append(cmd.Env, "CONTAINERS_CONF="+conf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := exitCodeOf(err); code != 3 || !strings.Contains(stderr.String(), "is not in") {
		t.Fatalf("exit %d, want 3 with the image named:\n%s", code, stderr.String())
	}
}
