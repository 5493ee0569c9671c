package runner

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Options select and bound a run.
type Options struct {
	Run, Skip []string // scenario id patterns (scenarios.MatchID)
	Labels    *LabelFilter
	Parallel  int // scenarios at once; default 1
	// Timeout bounds each scenario; by default each gets ScenarioBound, derived from the real time
	// its steps wait.
	Timeout time.Duration
	// Step bounds every read and wait inside a scenario; default 3 s against a Runtime in another
	// process, InProcessBound (a safety net) in process.
	Step time.Duration
	// Start bounds a launched daemon's first connection attempt; default 20 s, InProcessBound in
	// process.
	Start time.Duration
	Seed  string // printed; reproduces generated values; default random
	// Credential is the run's daemon credential (default: a fresh random one). It reaches the
	// daemon by environment only and never appears in a report.
	Credential string
	// Faults is a schedule applied to every scenario through a relay (certify --faults); scenarios
	// with fault steps get a relay anyway. An empty schedule puts a relay that does nothing between
	// the peers.
	Faults *fault.Schedule
	// RelayLog receives what the relay logs (its seed, connections, faults applied); discarded if nil.
	RelayLog *slog.Logger
	// Tap, if set, gives each scenario played through a relay the observer of its connections and
	// frames (a monitor.Monitor); a relay numbers its connections afresh for each scenario.
	Tap func(*scenarios.Scenario) fault.Tap
	// Progress, if set, sees every result as it completes (from several goroutines when Parallel > 1).
	Progress func(*scenarios.Result)
	// Started, if set, sees every scenario as it starts; Waiting every wait of at least LongWait
	// of real time as it starts (from several goroutines when Parallel > 1).
	Started func(*scenarios.Scenario)
	Waiting func(Wait)
	// Decided, if set, is told as each scenario's verdict is decided, before its peers are torn
	// down (see scriptedcore.Config.Decided).
	Decided func(*scenarios.Scenario)
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

// Unmatched returns the entries of the list that match none of ids: a typo, or a scenario that
// was renamed or removed, which would otherwise be expected to fail silently forever.
func (k *KnownFailing) Unmatched(ids []string) []string {
	if k == nil {
		return nil
	}
	var out []string
	for _, p := range k.patterns {
		if !slices.ContainsFunc(ids, func(id string) bool { return scenarios.MatchID(p, id) }) {
			out = append(out, p)
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
	ctx, span := StartRunSpan(ctx, t.Describe(), o.Seed, len(scs))
	// The scenarios that wait longest in real time start first (the heartbeat ones take 15 s, a
	// stalled upgrade 10 s): started last, one of them would be the run's tail alone.
	order := make([]int, len(scs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ExpectedRealTime(scs[b]), ExpectedRealTime(scs[a])) })
	jobs := make([]Job, len(scs))
	for j, i := range order {
		sc := scs[i]
		jobs[j] = Job{Key: sc.ID, Play: func(ctx context.Context) *scenarios.Result { return PlayRuntime(ctx, sc, i, t, o) }}
	}
	var onDone func(int, *scenarios.Result)
	if o.Progress != nil {
		onDone = func(_ int, r *scenarios.Result) { o.Progress(r) }
	}
	played := StartBatch(ctx, jobs, o.Parallel, onDone).Results()
	results := make([]*scenarios.Result, len(scs))
	for j, i := range order {
		results[i] = played[j]
	}
	for i, r := range results {
		if r == nil {
			results[i] = harnessError(scs[i], scenarios.SideCore, o.Seed, "not run: "+stopped(ctx))
			results[i].Failure.Cause = stopCause(ctx) // one cause with the scenarios cut short by it
		}
	}
	EndRunSpan(span, results)
	return results
}

func (o *Options) defaults(t Target) {
	if c, ok := t.(Credentialed); ok && o.Credential == "" {
		o.Credential = c.RunCredential()
	}
	if o.Parallel < 1 {
		o.Parallel = 1
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
// launched daemon left behind (its exit, the tail of its output) is kept in the result. It runs
// in a scenario span whose status is the verdict.
func PlayRuntime(ctx context.Context, sc *scenarios.Scenario, i int, t Target, o Options) *scenarios.Result {
	ctx, span := startScenario(ctx, sc, scenarios.SideRuntime, "scripted Core vs "+t.Describe())
	r := playRuntime(ctx, sc, i, t, o)
	endScenario(span, sc, r)
	return r
}

func playRuntime(ctx context.Context, sc *scenarios.Scenario, i int, t Target, o Options) *scenarios.Result {
	if ref, ok := t.(ReferenceRuntime); ok {
		// Only the reference itself: a Target that wraps it keeps what it wraps.
		t = ref.ForScenario(sc)
	}
	o.defaults(t)
	if o.Started != nil {
		o.Started(sc)
	}
	if t.Remote() && awaitsStall(sc) {
		return &scenarios.Result{Scenario: sc.ID, Title: sc.Title, Spec: sc.Spec, Labels: sc.Labels, Played: scenarios.SideCore,
			Verdict: scenarios.NotApplicable, Seed: o.Seed + "/" + sc.ID, Failure: &scenarios.Failure{Message: "not applicable: " +
				"await_stall needs a Runtime whose socket send buffer the harness bounds, so that its output is sure to block " +
				"on a Core that stopped reading; a daemon in another process may buffer it all in its kernel (played against " +
				"the reference in process)"}}
	}
	step, start := o.Step, o.Start
	if !t.Remote() {
		// In process nothing races the wall clock: every wait is for what the Runtime did, and
		// its bound is only a safety net a loaded machine cannot reach.
		step, start = cmp.Or(step, InProcessBound), cmp.Or(start, InProcessBound)
	}
	bound := o.Timeout
	if bound <= 0 {
		bound = ScenarioBound(sc, step)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	cfg := scriptedcore.Config{
		DeviceID:     fmt.Sprintf("wirecheck-%s-%03d", o.Seed, i),
		Credential:   o.Credential,
		Timeout:      step,
		StartTimeout: start,
		Seed:         o.Seed + "/" + sc.ID,
		ShiftVersion: true, // a launched Runtime presents proto.Version; mismatches are the scripted Core's to make
	}
	if o.Decided != nil {
		cfg.Decided = func() { o.Decided(sc) }
	}
	if t.Remote() && o.Waiting != nil {
		cfg.Advancing = func(st *scenarios.Step) {
			if st.Advance >= LongWait {
				o.Waiting(Wait{Scenario: sc.ID, Step: st.Index, Kind: st.Kind, Duration: st.Advance, Since: time.Now()})
			}
		}
	}
	var launched launches
	// Once the scenario is stopped (Ctrl-C, its bound), its daemons go at once: every read waiting
	// on them ends as their connection closes, instead of at its own bound.
	stopDaemons := context.AfterFunc(ctx, launched.stopAll)
	r := playScriptedCore(ctx, sc, cfg, launched.track(scripted(t)), o)
	stopDaemons()
	r.Daemons = launched.reports()
	if ctx.Err() != nil && (r.Verdict == scenarios.Fail || r.Verdict == scenarios.HarnessError) {
		// The run was interrupted or the scenario's own bound expired: that is the harness's, not
		// the Runtime's, fault, unless a step had already failed on its own.
		why := stopped(parent)
		if parent.Err() == nil {
			why = fmt.Sprintf("the scenario did not end within its bound of %v", bound)
		}
		r.Verdict = scenarios.HarnessError
		r.Failure.Message = "harness error: " + why + ": " + strings.TrimPrefix(r.Failure.Message, "harness error: ")
		// What the daemon did once it was stopped (killed by a signal) is not its cause: the stop is.
		r.Failure.Cause = why
		if parent.Err() != nil {
			r.Failure.Cause = stopCause(parent)
		}
	}
	return r
}

// stopped says why ctx, which has ended, ended: its cause when the run was stopped with one (an
// early stop), else that it was interrupted.
func stopped(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c.Error()
	}
	return "the run was interrupted"
}

// RootCauser is a stop made for a cause of the daemon's (an early stop after the same failure
// again and again): the scenarios it cut short are grouped under that cause, not under the stop.
type RootCauser interface{ RootCause() string }

// stopCause is the Cause of a scenario cut short by ctx's end: the root cause the stop was made
// for, else why it stopped.
func stopCause(ctx context.Context) string {
	if rc, ok := context.Cause(ctx).(RootCauser); ok && rc.RootCause() != "" {
		return rc.RootCause()
	}
	return stopped(ctx)
}

// awaitsStall reports whether a scenario has an await_stall step.
// PlayedAgainstAProcess reports whether a certification of a Runtime in another process plays sc
// to a verdict: it tests a Runtime, and it needs no socket buffer the harness bounds (await_stall:
// not applicable there). Long-timer scenarios are played, in real time, unless a label filter
// leaves them out.
func PlayedAgainstAProcess(sc *scenarios.Scenario) bool { return coversRuntime(sc) && !awaitsStall(sc) }

func awaitsStall(sc *scenarios.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepAwaitStall {
			return true
		}
	}
	return false
}

// A Wait is a long wait of real time inside a scenario (an advance step against a daemon in
// another process), announced as it starts so that a user knows the run is not stuck.
type Wait struct {
	Scenario string
	Step     int // 1-based, in the scenario with its includes expanded
	Kind     scenarios.StepKind
	Duration time.Duration
	Since    time.Time
}

func (w Wait) String() string {
	return fmt.Sprintf("%s: waiting %v of real time (%s step %d)", w.Scenario, w.Duration, w.Kind, w.Step)
}

// LongWait is how long a wait must be to be announced.
const LongWait = 5 * time.Second

// RealWait is the real time a scenario's steps wait against a daemon in another process, however
// fast the daemon answers: its advances, silence and settle windows.
func RealWait(sc *scenarios.Scenario) time.Duration {
	var total time.Duration
	for _, st := range sc.Steps {
		total += st.Window
		if st.Kind == scenarios.StepAdvance || st.Kind == scenarios.StepSettle {
			total += st.Advance
		}
	}
	return total
}

// ExpectedRealTime is how long a play of sc against a daemon in another process can be expected to
// take, for starting the longest first: RealWait, and the waits no step spells out, which a
// conforming daemon's own timers decide: a stalled upgrade it gives up after its handshake
// timeout, and a backoff (at least a second) after each unusable bootstrap answer.
func ExpectedRealTime(sc *scenarios.Scenario) time.Duration {
	d := RealWait(sc)
	if a := sc.BootstrapAnswer; a != nil {
		d += time.Duration(a.StalledUpgrades)*proto.HandshakeTimeout + time.Duration(len(a.Unusable))*time.Second
	}
	return d
}

// boundSlack is what a scenario's bound allows beyond its steps: the daemon's start-up on a loaded
// machine, its stop, the reports of what it left.
const boundSlack = 30 * time.Second

// ScenarioBound is the default bound on one scenario: the real time its steps wait, a step bound
// for each step that reads (and for connecting and the first heartbeat), and boundSlack. Every
// step has its own bound, so this one is the backstop of a harness that hangs, never the limit a
// correct daemon meets: the five minutes an admission takes to expire are inside it.
func ScenarioBound(sc *scenarios.Scenario, step time.Duration) time.Duration {
	if step <= 0 {
		step = scriptedcoreStep
	}
	reads := 2
	for _, st := range sc.Steps {
		reads += max(1, len(st.Frames()))
	}
	return RealWait(sc) + time.Duration(reads)*step + boundSlack
}

// scriptedcoreStep is the scripted Core's step bound when Options.Step is not set, against a
// Runtime in another process.
const scriptedcoreStep = 3 * time.Second

// InProcessBound is the bound on every read and wait of a play in process (a Target that is not
// Remote, the reference Core, the self-check) when Options.Step is not set: a safety net, not a
// step bound. Such a play waits for what its peer did (a frame, a write blocked in the kernel,
// every frame read and handled), never for real time to pass, so a correct peer on a machine
// loaded far past its CPUs still meets it; a peer that never sends what a step expects fails with
// the frame it waited for named, this late. 30 s was reached once, at a load average of 40 on two
// CPUs (a 4 MiB frame read by a daemon that got a twentieth of a CPU).
const InProcessBound = 2 * time.Minute

// playScriptedCore is the one way a scripted Core plays against a launched Runtime: with a fault
// relay between them when the scenario arms faults or a schedule applies to every scenario, its
// events appended to the transcript.
func playScriptedCore(ctx context.Context, sc *scenarios.Scenario, cfg scriptedcore.Config, launch scriptedcore.Launch, o Options) *scenarios.Result {
	if !sc.HasFaults() && o.Faults == nil {
		return scriptedcore.Play(ctx, sc, cfg, launch)
	}
	relay := &Relay{Schedule: o.Faults, Seed: cfg.Seed, Logger: o.RelayLog}
	if o.Tap != nil {
		relay.Tap = o.Tap(sc)
	}
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

// stopAll stops every Runtime launched so far, in a hurry: this scenario is over.
func (l *launches) stopAll() {
	l.mu.Lock()
	rts := slices.Clone(l.rts)
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), stopInAHurry)
	defer cancel()
	for _, rt := range rts {
		_ = rt.Stop(ctx)
	}
}

// stopInAHurry is how long a stopped scenario's daemons have between SIGTERM and SIGKILL.
const stopInAHurry = time.Second

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
