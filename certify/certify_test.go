package certify_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
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

// neverConnects is a target whose daemons all fail before a connection, once `fine` have
// launched as the reference.
type neverConnects struct {
	runner.ReferenceRuntime
	fine     int
	hang     int // launches after this many wait to be stopped, as a daemon slow to fail would
	launches *atomic.Int32
}

func (n neverConnects) Launch(ctx context.Context, c runner.Connect) (runner.Runtime, error) {
	i := int(n.launches.Add(1))
	if i <= n.fine {
		return n.ReferenceRuntime.Launch(ctx, c)
	}
	if n.hang > 0 && i > n.hang {
		<-ctx.Done()
		return nil, errors.New("the daemon was killed by signal 15 before it bootstrapped")
	}
	return nil, errors.New("the daemon exited before it bootstrapped")
}

// A daemon whose first three scenarios all fail the same way before a connection stops the run:
// it is said as it stops, the rest are reported not run with why, and the run is not certified.
// --no-fail-fast plays them all; so does a run whose daemon got past its connection once.
func TestADaemonThatCannotConnectStopsTheRunEarly(t *testing.T) {
	selection := []string{"admission/prepare"}
	var said []*certify.StoppedEarly
	// Four at a time: the fourth and later launches are still under way when the run stops.
	run, err := certify.Run(context.Background(), certify.Config{Target: neverConnects{hang: 3, launches: new(atomic.Int32)},
		Run: selection, Seed: "fail-fast", Parallel: 4, Stopping: func(e *certify.StoppedEarly) { said = append(said, e) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cases) < 6 {
		t.Fatalf("the selection has %d scenarios: too few to show a stop", len(run.Cases))
	}
	played, notRun := 0, 0
	for _, c := range run.Cases {
		switch m := c.Result.Failure.Message; {
		case strings.Contains(m, "stopped early: the first 3 scenarios to end all failed the same way before a connection"):
			notRun++ // not started, or cut short by the stop
		case strings.Contains(m, "exited before it bootstrapped"):
			played++
		default:
			t.Errorf("%s: %s", c.Result.Scenario, m)
		}
	}
	if played != certify.FailFastAfter || notRun != len(run.Cases)-played || len(said) != 1 || !strings.Contains(said[0].Error(), "--no-fail-fast") {
		t.Fatalf("played %d, not run %d of %d; said %v", played, notRun, len(run.Cases), said)
	}
	if run.ExitCode() == reports.ExitCertified {
		t.Fatal("a run stopped early was certified")
	}
	// One cause: the daemon's. The scenarios the stop cut short are grouped under the failure it
	// stopped for (what a daemon cut short did once stopped is not a cause of its own).
	if causes := run.Causes(); len(causes) != 1 || len(causes[0].Scenarios) != len(run.Cases) ||
		!strings.Contains(causes[0].Text, "exited before it bootstrapped") {
		t.Fatalf("causes: %+v", causes)
	}

	for name, cfg := range map[string]certify.Config{
		"--no-fail-fast":               {Target: neverConnects{launches: new(atomic.Int32)}, NoFailFast: true},
		"a daemon that connected once": {Target: neverConnects{fine: 1, launches: new(atomic.Int32)}},
	} {
		cfg.Run, cfg.Seed = selection, "fail-fast"
		run, err := certify.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range run.Cases {
			if f := c.Result.Failure; f != nil && strings.Contains(f.Message, "not run") {
				t.Fatalf("%s: %s was not run: %s", name, c.Result.Scenario, f.Message)
			}
		}
	}
}
