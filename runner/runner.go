package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Launcher starts the Runtime under test for one scenario.
type Launcher interface {
	// Describe names the target for reports ("reference Runtime (in process)", "command: …").
	Describe() string
	// Launch starts a Runtime that connects to c.ServerURL as c.DeviceID with c.Credential. A
	// Runtime that implements scriptedcore.Clocked brings the clock advance steps move.
	Launch(ctx context.Context, c scriptedcore.Connect) (scriptedcore.Runtime, error)
	// Remote reports whether the Runtime runs in another process, in real time: its version cannot
	// be changed (the scripted Core shifts its own), and advance steps wait.
	Remote() bool
}

// Options select and bound a run.
type Options struct {
	Run, Skip []string // scenario id patterns (scenarios.MatchID)
	Labels    *LabelFilter
	Parallel  int           // scenarios at once; default 1
	Timeout   time.Duration // per scenario; default 60 s
	Step      time.Duration // the bound on every read and wait inside a scenario; default 3 s
	Seed      string        // printed; reproduces generated values; default random
	// Credential is the run's daemon credential (default: a fresh random one). It reaches the
	// daemon by environment only and never appears in a report.
	Credential string
	// Faults is a schedule applied to every scenario through a relay (certify --faults); scenarios
	// with fault steps get a relay anyway.
	Faults *fault.Schedule
	// Progress, if set, sees every result as it completes (from several goroutines when Parallel > 1).
	Progress func(*scenarios.Result)
}

// Select returns the scenarios of a catalog that the options select for testing a Runtime.
func Select(c *scenarios.Catalog, o Options) []*scenarios.Scenario {
	var out []*scenarios.Scenario
	for _, sc := range c.Select(o.Run, o.Skip) {
		if sc.Tests.Covers(scenarios.SideRuntime) && o.Labels.Match(sc.Labels) {
			out = append(out, sc)
		}
	}
	return out
}

// NewSeed returns a random seed for a run.
func NewSeed() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RunRuntime plays every scenario against a fresh Runtime from l. Results come back in the order
// of scs. If ctx ends, scenarios not yet finished are reported as harness errors ("interrupted")
// and everything finished is kept.
func RunRuntime(ctx context.Context, scs []*scenarios.Scenario, l Launcher, o Options) []*scenarios.Result {
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Seed == "" {
		o.Seed = NewSeed()
	}
	if o.Credential == "" {
		o.Credential = NewCredential()
	}
	results := make([]*scenarios.Result, len(scs))
	sem := make(chan struct{}, o.Parallel)
	var wg sync.WaitGroup
	for i, sc := range scs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = runOne(ctx, sc, i, l, o)
			if o.Progress != nil {
				o.Progress(results[i])
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r == nil {
			results[i] = &scenarios.Result{Scenario: scs[i].ID, Title: scs[i].Title, Spec: scs[i].Spec, Labels: scs[i].Labels,
				Played: scenarios.SideCore, Verdict: scenarios.HarnessError, Seed: o.Seed,
				Failure: &scenarios.Failure{Message: "harness error: the run was interrupted before this scenario ran"}}
		}
	}
	return results
}

func runOne(ctx context.Context, sc *scenarios.Scenario, i int, l Launcher, o Options) *scenarios.Result {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cfg := scriptedcore.Config{
		DeviceID:     fmt.Sprintf("wirecheck-%s-%03d", o.Seed, i),
		Credential:   o.Credential,
		Timeout:      o.Step,
		Seed:         o.Seed + "/" + sc.ID,
		ShiftVersion: true,
	}
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		return l.Launch(ctx, c)
	}
	var relay *Relay
	if sc.HasFaults() || o.Faults != nil {
		relay = &Relay{Schedule: o.Faults, Seed: cfg.Seed}
		defer relay.Close()
		cfg.Faults = relay
		launch = Relayed(relay, launch)
	}
	r := scriptedcore.Play(ctx, sc, cfg, launch)
	if relay != nil {
		r.Transcript = append(r.Transcript, relay.Events()...)
	}
	if ctx.Err() != nil && r.Verdict == scenarios.Fail {
		// The scenario's own bound expired: a deadline is the harness's, not the Runtime's, fault
		// unless a step had already failed on its own.
		r.Verdict = scenarios.HarnessError
		r.Failure.Message = "harness error: " + ctx.Err().Error() + ": " + r.Failure.Message
	}
	return r
}

// NewCredential returns a fresh daemon credential for a run. It reaches the daemon by environment
// only and is never written to a report.
func NewCredential() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return "wck_" + hex.EncodeToString(b)
}
