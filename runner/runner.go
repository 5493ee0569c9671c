package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Options select and bound a run.
type Options struct {
	Run, Skip []string // scenario id patterns (scenarios.MatchID)
	Labels    *LabelFilter
	Parallel  int           // scenarios at once; default 1
	Timeout   time.Duration // per scenario; default 60 s
	Step      time.Duration // the bound on every read and wait inside a scenario; default 3 s
	Start     time.Duration // the bound on a launched daemon's first connection attempt; default 20 s
	Seed      string        // printed; reproduces generated values; default random
	// Credential is the run's daemon credential (default: a fresh random one). It reaches the
	// daemon by environment only and never appears in a report.
	Credential string
	// Faults is a schedule applied to every scenario through a relay (certify --faults); scenarios
	// with fault steps get a relay anyway. An empty schedule puts a relay that does nothing between
	// the peers.
	Faults *fault.Schedule
	// RelayLog receives what the relay logs (its seed, connections, faults applied); discarded if nil.
	RelayLog *slog.Logger
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

// RunRuntime plays every scenario against a fresh Runtime from t. Results come back in the order
// of scs. If ctx ends, scenarios not yet finished are reported as harness errors ("interrupted")
// and everything finished is kept.
func RunRuntime(ctx context.Context, scs []*scenarios.Scenario, t Target, o Options) []*scenarios.Result {
	o.defaults(t)
	jobs := make([]Job, len(scs))
	for i, sc := range scs {
		jobs[i] = Job{Key: sc.ID, Play: func(ctx context.Context) *scenarios.Result { return PlayRuntime(ctx, sc, i, t, o) }}
	}
	var onDone func(int, *scenarios.Result)
	if o.Progress != nil {
		onDone = func(_ int, r *scenarios.Result) { o.Progress(r) }
	}
	results := StartBatch(ctx, jobs, o.Parallel, onDone).Results()
	for i, r := range results {
		if r == nil {
			results[i] = harnessError(scs[i], scenarios.SideCore, o.Seed, "the run was interrupted before this scenario ran")
		}
	}
	return results
}

func (o *Options) defaults(t Target) {
	if c, ok := t.(Credentialed); ok && o.Credential == "" {
		o.Credential = c.RunCredential()
	}
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
}

// PlayRuntime plays one scenario, the i-th of a run (its device ID), against a fresh Runtime from
// t, with a fault relay between them when the scenario arms faults or o.Faults is set. What each
// launched daemon left behind (its exit, the tail of its output) is kept in the result.
func PlayRuntime(ctx context.Context, sc *scenarios.Scenario, i int, t Target, o Options) *scenarios.Result {
	o.defaults(t)
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cfg := scriptedcore.Config{
		DeviceID:     fmt.Sprintf("wirecheck-%s-%03d", o.Seed, i),
		Credential:   o.Credential,
		Timeout:      o.Step,
		StartTimeout: o.Start,
		Seed:         o.Seed + "/" + sc.ID,
		ShiftVersion: true, // a launched Runtime presents proto.Version; mismatches are the scripted Core's to make
	}
	var launched launches
	r := playScriptedCore(ctx, sc, cfg, launched.track(scripted(t)), o)
	r.Daemons = launched.reports()
	if ctx.Err() != nil && r.Verdict == scenarios.Fail {
		// The scenario's own bound expired: a deadline is the harness's, not the Runtime's, fault
		// unless a step had already failed on its own.
		r.Verdict = scenarios.HarnessError
		r.Failure.Message = "harness error: " + ctx.Err().Error() + ": " + r.Failure.Message
	}
	return r
}

// playScriptedCore is the one way a scripted Core plays against a launched Runtime: with a fault
// relay between them when the scenario arms faults or a schedule applies to every scenario, its
// events appended to the transcript.
func playScriptedCore(ctx context.Context, sc *scenarios.Scenario, cfg scriptedcore.Config, launch scriptedcore.Launch, o Options) *scenarios.Result {
	if !sc.HasFaults() && o.Faults == nil {
		return scriptedcore.Play(ctx, sc, cfg, launch)
	}
	relay := &Relay{Schedule: o.Faults, Seed: cfg.Seed, Logger: o.RelayLog}
	defer relay.Close()
	if cfg.Clock != nil {
		relay.Follow(cfg.Clock) // the self-check's virtual clock; a launched Runtime's own clock wins
	}
	cfg.Faults = relay
	r := scriptedcore.Play(ctx, sc, cfg, relayed(relay, launch))
	r.Transcript = append(r.Transcript, relay.Events()...)
	return r
}

// launches keeps every Runtime a scenario launched, to collect their reports once Play (which
// stops them) returns.
type launches struct {
	mu  sync.Mutex
	rts []scriptedcore.Runtime
}

func (l *launches) track(launch scriptedcore.Launch) scriptedcore.Launch {
	return func(ctx context.Context, c scriptedcore.Connect, v scriptedcore.View) (scriptedcore.Runtime, error) {
		rt, err := launch(ctx, c, v)
		if err == nil {
			l.mu.Lock()
			l.rts = append(l.rts, rt)
			l.mu.Unlock()
		}
		return rt, err
	}
}

func (l *launches) reports() []scenarios.Daemon {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []scenarios.Daemon
	for _, rt := range l.rts {
		if r, ok := rt.(Reporter); ok {
			out = append(out, r.Report())
		}
	}
	return out
}

// NewCredential returns a fresh daemon credential for a run. It reaches the daemon by environment
// only and is never written to a report.
func NewCredential() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return "wck_" + hex.EncodeToString(b)
}
