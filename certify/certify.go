// Package certify certifies a Runtime daemon against the wire contract: it launches the daemon
// once per scenario, plays Core against it with the catalog, and returns the results model that
// every report is written from. `wirecheck certify` is this function behind flags; Test is the
// same run as a Go test, one subtest per scenario, for a Runtime author's own `go test`.
package certify

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Config says what to certify and how. Only Target is required.
type Config struct {
	// Target launches the Runtime under test: runner.Command (a local process), runner.Image (a
	// container), runner.ReferenceRuntime{} (in process), or any runner.Target of your own.
	Target runner.Target
	// Catalog is the scenarios to choose from; the embedded catalog when nil.
	Catalog *scenarios.Catalog
	// Run and Skip are scenario id patterns (`admission`, `cancellation/*`); empty Run: all.
	Run, Skip []string
	// LabelFilter is a Ginkgo label expression over scenario labels (`preparation && !long-timer`).
	LabelFilter string
	// KnownFailing lists scenarios expected to fail: they still run, and an unexpected pass fails
	// the run. KnownFailingFiles names where the list came from, for the report.
	KnownFailing      *runner.KnownFailing
	KnownFailingFiles []string
	Parallel          int // scenarios at once, each with its own daemon; 1 by default
	// NoFailFast plays every scenario even when the first FailFastAfter to end all failed the same
	// way before a connection (by default the run then stops: see StoppedEarly).
	NoFailFast bool
	// Stopping, if set, hears why the run is stopping early, as it stops.
	Stopping func(*StoppedEarly)
	// Timeout bounds every scenario; by default each gets runner.ScenarioBound, derived from the
	// real time its steps wait (an admission's expiry waits five minutes against a daemon in
	// another process).
	Timeout time.Duration
	// Step bounds every read and wait inside a scenario: by default 3 s against a daemon in another
	// process, and runner.InProcessBound (a safety net) against a Target in process.
	Step time.Duration
	Seed string // reproduces generated values and fault choices; random by default
	// Faults is a fault schedule applied through a relay to every scenario.
	Faults *fault.Schedule
	// SpecDirs hold the files the scenarios cite (the spec, and docs/ for contract-harness.md):
	// given, the HTML report quotes each cited section (see reports.Run.SpecDirs).
	SpecDirs []string
	// Shard, when its Count is set, plays only the Index-th of Count shares of the selection
	// (after Run, Skip and LabelFilter): see SelectShard. The run then records the shard, the
	// whole selection's size and digest, and CatalogDigest, for `wirecheck merge`.
	Shard Shard
	// CatalogDigest identifies the catalog (see CatalogDigest); recorded in a shard's report so
	// that shards of different catalogs are never merged, and in every journal's header (the
	// embedded catalog's is computed when it is empty and Catalog is nil).
	CatalogDigest string
	// Progress, if set, sees each result as it completes; Started each scenario as it starts;
	// Waiting each long wait of real time as it starts (all from several goroutines).
	Progress func(*scenarios.Result)
	Started  func(*scenarios.Scenario)
	Waiting  func(runner.Wait)
}

// Selection is the scenarios a Config selects, in catalog order, with the parsed options runner
// plays them with.
type Selection struct {
	Scenarios []*scenarios.Scenario
	Options   runner.Options
	// Shard is set when Config.Shard is: which share Scenarios are, of how big a selection.
	Shard *reports.Shard
}

// Select resolves the catalog and the selection of cfg, without playing anything. An empty
// selection is an error (Check says more).
func Select(cfg Config) (Selection, error) {
	sel, _, err := selectFrom(cfg)
	if err == nil && len(sel.Scenarios) == 0 {
		err = errors.New("no scenario is selected")
	}
	return sel, err
}

// selectFrom is Select and the catalog it selected from.
func selectFrom(cfg Config) (Selection, *scenarios.Catalog, error) {
	if cfg.Target == nil {
		return Selection{}, nil, errors.New("certify: no target: give a runner.Target (runner.Command, runner.Image, runner.ReferenceRuntime{})")
	}
	cat := cfg.Catalog
	if cat == nil {
		var err error
		if cat, err = scenarios.Embedded(); err != nil {
			return Selection{}, nil, err
		}
	}
	labels, err := runner.ParseLabelFilter(cfg.LabelFilter)
	if err != nil {
		return Selection{}, nil, err
	}
	o := runner.Options{Run: cfg.Run, Skip: cfg.Skip, Labels: labels, Parallel: cfg.Parallel, Timeout: cfg.Timeout,
		Step: cfg.Step, Seed: cfg.Seed, Faults: cfg.Faults, Progress: cfg.Progress, Started: cfg.Started, Waiting: cfg.Waiting}
	if o.Seed == "" {
		o.Seed = runner.NewSeed()
	}
	sel := Selection{Scenarios: runner.Select(cat, o), Options: o}
	if cfg.Shard.Count > 0 {
		if err := cfg.Shard.valid(); err != nil {
			return Selection{}, nil, err
		}
		var ids []string
		for _, sc := range sel.Scenarios {
			ids = append(ids, sc.ID)
		}
		sel.Shard = &reports.Shard{Index: cfg.Shard.Index, Count: cfg.Shard.Count, Total: len(ids),
			Catalog: cfg.CatalogDigest, Selection: reports.SelectionDigest(ids)}
		sel.Scenarios = SelectShard(sel.Scenarios, cfg.Shard)
	}
	return sel, cat, nil
}

// Run certifies cfg.Target: it plays every selected scenario and returns the run, whose
// ProfileLine and ExitCode give the verdict. If ctx ends, scenarios not finished are harness
// errors and the run is still returned. The error is for a configuration that cannot run, found
// by Check before the first scenario.
func Run(ctx context.Context, cfg Config) (*reports.Run, error) {
	sel, err := check(ctx, cfg)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	if !cfg.NoFailFast {
		var stop context.CancelCauseFunc
		ctx, stop = context.WithCancelCause(ctx)
		defer stop(nil)
		sel.Options.Progress = failFast(sel.Options.Progress, cfg, stop)
	}
	results := runner.RunRuntime(ctx, sel.Scenarios, cfg.Target, sel.Options)
	return newRun(cfg, sel, started, results), nil
}

// FailFastAfter is how many scenarios, the first to end, must fail the same way before a
// connection for a run to stop early: a daemon that cannot connect would otherwise cost every
// scenario its start-up bound.
const FailFastAfter = 3

// StoppedEarly is the cause a run is stopped with when its first FailFastAfter scenarios failed
// the same way before a connection; the scenarios it did not finish are harness errors that say
// so.
type StoppedEarly struct{ Cause string }

// RootCause is the failure the run stopped for: the scenarios the stop cut short are grouped
// under it (runner.RootCauser), one cause with the scenarios that showed it.
func (e *StoppedEarly) RootCause() string { return e.Cause }

func (e *StoppedEarly) Error() string {
	return fmt.Sprintf("stopped early: the first %d scenarios to end all failed the same way before a connection (%s); --no-fail-fast plays every scenario",
		FailFastAfter, e.Cause)
}

// sentAFrame reports whether the Runtime sent a frame on a WebSocket in r: it connected, though
// its failure may be at step 0 (an invalid first heartbeat, a check after the last step).
func sentAFrame(r *scenarios.Result) bool {
	for _, x := range r.Transcript {
		if x.Dir == scenarios.RuntimeToCore {
			return true
		}
	}
	return false
}

// failFast wraps a run's Progress: once the first FailFastAfter results all failed before their
// first step without a frame from the Runtime, under one cause, it stops the run. A single result
// that got further (a pass, a failure at a step, a frame sent) means the daemon can connect, and
// the run goes on to its end.
func failFast(progress func(*scenarios.Result), cfg Config, stop context.CancelCauseFunc) func(*scenarios.Result) {
	var secrets []string
	if c, ok := cfg.Target.(runner.Credentialed); ok {
		secrets = []string{c.RunCredential()}
	}
	var mu sync.Mutex
	var causes []string // of the first results, each failed before a connection
	decided := false
	return func(r *scenarios.Result) {
		if progress != nil {
			progress(r)
		}
		mu.Lock()
		defer mu.Unlock()
		if decided || r.Verdict == scenarios.NotApplicable { // not applicable says nothing of connecting
			return
		}
		if r.Verdict == scenarios.Pass || r.Failure == nil || r.Failure.Step != 0 || sentAFrame(r) {
			decided = true // the daemon got past its connection once: never stop
			return
		}
		c := reports.CauseOf(reports.Case{Result: r}, secrets)
		if len(causes) > 0 && causes[0] != c {
			decided = true
			return
		}
		if causes = append(causes, c); len(causes) == FailFastAfter {
			decided = true
			why := &StoppedEarly{Cause: c}
			if cfg.Stopping != nil {
				cfg.Stopping(why)
			}
			stop(why)
		}
	}
}

// newRun is the results model of a run: the cases in selection order and the declared profile.
func newRun(cfg Config, sel Selection, started time.Time, results []*scenarios.Result) *reports.Run {
	run := &reports.Run{
		Tool: toolVersion(), WireVersion: proto.Version, Target: cfg.Target.Describe(), Seed: sel.Options.Seed,
		CatalogDigest: catalogDigest(cfg), Clock: clockMode(cfg.Target), Started: started, Finished: time.Now(),
		Selection: reports.Selection{Run: cfg.Run, Skip: cfg.Skip, Labels: cfg.LabelFilter, KnownFailing: cfg.KnownFailingFiles},
		SpecDirs:  cfg.SpecDirs, Shard: sel.Shard,
	}
	if c, ok := cfg.Target.(runner.Credentialed); ok {
		run.Redact = []string{c.RunCredential()}
	}
	for _, r := range results {
		if r != nil {
			run.Cases = append(run.Cases, reports.Case{Result: r, KnownFailing: cfg.KnownFailing.Has(r.Scenario)})
		}
	}
	run.Profile = reports.DetectProfile(run.Cases)
	return run
}

// catalogDigest is cfg's CatalogDigest, or the embedded catalog's when cfg plays it.
func catalogDigest(cfg Config) string {
	if cfg.CatalogDigest != "" || cfg.Catalog != nil {
		return cfg.CatalogDigest
	}
	d, _ := CatalogDigest(scenarios.EmbeddedFS()) // the embedded files always read
	return d
}

// clockMode is "virtual" for the reference Runtime in process (advance steps move its clock),
// "real" for a daemon in another process.
func clockMode(t runner.Target) string {
	switch t.(type) {
	case runner.ReferenceRuntime, *runner.ReferenceRuntime:
		return "virtual"
	}
	return "real"
}

func toolVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return "wirecheck " + info.Main.Version
	}
	return "wirecheck (devel)"
}

// Describe is a one-line account of a selection, as `wirecheck certify` prints it first.
func (s Selection) Describe(t runner.Target) string {
	shard := ""
	if s.Shard != nil {
		shard = fmt.Sprintf(" (shard %d/%d of a selection of %d)", s.Shard.Index, s.Shard.Count, s.Shard.Total)
	}
	return fmt.Sprintf("%d scenarios%s against %s (seed %s)", len(s.Scenarios), shard, t.Describe(), s.Options.Seed)
}
