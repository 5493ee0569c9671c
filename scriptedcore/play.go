// Package scriptedcore plays Core from a scenario against a Runtime: it serves bootstrap and the
// WebSocket exactly as the protocol says, keeps the capabilities the Runtime declares, writes the
// scenario's Core frames and checks the Runtime's frames.
package scriptedcore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/transport"
)

// Config is how the scripted Core runs one scenario.
type Config struct {
	DeviceID   string // the device Core knows; default "runtime"
	Credential string // its credential; default "synthetic-contract-credential"
	Kind       string // the Harness kind scenarios run on; default "contract"
	// Clock is moved by `advance` and `settle` steps: the Runtime's virtual clock in process, or
	// clock.RealAdvancer() (which waits) against a Runtime in another process.
	Clock   clock.Advancer
	Timeout time.Duration // bound on every read and wait; default 3 s
	// StartTimeout bounds the launched Runtime's first connection attempt: start-up (an
	// interpreter loading, a container starting) is not a step; default 20 s. It bounds too the
	// step that expects the answer to a heavy frame (script.HeavyFrameBytes), which the Runtime
	// must read and decode first.
	StartTimeout time.Duration
	// RetryWindow is how long a rejected Runtime is watched for a forbidden retry when it does not
	// report that it stopped; default 2 s.
	RetryWindow time.Duration
	// RetryBound is how long a Runtime given an unusable bootstrap answer has to bootstrap again
	// before it is taken to have stopped trying (which the spec allows); default 30 s.
	RetryBound time.Duration
	Seed       string
	// ShiftVersion: a Runtime under test always presents proto.Version, so to reproduce a version
	// mismatch the scripted Core requires a different version instead.
	ShiftVersion bool
	// HeartbeatSeconds is what bootstrap tells the daemon; default 15.
	HeartbeatSeconds int
	// Gate is shared with an in-process scripted Runtime in the self-check (see script.Gate).
	Gate *script.Gate
	// Faults arms the scenario's fault steps on the relay in front of the Runtime; nil: a
	// scenario with fault steps cannot be played (harness error).
	Faults scenarios.FaultArmer
	// Advancing, if set, is told as an advance or settle step starts moving Clock by st.Advance
	// (against the wall clock, a wait a user should hear about).
	Advancing func(st *scenarios.Step)
	// Decided, if set, is told once the verdict is decided, before the conversation is closed and
	// the Runtime stopped: nothing after it can change the verdict (the mutation matrix counts the
	// points a play reached up to here).
	Decided func()
}

func (c *Config) decided() {
	if c.Decided != nil {
		c.Decided()
	}
}

func (c *Config) defaults() {
	if c.DeviceID == "" {
		c.DeviceID = "runtime"
	}
	if c.Credential == "" {
		c.Credential = "synthetic-contract-credential"
	}
	if c.Kind == "" {
		c.Kind = "contract"
	}
	if c.Clock == nil {
		c.Clock = clock.RealAdvancer()
	}
	if c.Timeout == 0 {
		c.Timeout = 3 * time.Second
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = 20 * time.Second
	}
	if c.RetryWindow == 0 {
		c.RetryWindow = 2 * time.Second
	}
	if c.HeartbeatSeconds == 0 {
		c.HeartbeatSeconds = int(proto.DefaultHeartbeatInterval / time.Second)
	}
	if c.Seed == "" {
		c.Seed = "0"
	}
}

// Connect is what a launched Runtime is given: where Core is and who to present itself as.
type Connect struct {
	ServerURL  string // ends in /api/v1
	DeviceID   string
	Credential string
}

// Runtime is a launched Runtime under test.
type Runtime interface {
	// Done is closed once the Runtime has stopped on its own (nil if it cannot tell).
	Done() <-chan struct{}
	// Stop ends it and releases everything it holds.
	Stop(ctx context.Context) error
}

// Clocked is implemented by a launched Runtime that brings its own clock (a virtual one, in
// process): advance and settle steps move it instead of Config.Clock.
type Clocked interface{ Clock() clock.Advancer }

// Exited is implemented by a launched Runtime that can say why it stopped (an exit code, a
// signal), for failures such as "the Runtime exited before connecting".
type Exited interface{ ExitReason() string }

// Launch starts the Runtime under test against the scripted Core. view lets an in-process
// scripted peer answer Core-side checks from the scripted Core's state.
type Launch func(ctx context.Context, c Connect, view View) (Runtime, error)

// View is the scripted Core's state that Core-side checks can read.
type View interface {
	// Declared returns "none" unless the latest valid heartbeat advertises kind with a complete
	// declaration, then "complete".
	Declared(kind string) string
	// Changed is closed at the next change of that state.
	Changed() <-chan struct{}
	// Capabilities returns the declaration of kind from the latest valid heartbeat.
	Capabilities(kind string) (*proto.SupportedAgentKind, bool)
}

type view struct {
	kind    string // the kind scenarios run on (Config.Kind)
	mu      sync.Mutex
	latest  *proto.HeartbeatPayload // nil: no capabilities known
	profile scenarios.Profile       // what the latest heartbeat declared for kind
	changed chan struct{}
}

func newView(kind string) *view { return &view{kind: kind, changed: make(chan struct{})} }

// set records a heartbeat as scenarios.ReadHeartbeat read it (h nil: it was invalid).
func (v *view) set(h *proto.HeartbeatPayload, p scenarios.Profile) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.latest, v.profile = h, p
	close(v.changed)
	v.changed = make(chan struct{})
}

// Profile is what the latest heartbeat declared for the scenarios' kind.
func (v *view) Profile() scenarios.Profile {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.profile
}

func (v *view) Capabilities(kind string) (*proto.SupportedAgentKind, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.latest == nil {
		return nil, false
	}
	k := v.latest.Kind(kind)
	return k, k != nil
}

func (v *view) Declared(kind string) string {
	if _, ok := v.Capabilities(kind); ok {
		return "complete"
	}
	return "none"
}

func (v *view) Changed() <-chan struct{} {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.changed
}

// observeHeartbeat applies Core's rule: a valid heartbeat replaces the snapshot; an invalid one
// clears it (and, outside a step that sends it on purpose, fails the run).
func (v *view) observeHeartbeat(raw []byte) error {
	h, p, err := scenarios.ReadHeartbeat(raw, v.kind)
	v.set(h, p)
	return err
}

// Play runs one scenario as Core against the Runtime that launch starts.
func Play(ctx context.Context, sc *scenarios.Scenario, cfg Config, launch Launch) *scenarios.Result {
	cfg.defaults()
	rec := script.NewRecorder()
	rec.Trace(trace.SpanFromContext(ctx)) // the scenario's span (runner.PlayRuntime), if any
	p := &script.Player{Scenario: sc, Self: proto.Core, B: scenarios.BindingsWith(sc.Vars), Rec: rec, Timeout: cfg.Timeout, HeavyTimeout: cfg.StartTimeout, Seed: cfg.Seed, Gate: cfg.Gate,
		StampTrace: true, RealTime: clock.IsReal(cfg.Clock)}
	if w, ok := cfg.Faults.(scenarios.DropWitness); ok {
		p.Drops = w
	}
	if f, ok := cfg.Faults.(script.Forwarder); ok {
		p.Relay = f
	}
	r := &run{cfg: cfg, p: p, view: newView(cfg.Kind)}
	verdict, failure, err := r.play(ctx, launch)
	if err != nil {
		verdict, failure = scenarios.HarnessError, p.HarnessFailure(err)
	}
	res := p.Result(scenarios.SideCore, verdict, failure)
	res.Profile = r.view.Profile()
	return res
}

type run struct {
	// mayEnd is the disconnect step with may_end the steps have passed, if any: from it on, the
	// Runtime may end its transport.
	mayEnd   *scenarios.Step
	cfg      Config
	p        *script.Player
	view     *view
	srv      *server
	rt       Runtime
	launched time.Time
}

func (r *run) play(ctx context.Context, launch Launch) (scenarios.Verdict, *scenarios.Failure, error) {
	sc, p := r.p.Scenario, r.p
	connect := Connect{DeviceID: r.cfg.DeviceID, Credential: r.cfg.Credential}
	required := proto.Version
	if h := sc.Handshake; h != nil {
		if h.DeviceID != nil {
			connect.DeviceID = *h.DeviceID
		}
		if h.Credential != nil {
			connect.Credential = *h.Credential
		}
		if h.Version != nil && r.cfg.ShiftVersion {
			required = proto.Version + "-not-" + *h.Version
		}
	}
	answer := scenarios.BootstrapAnswer{}
	if a := sc.BootstrapAnswer; a != nil {
		answer = *a
	}
	if answer.HeartbeatSeconds == nil {
		answer.HeartbeatSeconds = &r.cfg.HeartbeatSeconds
	}
	srv, err := newServer(r.cfg.DeviceID, r.cfg.Credential, required, answer, p.Rec, stopsReading(sc))
	if err != nil {
		return "", nil, err
	}
	r.srv = srv
	defer srv.close()
	connect.ServerURL = srv.baseURL()

	r.launched = time.Now()
	rt, err := launch(ctx, connect, r.view)
	if err != nil {
		return "", nil, fmt.Errorf("launching the Runtime under test: %w", err)
	}
	r.rt = rt
	defer r.stopRuntime()
	decided := sync.OnceFunc(r.cfg.decided)
	defer decided() // before the Runtime is stopped
	if c, ok := rt.(Clocked); ok {
		r.cfg.Clock = c.Clock()
	}

	if h := sc.Handshake; h != nil && h.Expect != nil {
		v, f := r.expectRejection(h.Expect)
		return v, f, nil
	}
	if stopped, f := r.awaitRetries(answer.Unusable); f != nil {
		return scenarios.Fail, r.withExit(f), nil
	} else if stopped != nil {
		// The spec's other choice: the steps after a connection are not played.
		p.Rec.Event("stopped", stopped.String())
		return scenarios.Pass, nil, nil
	}
	if answer.StalledUpgrades > 0 {
		if f := r.awaitStalledUpgrades(answer.StalledUpgrades); f != nil {
			return scenarios.Fail, r.withExit(f), nil
		}
	} else if f := r.awaitConnection(nil); f != nil {
		return scenarios.Fail, f, nil
	}
	if sc.Heartbeat == scenarios.HeartbeatAuto {
		if v, f := r.firstHeartbeat(ctx); f != nil {
			return v, r.withExit(f), nil
		}
	}
	for _, st := range sc.Steps {
		p.Rec.SetStep(st.Index)
		f, err := r.tracedStep(ctx, st)
		if err != nil {
			return "", nil, err
		}
		if f != nil {
			if ended := r.endedAsAllowed(f); ended != "" {
				p.Rec.Event("ended", ended)
				return scenarios.Pass, nil, nil
			}
			return scenarios.Fail, r.withExit(f), nil
		}
	}
	decided()
	if p.Conn != nil {
		p.Conn.Close(proto.CloseNormal, "scenario complete")
	}
	return scenarios.Pass, nil, nil
}

func (r *run) stopRuntime() {
	if r.p.Conn != nil {
		r.p.Conn.Drop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopBound)
	defer cancel()
	_ = r.rt.Stop(ctx)
}

// stopBound is the safety net of a stop: the launcher's own grace decides when its SIGTERM
// becomes SIGKILL, and a stop's context ending first kills at once. Bounded by the step bound
// (3 s against a process), a loaded machine (load 26) killed a daemon that was exiting as asked.
const stopBound = time.Minute

func (r *run) drainAttempts() {
	for {
		select {
		case <-r.srv.attempts:
		default:
			return
		}
	}
}

// awaitConnection waits for the Runtime to connect: within the start-up bound when it was just
// launched (st == nil), within the step bound when a step asks it to reconnect.
func (r *run) awaitConnection(st *scenarios.Step) *scenarios.Failure {
	bound := r.cfg.Timeout
	if st == nil {
		bound = r.cfg.StartTimeout
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	take := func(c *script.Conn) {
		if old := r.p.Conn; old != nil {
			// A second connection for the same device while the first is open: the newer one
			// replaces it, as Core does.
			old.Close(1008, "preempted by newer connection from same device_id")
		}
		r.p.Conn = c
		r.p.OnHeartbeat = r.view.observeHeartbeat
		r.drainAttempts()
		if st == nil {
			r.p.Rec.Event("started", fmt.Sprintf("the Runtime connected %v after it was launched", time.Since(r.launched).Round(time.Millisecond)))
		}
	}
	for {
		select {
		case c := <-r.srv.conns:
			take(c)
			return nil
		case rej := <-r.srv.rejects:
			return r.refused(st, rej)
		case <-r.rt.Done():
			r.srv.settle()
			select {
			case c := <-r.srv.conns:
				// A Runtime that connected, said everything and hung up before this looked: its
				// frames are still on the connection.
				take(c)
				return nil
			case rej := <-r.srv.rejects: // a refusal recorded before the exit explains it
				return r.refused(st, rej)
			default:
			}
			return r.exited(st, "before connecting")
		case <-t.C:
			if st == nil {
				return r.p.Failf(st, "the Runtime did not connect within %v of being launched", bound)
			}
			return r.p.Failf(st, "the Runtime did not connect within %v", bound)
		}
	}
}

// firstHeartbeat waits for the Runtime's first heartbeat and decides applicability from it.
func (r *run) firstHeartbeat(ctx context.Context) (scenarios.Verdict, *scenarios.Failure) {
	p := r.p
	ctx, cancel := script.Within(ctx, r.cfg.Timeout)
	defer cancel()
	in, err := p.Conn.Next(ctx)
	if err != nil {
		return scenarios.Fail, p.Failf(nil, "no heartbeat within %v of connecting: %v", r.cfg.Timeout, err)
	}
	hb, profile, perr := scenarios.ReadHeartbeat(in.Raw, r.cfg.Kind)
	r.view.set(hb, profile)
	what := "a " + proto.TypeHeartbeat
	var other *scenarios.NotAHeartbeat
	switch {
	case errors.As(perr, &other):
		return scenarios.Fail, p.Failf(nil, "the first frame must be %s, got %s", what, other.Type)
	case perr != nil:
		if why := declarationProblems(in.Raw, r.cfg.Kind); why != "" {
			f := p.Failf(nil, "the first frame must be %s with a valid declaration: %s", what, why)
			f.Cause = why
			return scenarios.Fail, f
		}
		return scenarios.Fail, p.Failf(nil, "the first frame must be %s with a valid declaration: %v", what, perr)
	}
	if f := r.notApplicable(); f != nil {
		return scenarios.NotApplicable, f
	}
	return "", nil
}

func (r *run) expectRejection(want *scenarios.HTTPExpect) (scenarios.Verdict, *scenarios.Failure) {
	p := r.p
	t := time.NewTimer(r.cfg.StartTimeout)
	defer t.Stop()
	var rej rejection
	select {
	case c := <-r.srv.conns:
		p.Conn = c
		return scenarios.Fail, p.Failf(nil, "the connection was accepted; expected %v", want)
	case rej = <-r.srv.rejects:
	case <-r.rt.Done():
		// A Runtime refused for good stops. Its refusal was recorded before it was answered, so a
		// refusal waiting here came before the exit.
		r.srv.settle()
		select {
		case rej = <-r.srv.rejects:
		case c := <-r.srv.conns:
			p.Conn = c
			return scenarios.Fail, p.Failf(nil, "the connection was accepted; expected %v", want)
		default:
			return scenarios.Fail, r.exited(nil, "before its connection could be refused")
		}
	case <-t.C:
		return scenarios.Fail, p.Failf(nil, "the Runtime made no connection attempt within %v of being launched", r.cfg.StartTimeout)
	}
	if !want.Refuses(rej.status, rej.code) || (want.At != "" && rej.route != want.At) {
		f := p.Failf(nil, "Core answered %d %s at the %s (%s); the scenario expects %v%s%s",
			rej.status, rej.code, rej.route, rej.cause, want, atWhat(want.At), identityHint(rej))
		f.Cause = rej.cause
		return scenarios.Fail, f
	}
	if !proto.PermanentHTTPStatus(rej.status) {
		// A transient refusal (facts §1.3): the Runtime may try again with backoff.
		return scenarios.Pass, nil
	}
	// A permanent rejection: the Runtime must stop after exactly one attempt. Attempts are judged
	// by their order, not by when this goroutine looks: one made right after the rejection, before
	// anything here ran, is still a retry.
	retried := func() *scenarios.Failure {
		if what, ok := r.srv.attemptAfter(rej.after); ok {
			return p.Failf(nil, "after a permanent %d %s the Runtime tried again (%s); it must stop after exactly one attempt", rej.status, rej.code, what)
		}
		return nil
	}
	window := time.NewTimer(r.cfg.RetryWindow)
	defer window.Stop()
	defer r.moveBackoffClock()()
	for {
		r.drainAttempts()
		if f := retried(); f != nil {
			return scenarios.Fail, f
		}
		select {
		case <-r.srv.attempts:
			continue // a new attempt: judged above
		case <-r.rt.Done():
		case <-window.C:
		}
		if f := retried(); f != nil {
			return scenarios.Fail, f
		}
		return scenarios.Pass, nil
	}
}

// moveBackoffClock lets a Runtime on a virtual clock show a forbidden retry within the window: a
// Runtime that takes a permanent refusal for a transient one waits a backoff on its own clock, which
// nothing else moves here. Whenever a timer of the Runtime falls due within half the handshake
// timeout, that much time passes, for as long as the watch lasts. Half: the refused attempt's own
// handshake timeout may still be armed while the Runtime reads Core's answer, and firing it would
// turn a permanent refusal into a timeout, which the Runtime may rightly retry; a first backoff
// (a second, facts §1.3) is well inside it. A Runtime that stopped arms no timer and sees no time
// pass. The returned function ends the watch.
func (r *run) moveBackoffClock() (stop func()) {
	f, ok := r.cfg.Clock.(interface {
		WaitDue(d, wait time.Duration) bool
		Advance(d time.Duration)
	})
	if !ok {
		return func() {}
	}
	quit := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-quit:
				return
			default:
			}
			if f.WaitDue(proto.HandshakeTimeout/2, 20*time.Millisecond) {
				f.Advance(proto.HandshakeTimeout / 2)
			}
		}
	}()
	return func() { close(quit); <-ended }
}

// Step span and attribute names (docs/tracing.md), shared with the scripted Runtime.
const (
	SpanStep      = script.SpanStep
	AttrStepIndex = script.AttrStepIndex
	AttrStepKind  = script.AttrStepKind
	AttrStepPos   = script.AttrStepPos
)

// tracedStep plays a step inside its span (script.Player.StepSpan).
func (r *run) tracedStep(ctx context.Context, st *scenarios.Step) (*scenarios.Failure, error) {
	ctx, end := r.p.StepSpan(ctx, st)
	f, err := r.step(ctx, st)
	end(script.StepFailure(f, err))
	return f, err
}

func (r *run) step(ctx context.Context, st *scenarios.Step) (*scenarios.Failure, error) {
	p := r.p
	if p.Conn == nil && needsConn(st) {
		return p.Failf(st, "the transport is closed; this step needs a connection (add a reconnect step?)"), nil
	}
	switch st.Kind {
	case scenarios.StepCore:
		return p.Send(ctx, st)
	case scenarios.StepRuntime:
		_, f := p.Expect(ctx, st)
		return r.declarationCause(f), nil
	case scenarios.StepAnyOrder:
		if st.From == proto.Core {
			return p.SendGroup(ctx, st)
		}
		_, f := p.Expect(ctx, st)
		return r.declarationCause(f), nil
	case scenarios.StepSilence:
		if st.From == proto.Core {
			p.QuietWait(ctx, st)
			return nil, nil
		}
		return r.silence(ctx, st), nil
	case scenarios.StepSettle:
		if f := r.silence(ctx, st); f != nil {
			f.Message = "nothing may overtake native settlement: " + f.Message
			return f, nil
		}
		if st.Advance > 0 {
			return nil, r.advance(ctx, st)
		}
		return nil, nil
	case scenarios.StepAdvance:
		return nil, r.advance(ctx, st)
	case scenarios.StepDisconnect:
		return r.disconnect(ctx, st), nil
	case scenarios.StepReconnect:
		return r.awaitConnection(st), nil
	case scenarios.StepRestart:
		return r.restart(ctx, st), nil
	case scenarios.StepBound:
		return p.RequireBound(st), nil
	case scenarios.StepCheck:
		// A Core-side check tests a Core; the scripted Core is not under test.
		return nil, nil
	case scenarios.StepStopReading, scenarios.StepResumeReading:
		return r.reading(st), nil
	case scenarios.StepAwaitStall:
		if st.From != proto.Core {
			return nil, nil // the scripted Runtime's to play
		}
		return r.awaitStall(ctx, st), nil
	case scenarios.StepExportPull:
		return p.PullExport(ctx, st)
	case scenarios.StepFault:
		if r.cfg.Faults == nil {
			return nil, fmt.Errorf("%s: this scenario arms faults and needs the fault relay in front of the Runtime", st.Pos)
		}
		p.Rec.Event("fault", "armed: "+st.Fault.Pos.String())
		return nil, r.cfg.Faults.Arm(ctx, st.Fault, p.B)
	}
	return nil, fmt.Errorf("%s: unsupported step kind %q", st.Pos, st.Kind)
}

// advance moves the clock by st.Advance. Against the wall clock that is a real wait, which ends
// early, as a harness error, when ctx does (Ctrl-C, the scenario's bound).
func (r *run) advance(ctx context.Context, st *scenarios.Step) error {
	r.p.Rec.Event("advance", st.Advance.String())
	if r.cfg.Advancing != nil {
		r.cfg.Advancing(st)
	}
	r.awaitTaken(ctx)
	r.advanceTransport(st)
	if err := clock.AdvanceContext(ctx, r.cfg.Clock, st.Advance); err != nil {
		return fmt.Errorf("%s: stopped while the clock advanced %v: %w", st.Pos, st.Advance, err)
	}
	r.p.Advanced(st.Advance)
	return nil
}

func needsConn(st *scenarios.Step) bool {
	switch st.Kind {
	case scenarios.StepDisconnect:
		return !st.Close.MayEnd
	case scenarios.StepCore, scenarios.StepAnyOrder, scenarios.StepExportPull:
		return true
	case scenarios.StepRuntime:
		return !st.Frame.Lost
	}
	return false
}

func (r *run) silence(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	attempts := make(chan string, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case what := <-r.srv.attempts:
			attempts <- "it made a connection attempt (" + what + ")"
		case <-stop:
		}
	}()
	f := r.p.ExpectSilence(ctx, st, st.Window, attempts)
	if f != nil && endedCleanly(r.p, st) {
		return nil
	}
	return f
}

// endedCleanly: during the scenario's last step a peer that has played all its own steps may close
// normally; that is the end of the conversation, not a broken silence. (The peer's own last quiet
// wait and this window start at different instants, so its close can land inside the window.)
func endedCleanly(p *script.Player, st *scenarios.Step) bool {
	if st.Index != len(p.Scenario.Steps) || p.Conn == nil {
		return false
	}
	select {
	case <-p.Conn.Done():
	default:
		return false
	}
	ce := p.Conn.ClosedErr()
	return ce != nil && ce.Code == proto.CloseNormal
}

func (r *run) disconnect(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	p := r.p
	r.drainAttempts()
	c := st.Close
	if c.MayEnd {
		r.mayEnd = st
		p.Rec.Event("may-end", fmt.Sprintf("step %d: from here the Runtime may end its transport (docs/spec-readings.md, %s)", st.Index, c.Reading))
		return nil
	}
	if c.By == proto.Runtime && c.Awaited {
		return r.awaitClose(ctx, st)
	}
	switch {
	case c.By == proto.Core && c.Code != 0:
		p.Conn.Close(c.Code, c.Reason)
	case c.By == proto.Core:
		p.Conn.Close(proto.CloseNormal, "core closes the transport")
	default:
		// The Runtime's socket drops. A remote daemon cannot be made to drop it, so Core tears the
		// socket down without a close frame, which is what the daemon sees on a network failure.
		p.Conn.Drop()
	}
	t := time.NewTimer(r.cfg.Timeout)
	defer t.Stop()
	select {
	case <-p.Conn.Done():
	case <-t.C:
		return p.Failf(st, "the transport did not close within %v", r.cfg.Timeout)
	}
	p.Conn = nil
	r.srv.mu.Lock()
	r.srv.online = false
	r.srv.mu.Unlock()
	return nil
}

// restart plays a Core restart as far as a script can: the scripted Core keeps no durable records,
// so it only ends the transport as a Core that stops does (1001), and a later reconnect step
// takes the Runtime's next connection. Only the self-check plays it (restart needs tests: core).
func (r *run) restart(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	if r.p.Conn == nil {
		return nil
	}
	stop := *st
	stop.Close = &scenarios.CloseSpec{By: proto.Core, Code: proto.CloseGoingAway, Reason: "core restarting"}
	return r.disconnect(ctx, &stop)
}

// endedAsAllowed says how the scenario ended when f came from the end of the Runtime's transport
// after a may_end step allowed it (the failure holds no frame received: a frame the Runtime sent
// instead of the one awaited still fails); "" when f stands.
func (r *run) endedAsAllowed(f *scenarios.Failure) string {
	if r.mayEnd == nil || f.Actual != nil {
		return ""
	}
	why := ""
	if c := r.p.Conn; c == nil {
		why = "the transport was closed"
	} else if err := c.ClosedErr(); err != nil {
		why = err.Error()
	}
	if d := r.rt.Done(); why == "" && d != nil {
		select {
		case <-d:
			why = "the Runtime stopped" + exitReason(r.rt)
		default:
		}
	}
	if why == "" {
		return ""
	}
	return fmt.Sprintf("the Runtime ended its transport at step %d (%s), which step %d allows (docs/spec-readings.md, %s); the steps from there on were not played",
		f.Step, why, r.mayEnd.Index, r.mayEnd.Close.Reading)
}

// refused is the failure of a Runtime Core refused, in the words of what it did.
func (r *run) refused(st *scenarios.Step, rej rejection) *scenarios.Failure {
	f := r.p.Failf(st, "Core refused the Runtime's connection with %d %s: %s", rej.status, rej.code, rej.cause)
	f.Cause = rej.cause
	return f
}

// identityHint points at the launch identity only when the refusal is about it: a daemon refused
// for its device or credential may not be presenting what it was launched with.
func atWhat(at string) string {
	if at == "" {
		return ""
	}
	return " at the " + at
}

func identityHint(rej rejection) string {
	switch rej.check {
	case transport.CheckDevice, transport.CheckCredential:
		return " (did the Runtime present the device ID and credential it was launched with?)"
	}
	return ""
}

// exited is the failure of a Runtime that stopped: how it ended and what it printed last.
//
// A daemon that made no request at all exits before its first one, whatever the scenario waited
// for: one root cause, worded one way, and never "instead of bootstrapping again" of a daemon
// that never bootstrapped.
func (r *run) exited(st *scenarios.Step, when string) *scenarios.Failure {
	why := exitReason(r.rt)
	if _, any := r.srv.attemptAfter(0); !any {
		when = "before its first request"
	}
	f := r.p.Failf(st, "the Runtime stopped %s%s", when, why)
	f.Cause = "the daemon exits " + when + exitCause(why)
	return f
}

// exitGrace is how long a failure waits, once the connection has closed, to learn whether the
// daemon exited with it: its socket closes as it dies, a moment before its exit is reaped. 1 s
// was reached under make test's load (the reaper's goroutine not yet run); a daemon that dropped
// its connection and lives on costs a failure this much more. (To do: ask the kernel whether the
// process is a zombie instead of waiting for the reaper.)
const exitGrace = 5 * time.Second

// withExit says, in a failure, that the Runtime had exited, and how: a step that saw the
// connection drop then reads as the daemon's exit, not as a network fault. A failure about a
// frame the Runtime did send (it has an actual frame) keeps its own reason.
func (r *run) withExit(f *scenarios.Failure) *scenarios.Failure {
	if f == nil || f.Cause != "" || f.Actual != nil || r.rt == nil {
		return f
	}
	done := r.rt.Done()
	if done == nil {
		return f
	}
	select {
	case <-done:
	default:
		conn := r.p.Conn
		if conn == nil {
			return f
		}
		select {
		case <-conn.Done():
		default:
			return f // the connection is up: the daemon is alive
		}
		t := time.NewTimer(exitGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			return f
		}
	}
	why := exitReason(r.rt)
	f.Message += "; the Runtime had exited" + why
	f.Cause = "the daemon exits during the scenario" + exitCause(why)
	return f
}

// exitCause is how the daemon ended without what it printed: the same for every scenario in which
// it ends alike, so failures group by it.
func exitCause(why string) string {
	cause, _, cut := strings.Cut(why, "; last output")
	if cut {
		cause += ")"
	}
	return cause
}

func exitReason(rt Runtime) string {
	if e, ok := rt.(Exited); ok {
		if why := e.ExitReason(); why != "" {
			return " (" + why + ")"
		}
	}
	return ""
}

// kindNames lists the kinds the latest valid heartbeat advertises, for a message; with
// availability, whether each is available too.
func (v *view) kindNames(availability bool) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.latest == nil || len(v.latest.SupportedAgentKinds) == 0 {
		return "none"
	}
	var names []string
	for _, k := range v.latest.SupportedAgentKinds {
		name := fmt.Sprintf("%q", k.Kind)
		if availability {
			name += fmt.Sprintf(" (available: %t)", k.Available)
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}
