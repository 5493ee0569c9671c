// Package scriptedruntime plays Runtime from a scenario against a Core: it bootstraps and dials
// with a declared capability set, heartbeats, writes the scenario's Runtime frames, and for Core
// frames triggers the Core through a CoreDriver before reading and matching what Core sends.
package scriptedruntime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/transport"
)

// CoreDriver makes a Core do what a scenario's Core steps say. The reference Core implements it
// in process; in the scripted-vs-scripted self-check the scripted Core acts on its own and the
// driver only answers checks.
type CoreDriver interface {
	// Begin is called once per scenario, before the Runtime connects, so a driver can look ahead:
	// a Core starts a Turn at the scenario's execution_prepare but takes the Turn's input from a
	// later execution_start step.
	Begin(ctx context.Context, sc *scenarios.Scenario) error
	// Trigger makes Core send the frames of a core step (a frame or an any_order group). The
	// templates are resolved against b as far as they are bound; Core chooses the rest.
	Trigger(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) error
	// Check answers a Core-side check, waiting (bounded by ctx) for it to hold. It returns
	// ErrNotApplicable when this Core cannot answer such a check.
	Check(ctx context.Context, c *scenarios.Check, b *scenarios.Bindings) error
	// Advance moves Core's clock.
	Advance(d time.Duration)
	// Disconnect makes Core close the Runtime's transport as the step says.
	Disconnect(ctx context.Context, c *scenarios.CloseSpec) error
	// Restart stops Core as its process exits (its ordinary stop or a kill: how is the driver's
	// choice) and starts it again over the same durable records, at the same address, with the
	// same devices and credentials and, when the driver moves Core's clock, that clock's time
	// kept; it returns once the new Core serves bootstraps. Nothing else carries over: what the
	// stopped process held only in memory is gone, as at any restart. It returns ErrNotApplicable
	// when this Core cannot be restarted.
	Restart(ctx context.Context) error
}

// ErrNotApplicable is returned by a CoreDriver for a check it cannot answer.
var ErrNotApplicable = errors.New("not applicable to this Core")

// Config is how the scripted Runtime runs one scenario.
type Config struct {
	ServerURL  string // Core's base URL, ending in /api/v1
	DeviceID   string // default "runtime"
	Credential string // default "synthetic-contract-credential"
	// Kinds is the advertisement of every heartbeat; default: kind "contract", available, with
	// the scenario's required capabilities supported and every other one unsupported.
	Kinds   []proto.SupportedAgentKind
	Driver  CoreDriver
	Timeout time.Duration // default 3 s
	Seed    string
	// Linger: after the last step, wait this long for Core to end the conversation by closing the
	// transport before closing it ourselves. A Runtime does not hang up on its Core; the scripted
	// Core closes at the end of every scenario.
	Linger time.Duration
	// Gate is shared with an in-process scripted Core in the self-check (see script.Gate).
	Gate *script.Gate
	// Faults arms the scenario's fault steps on the relay in front of the Core. In the self-check
	// the scripted Core arms them and this is NoFaults.
	Faults scenarios.FaultArmer
	// Decided, if set, is told once the verdict is decided, before the conversation is closed:
	// nothing after it can change the verdict (the mutation matrix counts the points a play
	// reached up to here).
	Decided func()
}

// NoFaults is the FaultArmer of the peer that does not arm: fault steps are skipped.
type NoFaults struct{}

func (NoFaults) Arm(context.Context, *scenarios.FaultStep, *scenarios.Bindings) error { return nil }

func (c *Config) defaults(sc *scenarios.Scenario) {
	if c.DeviceID == "" {
		c.DeviceID = "runtime"
	}
	if c.Credential == "" {
		c.Credential = "synthetic-contract-credential"
	}
	if c.Kinds == nil {
		caps := proto.MustDeclareCapabilities(sc.Requires...)
		c.Kinds = []proto.SupportedAgentKind{{Kind: "contract", Available: true, Version: "scripted", Capabilities: &caps}}
		for _, kind := range sc.UnavailableKinds { // declaring what the scenario requires, as the scenario asks of them
			caps := proto.MustDeclareCapabilities(sc.Requires...)
			c.Kinds = append(c.Kinds, proto.SupportedAgentKind{Kind: kind, Available: false, Version: "scripted", Capabilities: &caps})
		}
	}
	if c.Timeout == 0 {
		c.Timeout = 3 * time.Second
	}
	if c.Seed == "" {
		c.Seed = "0"
	}
}

// Play runs one scenario as the Runtime against the Core at cfg.ServerURL.
func Play(ctx context.Context, sc *scenarios.Scenario, cfg Config) *scenarios.Result {
	cfg.defaults(sc)
	rec := script.NewRecorder()
	rec.Trace(trace.SpanFromContext(ctx)) // the scenario's span (runner.PlayReferenceCore), if any
	p := &script.Player{Scenario: sc, Self: proto.Runtime, B: scenarios.BindingsWith(sc.Vars), Rec: rec, Timeout: cfg.Timeout, Seed: cfg.Seed, Gate: cfg.Gate}
	if w, ok := cfg.Faults.(scenarios.DropWitness); ok {
		p.Drops = w
	}
	if f, ok := cfg.Faults.(script.Forwarder); ok {
		p.Relay = f
	}
	r := &run{cfg: cfg, p: p}
	r.id = identity(cfg, sc.Handshake)
	verdict, failure, err := r.play(ctx)
	if err != nil {
		verdict, failure = scenarios.HarnessError, p.HarnessFailure(err)
	}
	if cfg.Decided != nil {
		cfg.Decided()
	}
	// A socket still paused (a scenario that failed before resume_reading) would hold the close
	// handshake, which reads, forever.
	r.stalling.resume()
	if p.Conn != nil {
		if verdict == scenarios.Pass && cfg.Linger > 0 {
			t := time.NewTimer(cfg.Linger)
			select {
			case <-p.Conn.Done():
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		p.Conn.Close(proto.CloseNormal, "client closing")
	}
	return p.Result(scenarios.SideRuntime, verdict, failure)
}

type run struct {
	cfg Config
	p   *script.Player
	id  transport.Identity
	// stalling dialed the connection of a scenario whose Runtime stops reading (stall.go).
	stalling *stallingClient
	// stalledReads are the core frame steps Core was made to send while the Runtime read nothing:
	// resume_reading reads them, in order (stall.go).
	stalledReads []*scenarios.Step
}

func (r *run) play(ctx context.Context) (scenarios.Verdict, *scenarios.Failure, error) {
	sc, p := r.p.Scenario, r.p
	if d := r.cfg.Driver; d != nil {
		if err := d.Begin(ctx, sc); err != nil {
			return "", nil, fmt.Errorf("the Core driver could not begin the scenario: %w", err)
		}
	}
	err := r.connect(ctx)
	if want := expected(sc); want != nil {
		var ref *refused
		switch {
		case errors.As(err, &ref) && want.Refuses(ref.Status, ref.Code) && atStage(want.At, ref.Stage):
			p.Rec.Event("rejected", ref.Error())
			return scenarios.Pass, nil, nil
		case errors.As(err, &ref):
			return scenarios.Fail, p.Failf(nil, "Core answered %d %s at %s; the protocol requires %v%s", ref.Status, ref.Code, ref.Stage, want, atWhat(want.At)), nil
		case err == nil:
			return scenarios.Fail, p.Failf(nil, "Core accepted the connection; the protocol requires %v%s", want, atWhat(want.At)), nil
		case errors.As(err, new(*transport.BadAnswer)):
			return scenarios.Fail, p.Failf(nil, "Core accepted the bootstrap with a broken answer (%v); the protocol requires %v", err, want), nil
		default:
			return "", nil, err
		}
	}
	if err != nil {
		var ref *refused
		if errors.As(err, &ref) {
			return scenarios.Fail, p.Failf(nil, "Core refused the connection: %v", ref), nil
		}
		var bad *transport.BadAnswer
		if errors.As(err, &bad) {
			return scenarios.Fail, p.Failf(nil, "%v", bad), nil
		}
		return "", nil, err
	}
	// A check the driver cannot answer makes the scenario not applicable, but the conversation
	// goes on: the wire steps after it still test the Core, and a later failure still fails it.
	var notApplicable *scenarios.Failure
	for _, st := range sc.Steps {
		p.Rec.SetStep(st.Index)
		f, err := r.tracedStep(ctx, st)
		if err != nil {
			return "", nil, err
		}
		if f != nil {
			if errors.Is(f.cause, ErrNotApplicable) {
				if st.Kind == scenarios.StepCheck {
					p.Rec.Event("not-applicable", f.Message)
					if notApplicable == nil {
						notApplicable = f.Failure
					}
					continue
				}
				return scenarios.NotApplicable, f.Failure, nil
			}
			return scenarios.Fail, f.Failure, nil
		}
	}
	if notApplicable != nil {
		return scenarios.NotApplicable, notApplicable, nil
	}
	return scenarios.Pass, nil, nil
}

// atStage reports whether a refusal came at the request a scenario expects it at ("": either).
func atStage(at string, stage transport.Stage) bool {
	switch at {
	case scenarios.ExpectAtBootstrap:
		return stage == transport.StageBootstrap
	case scenarios.ExpectAtUpgrade:
		return stage == transport.StageDial
	}
	return true
}

func atWhat(at string) string {
	if at == "" {
		return ""
	}
	return " at the " + at
}

func expected(sc *scenarios.Scenario) *scenarios.HTTPExpect {
	if sc.Handshake != nil {
		return sc.Handshake.Expect
	}
	return nil
}

// connect bootstraps, dials and, in auto mode, heartbeats at once.
func (r *run) connect(ctx context.Context) error {
	cl := &client
	if stopsReading(r.p.Scenario) {
		r.stalling = newStallingClient()
		cl = &r.stalling.Client
	}
	ws, err := bootstrapAndDial(ctx, cl, r.cfg.ServerURL, r.id, r.p.Scenario.Handshake)
	if err != nil {
		return err
	}
	r.p.Conn = script.NewConn(ws, r.p.Rec, script.From(proto.Core))
	if r.stalling != nil {
		r.p.Conn.SetUnread(r.stalling.unread())
	}
	r.p.Rec.Event("connected", "device "+r.id.DeviceID)
	if r.p.Scenario.Heartbeat == scenarios.HeartbeatAuto {
		if err := r.heartbeat(ctx); err != nil && !r.closedNormally() {
			return err
		}
	}
	return nil
}

// closedNormally reports whether Core has closed the connection with a normal close, waiting a
// step's bound for the reader to see the close. Against a scripted Core in the self-check, Core
// may play a scenario's last steps and end the conversation before this side has written the
// heartbeat of a new connection: what Core sent before its close is still read, and the steps
// after judge it, so the unwritten heartbeat is no failure of its own.
func (r *run) closedNormally() bool {
	t := time.NewTimer(r.cfg.Timeout)
	defer t.Stop()
	select {
	case <-r.p.Conn.Done():
	case <-t.C:
		return false
	}
	ce := r.p.Conn.ClosedErr()
	if ce == nil || ce.Code != proto.CloseNormal {
		return false
	}
	r.p.Rec.Event("closed", "Core closed the connection normally before its heartbeat was written")
	return true
}

func (r *run) heartbeat(ctx context.Context) error {
	env, err := proto.NewEnvelope(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{
		TS: time.Now().Unix(), DaemonVersion: "wirecheck-scripted", SupportedAgentKinds: r.cfg.Kinds})
	if err != nil {
		return fmt.Errorf("encoding the heartbeat: %w", err)
	}
	raw, _ := env.Encode()
	return r.p.Conn.Write(ctx, raw)
}

// tracedStep plays a step inside its span (script.Player.StepSpan).
func (r *run) tracedStep(ctx context.Context, st *scenarios.Step) (*stepFailure, error) {
	ctx, end := r.p.StepSpan(ctx, st)
	f, err := r.step(ctx, st)
	var failure *scenarios.Failure
	if f != nil {
		failure = f.Failure
	}
	end(script.StepFailure(failure, err))
	return f, err
}

// stepFailure carries why a step failed, so a driver's ErrNotApplicable becomes a verdict.
type stepFailure struct {
	*scenarios.Failure
	cause error
}

func fail(f *scenarios.Failure) *stepFailure {
	if f == nil {
		return nil
	}
	return &stepFailure{Failure: f}
}

func (r *run) step(ctx context.Context, st *scenarios.Step) (*stepFailure, error) {
	p, d := r.p, r.cfg.Driver
	if p.Conn == nil && st.Kind != scenarios.StepReconnect && st.Kind != scenarios.StepSilence && st.Kind != scenarios.StepCheck && st.Kind != scenarios.StepAdvance && st.Kind != scenarios.StepFault && st.Kind != scenarios.StepRestart && st.Kind != scenarios.StepBound {
		return fail(p.Failf(st, "the transport is closed; this step needs a connection")), nil
	}
	switch st.Kind {
	case scenarios.StepRuntime:
		f, err := p.Send(ctx, st)
		return fail(f), err
	case scenarios.StepCore:
		return r.triggerAndExpect(ctx, st)
	case scenarios.StepAnyOrder:
		if st.From == proto.Runtime {
			f, err := p.SendGroup(ctx, st)
			return fail(f), err
		}
		return r.triggerAndExpect(ctx, st)
	case scenarios.StepSilence:
		if st.From == proto.Runtime {
			p.QuietWait(ctx, st)
			return nil, nil
		}
		f := p.ExpectSilence(ctx, st, st.Window, nil)
		if f != nil && endedCleanly(p, st) {
			f = nil
		}
		return fail(f), nil
	case scenarios.StepSettle:
		// The scripted Runtime's native work settles here: it stays quiet while Core watches.
		p.QuietWait(ctx, st)
		return nil, nil
	case scenarios.StepAdvance:
		p.Rec.Event("advance", st.Advance.String())
		if d != nil {
			r.awaitTaken(ctx)
			d.Advance(st.Advance)
			r.advanceTransport(st)
		}
		p.Advanced(st.Advance)
		return nil, nil
	case scenarios.StepDisconnect:
		return r.disconnect(ctx, st)
	case scenarios.StepRestart:
		return r.restart(ctx, st), nil
	case scenarios.StepBound:
		return fail(p.RequireBound(st)), nil
	case scenarios.StepReconnect:
		old := p.Conn
		if err := r.connect(ctx); err != nil {
			if old != nil {
				old.Drop()
			}
			return fail(p.Failf(st, "reconnecting failed: %v", err)), nil
		}
		if old != nil {
			return fail(r.replaced(st, old)), nil
		}
		return nil, nil
	case scenarios.StepStopReading, scenarios.StepResumeReading, scenarios.StepAwaitStall:
		return fail(r.stallReading(ctx, st)), nil
	case scenarios.StepExportPull:
		// Only a scenario that tests a Runtime holds it: this is the self-check's side.
		f, err := p.ServeExport(ctx, st)
		return fail(f), err
	case scenarios.StepFault:
		if r.cfg.Faults == nil {
			return nil, fmt.Errorf("%s: this scenario arms faults and needs the fault relay in front of the Core", st.Pos)
		}
		return nil, r.cfg.Faults.Arm(ctx, st.Fault, p.B)
	case scenarios.StepCheck:
		if st.Check.DeviceStatus != nil {
			return r.deviceStatus(ctx, st), nil
		}
		if d == nil {
			return &stepFailure{p.Failf(st, "no Core driver to answer the check"), ErrNotApplicable}, nil
		}
		cctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		defer cancel()
		if err := d.Check(cctx, st.Check, p.B); err != nil {
			return &stepFailure{p.Failf(st, "Core-side check failed: %v", err), err}, nil
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%s: unsupported step kind %q", st.Pos, st.Kind)
}

func (r *run) triggerAndExpect(ctx context.Context, st *scenarios.Step) (*stepFailure, error) {
	if d := r.cfg.Driver; d != nil {
		if err := d.Trigger(ctx, st, r.p.B); err != nil {
			return &stepFailure{r.p.Failf(st, "the Core driver could not make Core send it: %v", err), err}, nil
		}
	}
	if r.p.Conn.Stopped() {
		r.stalledReads = append(r.stalledReads, st) // read once reading resumes (stall.go)
		return nil, nil
	}
	_, f := r.p.Expect(ctx, st)
	return fail(f), nil
}

func (r *run) disconnect(ctx context.Context, st *scenarios.Step) (*stepFailure, error) {
	p := r.p
	c := st.Close
	if c.MayEnd {
		return nil, nil // the Runtime may end its transport here; a scripted one stays
	}
	if c.By == proto.Runtime {
		if c.Code != 0 {
			p.Conn.Close(c.Code, c.Reason)
		} else {
			p.Conn.Drop()
		}
		p.Conn = nil
		return nil, nil
	}
	if d := r.cfg.Driver; d != nil && (!c.Awaited || c.Stopped) {
		if err := d.Disconnect(ctx, c); err != nil {
			return &stepFailure{p.Failf(st, "the Core driver could not make Core close the transport: %v", err), err}, nil
		}
		if c.Code == proto.CloseRuntimeDeleted && r.p.Scenario.Heartbeat == scenarios.HeartbeatAuto {
			// Core may close a retired runtime's connection at once or when a heartbeat shows the
			// retirement (facts §1.3): the Runtime heartbeats once more, as it would at its next
			// interval, so either Core closes now (docs/spec-readings.md, retired-runtime-close).
			// A write that fails because Core closed first is no failure: the close is judged below.
			_ = r.heartbeat(ctx)
		}
	}
	// Core closes: drain what it sent before, then require the close (with the code, if named).
	ctx, cancel := script.Within(ctx, r.cfg.Timeout)
	defer cancel()
	discarded := 0
	defer func() {
		if discarded > 0 {
			p.Rec.Event("discard", fmt.Sprintf("%d frames read before the drop", discarded))
		}
	}()
	for {
		in, err := p.Conn.Next(ctx)
		var closed *script.ClosedError
		switch {
		case errors.As(err, &closed):
			p.Conn = nil
			if c.Dropped || c.AnyClose {
				return nil, nil // a drop, or a close with any code: how the transport ends is not said
			}
			if c.Stopped {
				return fail(cleanShutdownClose(p, st, closed)), nil
			}
			if c.Code != 0 && closed.Code != c.Code {
				return fail(p.Failf(st, "Core closed the transport with %d %q; expected %d", closed.Code, closed.Reason, c.Code)), nil
			}
			return nil, nil
		case errors.Is(err, script.ErrTimeout):
			return fail(p.Failf(st, "Core did not close the transport within %v", r.cfg.Timeout)), nil
		case err != nil:
			return fail(p.Failf(st, "%v before the step completed", err)), nil
		case c.Dropped:
			discarded++ // what piled up while the Runtime was not reading
		default:
			return fail(p.Failf(st, "Core sent %s instead of closing the transport", in.Raw)), nil
		}
	}
}

// restart has the driver restart Core, then requires the Runtime's transport to have ended with
// the stopped process: any close code or a drop (how a process exit ends it is the driver's
// choice; disconnect {stopped: true} is the step that judges a Core's clean close). A frame before
// the end fails the step, as it does before an any_close: the scenario says what Core sends.
func (r *run) restart(ctx context.Context, st *scenarios.Step) *stepFailure {
	p, d := r.p, r.cfg.Driver
	if d == nil {
		return &stepFailure{p.Failf(st, "no Core driver to restart Core"), ErrNotApplicable}
	}
	p.Rec.Event("restart", "Core stops and starts again over its durable records")
	if err := d.Restart(ctx); err != nil {
		return &stepFailure{p.Failf(st, "the Core driver could not restart Core: %v", err), err}
	}
	if p.Conn == nil {
		return nil
	}
	ctx, cancel := script.Within(ctx, r.cfg.Timeout)
	defer cancel()
	in, err := p.Conn.Next(ctx)
	var closed *script.ClosedError
	switch {
	case errors.As(err, &closed):
		p.Conn = nil
		return nil
	case errors.Is(err, script.ErrTimeout):
		return fail(p.Failf(st, "the transport outlived Core's restart by %v", r.cfg.Timeout))
	case err != nil:
		return fail(p.Failf(st, "%v before the step completed", err))
	}
	return fail(p.Failf(st, "Core sent %s instead of ending the transport as it stopped", in.Raw))
}

// replaced checks the rule for a second connection of the same device while the first is still
// open: the newer connection replaces the previous one, so Core must close the first.
func (r *run) replaced(st *scenarios.Step, old *script.Conn) *scenarios.Failure {
	t := time.NewTimer(r.cfg.Timeout)
	defer t.Stop()
	select {
	case <-old.Done():
		return nil
	case <-t.C:
		old.Drop()
		return r.p.Failf(st, "a newer connection for the same device must replace the previous one, but Core kept the first connection open for %v", r.cfg.Timeout)
	}
}

// endedCleanly: during the scenario's last step a peer that has played all its own steps may close
// normally; that is the end of the conversation, not a broken silence.
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

// cleanShutdownClose judges the close of a Core that shuts down (disconnect stopped by core): it
// is no error, so it must be a clean close (CN-20), whatever its reason.
func cleanShutdownClose(p *script.Player, st *scenarios.Step, closed *script.ClosedError) *scenarios.Failure {
	switch {
	case closed.Code < 0:
		return p.Failf(st, "Core shutting down dropped the socket without a close frame; expected a clean close, 1000 or 1001 (CN-20)")
	case closed.Code != proto.CloseNormal && closed.Code != proto.CloseGoingAway:
		return p.Failf(st, "Core shutting down closed with %d %q, an error close; expected a clean close, 1000 or 1001 (CN-20: clean closes are not errors)", closed.Code, closed.Reason)
	}
	return nil
}
