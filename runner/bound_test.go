package runner_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// longAdvance is a catalog of one scenario whose advance waits longer than any fixed bound would
// allow: ten minutes of real time against a daemon in another process.
func longAdvance(t *testing.T) *scenarios.Scenario {
	t.Helper()
	cat, err := scenarios.LoadFS(fstest.MapFS{"long.yaml": {Data: []byte(`id: test/long-advance
title: An advance of ten minutes
spec: [runtime-protocol.md#ownership-and-connection]
labels: [long-timer]
tests: runtime
steps:
  - {advance: 10m}
`)}}, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := cat.Get("test/long-advance")
	return sc
}

// deadlineTarget records the deadline of the context a scenario launches its daemon with, and
// launches nothing.
type deadlineTarget struct{ deadline chan time.Time }

func (deadlineTarget) Describe() string { return "records the deadline" }
func (deadlineTarget) Remote() bool     { return true }
func (t deadlineTarget) Launch(ctx context.Context, _ runner.Connect) (runner.Runtime, error) {
	d, _ := ctx.Deadline()
	t.deadline <- d
	return nil, context.Canceled
}

// A scenario's default bound comes from the real time its steps wait: the admission expiry's
// five minutes, not a fixed minute that made a correct daemon a harness error.
func TestScenarioBoundCoversTheRealTimeItsStepsWait(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	expiry, ok := cat.Get("admission/expiry/expired-admission-and-the-old-handle")
	if !ok {
		t.Fatal("the expiry scenario is gone")
	}
	if got := runner.RealWait(expiry); got < 5*time.Minute {
		t.Fatalf("RealWait = %v, want at least the five minutes of the expiry", got)
	}
	for _, sc := range []*scenarios.Scenario{expiry, longAdvance(t)} {
		target := deadlineTarget{deadline: make(chan time.Time, 1)}
		start := time.Now()
		runner.PlayRuntime(context.Background(), sc, 0, target, runner.Options{Seed: "bound"})
		bound := (<-target.deadline).Sub(start)
		if want := runner.ScenarioBound(sc, 0); bound < want-time.Second || want < runner.RealWait(sc)+30*time.Second {
			t.Errorf("%s: bound %v, want ScenarioBound %v, above its real wait %v", sc.ID, bound, want, runner.RealWait(sc))
		}
	}
	// An explicit Timeout still wins.
	target := deadlineTarget{deadline: make(chan time.Time, 1)}
	start := time.Now()
	runner.PlayRuntime(context.Background(), expiry, 0, target, runner.Options{Seed: "bound", Timeout: time.Minute})
	if bound := (<-target.deadline).Sub(start); bound > time.Minute+time.Second {
		t.Errorf("Timeout 1m gave a bound of %v", bound)
	}
}

// realTimeReference is the reference Runtime in process, presented as a daemon in another
// process: its clock is hidden, so advance steps wait on the wall clock.
type realTimeReference struct{ runner.ReferenceRuntime }

func (realTimeReference) Remote() bool { return true }
func (r realTimeReference) Launch(ctx context.Context, c runner.Connect) (runner.Runtime, error) {
	rt, err := r.ReferenceRuntime.Launch(ctx, c)
	return unclocked{rt}, err
}

type unclocked struct{ runner.Runtime }

// A long advance against a daemon in real time is announced as it starts, and ends as soon as the
// run is interrupted: a harness error that says so, never a fail.
func TestLongAdvanceIsAnnouncedAndEndsWhenInterrupted(t *testing.T) {
	sc := longAdvance(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var announced []runner.Wait
	var stopped time.Time
	done := make(chan *scenarios.Result, 1)
	go func() {
		done <- runner.PlayRuntime(ctx, sc, 0, realTimeReference{}, runner.Options{Seed: "interrupt",
			Waiting: func(w runner.Wait) {
				announced = append(announced, w)
				stopped = time.Now()
				cancel() // Ctrl-C, as the ten minutes begin
			}})
	}()
	select {
	case r := <-done:
		if took := time.Since(stopped); took > 2*time.Second {
			t.Errorf("the scenario took %v to end once interrupted", took)
		}
		if r.Verdict != scenarios.HarnessError || !strings.Contains(r.Failure.Message, "interrupted") {
			t.Errorf("want a harness error that says it was interrupted, got:\n%s", r)
		}
	case <-time.After(time.Minute):
		t.Fatal("an interrupted advance of ten minutes of real time did not end")
	}
	if len(announced) != 1 || announced[0].Duration != 10*time.Minute || announced[0].Step != 1 {
		t.Fatalf("announced %v, want the ten minutes of step 1", announced)
	}
	if got, want := announced[0].String(), "test/long-advance: waiting 10m0s of real time (advance step 1)"; got != want {
		t.Errorf("announced %q, want %q", got, want)
	}
}

// ExpectedRealTime counts the waits no step spells out: a handshake timeout for each stalled
// upgrade and a second of backoff for each unusable bootstrap answer, beside the advances; and
// RunRuntime starts the scenarios that wait longest first, whatever their order in the catalog
// (a long one started last would be the run's tail alone).
func TestTheLongestExpectedScenariosStartFirst(t *testing.T) {
	head := "title: t\nspec: [runtime-protocol.md#ownership-and-connection]\nlabels: [connection]\ntests: runtime\n"
	cat, err := scenarios.LoadFS(fstest.MapFS{"order.yaml": {Data: []byte(
		"id: test/one-minute\n" + head + "steps:\n  - {advance: 1m}\n---\n" +
			"id: test/stalled-five-times\n" + head + "bootstrap_answer:\n  stalled_upgrades: 5\n  unusable: [{status: 503}]\nsteps:\n  - {advance: 30s}\n---\n" +
			"id: test/ten-minutes\n" + head + "steps:\n  - {advance: 10m}\n")}}, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	var scs []*scenarios.Scenario
	for _, id := range []string{"test/one-minute", "test/stalled-five-times", "test/ten-minutes"} {
		sc, _ := cat.Get(id)
		scs = append(scs, sc)
	}
	// 30 s of advance, but 81 s expected: it goes before the one-minute scenario, whose advance is
	// longer.
	if got, want := runner.ExpectedRealTime(scs[1]), 30*time.Second+5*10*time.Second+time.Second; got != want {
		t.Errorf("ExpectedRealTime(five stalled upgrades, one unusable answer, 30s advance) = %v, want %v", got, want)
	}
	// One at a time: the launches come in the order the scenarios start, and each one's deadline
	// (its bound, which grows with its real wait) says which scenario it was.
	target := deadlineTarget{deadline: make(chan time.Time, len(scs))}
	start := time.Now()
	runner.RunRuntime(context.Background(), scs, target, runner.Options{Seed: "order", Parallel: 1})
	var started []time.Duration
	for range scs {
		started = append(started, (<-target.deadline).Sub(start).Round(time.Minute))
	}
	want := []time.Duration{runner.ScenarioBound(scs[2], 0), runner.ScenarioBound(scs[1], 0), runner.ScenarioBound(scs[0], 0)}
	if want[1].Round(time.Minute) == want[2].Round(time.Minute) {
		t.Fatalf("the test cannot tell the scenarios apart by their bounds: %v", want)
	}
	for i := range want {
		want[i] = want[i].Round(time.Minute)
	}
	if !slices.Equal(started, want) {
		t.Fatalf("bounds in the order the scenarios started: %v, want the longest first: %v", started, want)
	}
}
