package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/agentruntime"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Daemons that break the protocol are failed with a clear reason, within a bounded time, and
// nothing they started outlives the run.
func TestMisbehavingDaemonsFailClearly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin, err := testbin.Build("../internal/misbehave")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	const stall = "runtime/stall/unanswered-upgrade-is-given-up-at-the-handshake-timeout"
	const heartbeatStep = "connection/heartbeat/first-frame-declares-capabilities" // reads the heartbeat as a step
	scs := runner.Select(cat, runner.Options{Run: []string{"prefix/started", "connection/version/0-7-0"}})
	// The stalled upgrade is played only where it shows something: a daemon that upgrades waits
	// out its handshake timeout there, 10 s of real time.
	withStall := runner.Select(cat, runner.Options{Run: []string{"prefix/started", "connection/version/0-7-0", stall}})
	withHeartbeatStep := runner.Select(cat, runner.Options{Run: []string{"prefix/started", "connection/version/0-7-0", heartbeatStep}})
	cases := map[string]map[string]string{ // mode → scenario → what the failure must say
		// One root cause, worded one way, whatever each scenario waited for.
		"exit": {"prefix/started": "the Runtime stopped before its first request (exit code 7", "connection/version/0-7-0": "the Runtime stopped before its first request (exit code 7",
			stall: "the Runtime stopped before its first request (exit code 7"},
		"exit-in-handshake": {"prefix/started": "the Runtime stopped before connecting (exit code 9", "connection/version/0-7-0": "the Runtime stopped before its connection could be refused (exit code 9"},
		"exit-mid-run":      {"prefix/started": "the Runtime had exited (exit code 5; last output: misbehave: crashing on execution_start"},
		"silent":            {"prefix/started": "did not connect within", "connection/version/0-7-0": "no connection attempt", stall: "made no upgrade within"},
		"half-capabilities": {"prefix/started": "the declaration of kind \"contract\" is incomplete: 15 capability members missing",
			heartbeatStep: "capabilities.streaming: is required"},
		"no-contract":      {"prefix/started": "does not advertise kind \"contract\""},
		"hang-after-ready": {"prefix/started": "nothing arrived within"},
		"garbage":          {"prefix/started": "breaks a wire rule: envelope: malformed JSON"},
		"flood":            {"prefix/started": "type: want preparation_status, got delta"},
		// Its upgrades are refused before the stalled one could be: said at once, never "no upgrade".
		"old-version": {"prefix/started": "refused the Runtime's connection with 426 incompatible_version", "connection/version/0-7-0": "tried again",
			stall: "refused the Runtime's connection with 426 incompatible_version"},
		// The older daemon of W3.3, repaired one fix at a time: each fix shows the next cause, and
		// the first names both halves of the credential's fix at once.
		"legacy":                    {"prefix/started": `the daemon sends no Authorization: Bearer header; its credential travels in the URL instead (query parameter "token")`},
		"legacy/bearer":             {"prefix/started": `the daemon puts a credential in the URL (query parameter "token"); it must travel only in the Authorization: Bearer header`},
		"legacy/bearer,url":         {"prefix/started": `the daemon speaks wire version "0.2.0"; this Core speaks ` + proto.Version + ` only`},
		"legacy/bearer,url,version": {"prefix/started": `the declaration of kind "contract" is incomplete: 26 capability members missing`},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			mode, fix, _ := strings.Cut(name, "/")
			units := &runner.Units{Command: bin, Args: []string{"--mode", mode, "--fix", fix, "--server", "{core_url}", "--device", "{device_id}"},
				CredentialEnv: "WIRECHECK_CREDENTIAL", Credential: "wck_test", Grace: time.Second, What: "misbehave " + mode}
			local := agentruntime.NewLocal(agentruntime.LocalOptions{Allowlist: agentruntime.AllowEnv("WIRECHECK_CREDENTIAL"), LookupEnv: units.Lookup})
			units.RT = local
			defer local.Close()
			start := time.Now()
			scs := scs
			if want[stall] != "" {
				scs = withStall
			}
			if want[heartbeatStep] != "" {
				scs = withHeartbeatStep
			}
			results := runner.RunRuntime(context.Background(), scs, units, runner.Options{
				Seed: "m", Step: 500 * time.Millisecond, Start: 2 * time.Second, Timeout: 20 * time.Second, Credential: "wck_test"})
			if elapsed := time.Since(start); elapsed > 15*time.Second {
				t.Errorf("took %v", elapsed)
			}
			for _, r := range results {
				t.Logf("%s", r)
				if r.Verdict == scenarios.Pass && want[r.Scenario] != "" {
					t.Errorf("%s passed against a daemon that %s", r.Scenario, mode)
					continue
				}
				if w := want[r.Scenario]; w != "" && (r.Failure == nil || !strings.Contains(r.Failure.Message, w)) {
					t.Errorf("%s: want a failure saying %q, got:\n%s", r.Scenario, w, r)
				}
				if w := want[r.Scenario]; w != "" && r.Verdict != wantVerdict(mode) {
					t.Errorf("%s: verdict %s, want %s", r.Scenario, r.Verdict, wantVerdict(mode))
				}
				if strings.HasPrefix(mode, "exit") && r.Duration > 3*time.Second {
					t.Errorf("%s: an exited daemon took %v to be noticed", r.Scenario, r.Duration)
				}
			}
			// A daemon refused before its upgrade fails every scenario for one root cause, whatever the
			// scenario expected of its refusal.
			if mode == "exit" || name == "legacy" || name == "legacy/bearer" {
				run := &reports.Run{}
				for _, r := range results {
					run.Cases = append(run.Cases, reports.Case{Result: r})
				}
				if causes := run.Causes(); len(causes) != 1 {
					t.Errorf("a daemon that %s has %d causes, want 1: %+v", name, len(causes), causes)
				}
			}
			if mode == "no-contract" || mode == "half-capabilities" {
				// Whatever passed, a daemon without a usable contract kind is not certified, and
				// that is the first reason given.
				run := &reports.Run{}
				for _, r := range results {
					run.Cases = append(run.Cases, reports.Case{Result: r})
				}
				run.Profile = reports.DetectProfile(run.Cases)
				if run.ExitCode() != reports.ExitNotCertified || len(run.Reasons()) == 0 || !strings.Contains(run.Reasons()[0], "contract") {
					t.Errorf("a daemon whose contract kind is %s: exit %d, reasons %q", mode, run.ExitCode(), run.Reasons())
				}
				// One root cause, whether a scenario reads the heartbeat first or as a step.
				if causes := run.Causes(); mode == "half-capabilities" && len(causes) != 1 {
					t.Errorf("a daemon whose contract kind is %s has %d causes, want 1: %+v", mode, len(causes), causes)
				}
			}
			statuses, err := local.List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range statuses {
				if u.Health.Alive() {
					t.Errorf("unit %s still alive after the run (%v)", u.ID, u.Health)
				}
			}
		})
	}
}

// wantVerdict: a daemon without the contract kind cannot be tested at all (not applicable, and a
// run of such results certifies nothing); every other misbehaviour fails.
func wantVerdict(mode string) scenarios.Verdict {
	if mode == "no-contract" {
		return scenarios.NotApplicable
	}
	return scenarios.Fail
}
