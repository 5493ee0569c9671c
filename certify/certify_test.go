package certify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The whole catalog against the reference Runtime in process, as a Runtime author's test would
// run it against theirs: one subtest per scenario.
func TestReferenceRuntimeConforms(t *testing.T) {
	certify.Test(t, certify.Config{Target: runner.ReferenceRuntime{}, Seed: "certify-test"})
}

// Certifying the reference Runtime in process: the run is the results model every report is
// written from.
func ExampleRun() {
	run, err := certify.Run(context.Background(), certify.Config{
		Target: runner.ReferenceRuntime{}, Run: []string{"admission/prepare"}, Parallel: 4, Seed: "example"})
	if err != nil {
		panic(err)
	}
	s := run.Summary()
	fmt.Printf("exit code %d; every applicable scenario passed: %v\n", run.ExitCode(), s.Applicable > 0 && s.Pass == s.Applicable)
	// Output: exit code 0; every applicable scenario passed: true
}

// A Runtime that breaks a promise is not certified, and the failure names the scenario.
func TestBrokenRuntimeIsNotCertified(t *testing.T) {
	sched, err := fault.LoadSchedule("mutant.yaml", []byte(`rules: [{name: m, match: {direction: runtime→core, type: done}, duplicate: {}}]`))
	if err != nil {
		t.Fatal(err)
	}
	run, err := certify.Run(context.Background(), certify.Config{Target: runner.ReferenceRuntime{},
		Run: []string{"runs/prompt-request/streams-in-order-then-done"}, Faults: sched, Seed: "mutant"})
	if err != nil {
		t.Fatal(err)
	}
	if run.ExitCode() != reports.ExitNotCertified {
		t.Fatalf("a Runtime that sends done twice was certified: %s", run.ProfileLine())
	}
	if r := run.Cases[0].Result; r.Verdict != scenarios.Fail || !strings.Contains(r.String(), "streams-in-order-then-done") {
		t.Fatalf("the failure does not name its scenario:\n%s", r)
	}
}

// A configuration that cannot run is an error, not a verdict.
func TestConfigurationErrors(t *testing.T) {
	for name, cfg := range map[string]certify.Config{
		"no target":          {},
		"a bad label filter": {Target: runner.ReferenceRuntime{}, LabelFilter: "(preparation"},
	} {
		if _, err := certify.Run(context.Background(), cfg); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
