package daemon

import (
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/environment"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/rtprepare"
)

// binding is the Environment identity the daemon serves: fixed by Config, or adopted from the
// first begin it accepts. It outlives connections (the Environment is the daemon's).
type binding struct {
	mu                   sync.Mutex
	environment, session string
}

// mismatch reports whether a begin names another Environment or Session than the bound one.
func (b *binding) mismatch(envID, session string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.environment == "" {
		return false
	}
	return (b.environment != envID && !mutation.On(mutation.PrepareMismatchAccepted)) ||
		(b.session != session && !mutation.On(mutation.RPSessionMismatchAccepted))
}

func (b *binding) adopt(envID, session string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.environment == "" {
		b.environment, b.session = envID, session
	}
}

func (b *binding) environmentID() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.environment
}

// transfers is the router's runtime_prepare state: the pure machine (under router.mu) and what
// the daemon needs to carry out its effects.
type transfers struct {
	m         rtprepare.Conn
	staged    map[string]*environment.Staged // nil for a transfer whose staging could not be opened
	deadlines map[string]time.Time
	stops     map[string]func()
	// digested is closed once the last chunk handed to digest is hashed (nil: none yet). The
	// receive loop's own, not under mu: only it stages chunks and applies frames.
	digested chan struct{}
	// spare holds chunk buffers whose bytes are staged and hashed, for the next chunks to be
	// decoded into: a transfer of 800 chunks allocates two, not 800 (the heap a 50 MiB transfer
	// grew into cost its first transfer a third of its speed; docs/performance.md).
	spare chan []byte
}

func newTransfers(serving bool) transfers {
	return transfers{m: rtprepare.Conn{Serving: serving}, staged: map[string]*environment.Staged{},
		deadlines: map[string]time.Time{}, stops: map[string]func(){}, spare: make(chan []byte, 2)}
}

// runtimePrepare answers one runtime_prepare frame (protocol-facts §4.2).
func (r *router) runtimePrepare(env proto.Envelope) {
	p, err := proto.Decode[proto.RuntimePreparePayload](env)
	r.runtimePrepareDecoded(env, p, err)
}

// runtimePrepareDecoded answers a runtime_prepare frame decoded as p, or refused with err.
func (r *router) runtimePrepareDecoded(env proto.Envelope, p *proto.RuntimePreparePayload, err error) {
	f := rtprepare.Frame{ID: env.ID, Payload: p, Err: err}
	if err != nil && mutation.On(mutation.PrepareFrameUnbounded) && len(env.Payload) > proto.RuntimePrepareMaxFrameBytes {
		var loose proto.RuntimePreparePayload
		if json.Unmarshal(env.Payload, &loose) == nil && loose.Validate() == nil {
			p, f.Payload, f.Err, err = &loose, &loose, nil, nil
		}
	}
	if err != nil {
		if lax := laxPrepare(env.Payload); lax != nil {
			p, f.Payload, f.Err, err = lax, lax, nil, nil
		}
	} else if refused := refusedAtLimit(env, p); refused != nil {
		f.Payload, f.Err, err = nil, refused, refused
	}
	if err != nil {
		r.d.log.Info("runtime_prepare: invalid frame", "id", env.ID, "err", err)
		f.Payload = nil
		if mutation.On(mutation.PrepareMalformedAfterCommitRejected) {
			r.mu.Lock()
			phase := r.tr.m.Seen[env.ID]
			r.mu.Unlock()
			if phase == rtprepare.Applying || phase == rtprepare.Spent {
				r.prepareReply(env.ID, proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeInvalidRequest})
				return
			}
		}
	} else if p.Step == proto.StepBegin {
		f.Mismatch = r.d.bind.mismatch(p.EnvironmentID, p.SessionID)
	}
	if f.Payload == nil || f.Payload.Step != proto.StepChunk {
		r.awaitDigests() // whatever else the frame is, the digest it may read is complete
	}
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return
	}
	f.Busy = r.beginBusyLocked()
	mutatePrepareFrame(&r.tr.m, &f)
	if r.transferOfEarlierConnection(f) {
		r.mu.Unlock()
		return
	}
	effects := mutatePrepareEffects(r, env, err, r.tr.m.Apply(f))
	r.mu.Unlock()
	for _, eff := range effects {
		if rep, ok := eff.(rtprepare.Reply); ok && rep.Result.Outcome == proto.OutcomeReady {
			r.d.bind.adopt(p.EnvironmentID, p.SessionID) // the first begin accepted binds the Environment
			r.rememberTransfer(rep.ID)
		}
	}
	r.prepareEffects(effects)
}

// beginBusyLocked: what a begin must not run beside exists (RP-21): a Run, an Executor (an idle
// retained one included), an owned admission, a workspace write or export, a suspension's fence.
// executionBusyLocked and workspaceBusyLocked, case by case.
func (r *router) beginBusyLocked() bool {
	if len(r.runs) > 0 && !mutation.On(mutation.PrepareBeginWhileBusy) {
		return true
	}
	for _, e := range r.executors {
		switch e.state {
		case execClosed:
		case execRunning: // a Run's
			if !mutation.On(mutation.PrepareBeginWhileBusy) {
				return true
			}
		case execIdle:
			if !mutation.On(mutation.RPBeginBesideIdleExecutor) {
				return true
			}
		case execPreparing, execAdmitted: // an admission's
			if !mutation.On(mutation.RPBeginBesideAdmission) {
				return true
			}
		default:
			return true
		}
	}
	for _, g := range r.records {
		if g.rec.Owned() && !mutation.On(mutation.RPBeginBesideAdmission) {
			return true
		}
	}
	if r.workspaceBusyLocked(busyOther) {
		ignored := (r.wso.m.Writing() && mutation.On(mutation.RPBeginDuringWrite)) ||
			(r.wso.m.Exporting() && mutation.On(mutation.RPBeginDuringExport))
		if !ignored {
			return true
		}
	}
	return r.fencedLocked() && !mutation.On(mutation.SURuntimePrepareAdmitted)
}

// prepareBusyLocked: a transfer holds the connection's slot, so execution is resource_unavailable.
func (r *router) prepareBusyLocked() bool {
	return r.tr.m.Busy() && !mutation.On(mutation.ExecutionDuringTransfer)
}

// prepareEffects carries out the machine's effects in order, but for a chunk's: its bytes are
// written to the staged body, then its received goes out, then they are hashed on a goroutine of
// their own (digest), so that the hash overlaps Core's next chunk and its reading and decoding
// here instead of delaying them. The order of the hash cannot be seen: hashing cannot fail, and
// every frame but a chunk, the commit that reads the digest included, waits for it
// (runtimePrepareDecoded). received proves staged bytes (RP-26), so a chunk whose bytes could not
// be staged gets none: Core then holds the transfer unknown, and the daemon's 120 s bound closes it.
func (r *router) prepareEffects(effects []rtprepare.Effect) {
	if len(effects) == 2 {
		if stage, ok := effects[0].(rtprepare.Stage); ok {
			if err := r.stage(stage); err != nil {
				r.d.log.Warn("runtime_prepare: a chunk could not be staged; no received", "transfer", stage.ID, "err", err)
				return
			}
			r.prepareEffects(effects[1:])
			r.digest(stage)
			return
		}
	}
	for _, eff := range effects {
		switch eff := eff.(type) {
		case rtprepare.Reply:
			r.prepareReply(eff.ID, eff.Result)
		case rtprepare.Arm:
			r.armTransfer(eff.ID)
		case rtprepare.Stage: // never alone: see above
			panic("rtprepare: a Stage without its received")
		case rtprepare.Apply:
			r.mu.Lock()
			begin := r.tr.m.Slot.Begin
			staged := r.tr.staged[eff.ID]
			delete(r.tr.staged, eff.ID) // the apply owns it now
			deadline := r.tr.deadlines[eff.ID]
			r.stopTransferLocked(eff.ID) // the bound now belongs to the apply
			r.mu.Unlock()
			r.goOwned(func() {
				a := r.applyTransfer(begin, staged, deadline)
				a.ID = eff.ID
				r.mu.Lock()
				effects := r.tr.m.Apply(a)
				r.mu.Unlock()
				r.prepareEffects(effects)
			})
		case rtprepare.Close:
			r.mu.Lock()
			r.stopTransferLocked(eff.ID)
			staged := r.tr.staged[eff.ID]
			delete(r.tr.staged, eff.ID)
			delete(r.tr.deadlines, eff.ID)
			r.mu.Unlock()
			discard(staged)
		}
	}
}

// stage appends a chunk's bytes to its transfer's staged body.
func (r *router) stage(s rtprepare.Stage) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	staged := r.tr.staged[s.ID]
	if staged == nil {
		return errors.New("the transfer has no staged body")
	}
	if _, err := staged.Write(s.Data); err != nil {
		return err
	}
	if mutation.On(mutation.PrepareInstalledBeforeCommit) && r.tr.m.Slot != nil && r.tr.m.Slot.Begin.File != nil {
		if body, err := staged.Bytes(); err == nil {
			_ = r.d.env.WriteFile(r.tr.m.Slot.Begin.File.Path, body)
		}
	}
	return nil
}

// digest writes a staged chunk's bytes to its transfer's digest on a goroutine of its own. One at a
// time and in order: the previous chunk's hashing ends first (it has had a whole round trip to
// run), so a transfer holds at most one chunk awaiting its hash. Called on the receive loop only
// (Stage effects come from frames), like awaitDigests. The chunk's bytes are the decoded frame's
// own: once staged and hashed nothing reads them, and their buffer is spared for a later chunk.
func (r *router) digest(s rtprepare.Stage) {
	r.awaitDigests()
	done, spare := make(chan struct{}), r.tr.spare
	r.tr.digested = done
	r.goOwned(func() {
		defer close(done)
		_, _ = s.Digest.Write(s.Data)
		select {
		case spare <- s.Data:
		default:
		}
	})
}

// spareChunkBuffer returns a buffer a chunk may be decoded into (nil when none is spare).
func (r *router) spareChunkBuffer() []byte {
	select {
	case b := <-r.tr.spare:
		return b
	default:
		return nil
	}
}

// awaitDigests returns once every chunk handed to digest is hashed.
func (r *router) awaitDigests() {
	if r.tr.digested != nil {
		<-r.tr.digested
	}
}

func discard(s *environment.Staged) {
	if s != nil {
		_ = s.Discard()
	}
}

// armTransfer starts the 120 s bound of a transfer on the daemon's clock (RP-23).
func (r *router) armTransfer(id string) {
	bound := proto.TransferBodyDeadline
	if mutation.On(mutation.PrepareUnbounded) {
		bound = 1000 * time.Hour
	}
	if mutation.On(mutation.RPBoundEarly) {
		bound /= 2
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.tr.m.Slot; t != nil && t.ID == id && rtprepare.HasBody(t.Begin.Action) && !r.closing {
		staged, err := r.d.env.Stage()
		if err != nil {
			r.d.log.Warn("runtime_prepare: the body cannot be staged", "transfer", id, "err", err)
		}
		r.tr.staged[id] = staged
	}
	r.tr.deadlines[id] = r.d.cfg.Clock.Now().Add(bound)
	r.tr.stops[id] = r.afterFunc(bound, func() {
		r.mu.Lock()
		effects := r.tr.m.Apply(rtprepare.Expired{ID: id})
		r.mu.Unlock()
		r.prepareEffects(effects)
	})
}

func (r *router) stopTransferLocked(id string) {
	if stop := r.tr.stops[id]; stop != nil {
		stop()
		delete(r.tr.stops, id)
	}
}

// prepareReply sends a runtime_prepare_result within its 5 s send budget (RP-23): a send that
// cannot complete in time is abandoned, never retried.
func (r *router) prepareReply(id string, res proto.RuntimePrepareResultPayload) {
	if err := sendWithin(r.d.cfg.Clock, r.out.enqueue(proto.MustEnvelope(proto.TypeRuntimePrepareResult, id, &res)), proto.ReceiptSendBudget); err != nil {
		r.d.log.Warn("a runtime_prepare result could not be sent", "transfer", id, "err", err)
	}
}

// applyTransfer installs a committed transfer in the Environment (docs/contract-harness.md,
// "Environment preparation"). A setup command runs until the transfer's deadline at most.
func (r *router) applyTransfer(b proto.RuntimePreparePayload, staged *environment.Staged, deadline time.Time) rtprepare.Applied {
	env := r.d.env
	defer discard(staged)
	if mutation.On(mutation.PrepareCommitNotApplied) {
		return rtprepare.Applied{Outcome: rtprepare.Completed}
	}
	if staged == nil && rtprepare.HasBody(b.Action) { // a zero-size body whose staging could not open
		r.d.log.Warn("runtime_prepare: apply unconfirmed: the body was never staged")
		return rtprepare.Applied{Outcome: rtprepare.Unconfirmed}
	}
	var err error
	switch b.Action {
	case proto.ActionFile:
		err = staged.InstallFile(b.File.Path)
	case proto.ActionSkill:
		var body []byte
		if body, err = staged.Bytes(); err == nil {
			err = env.InstallSkill(environment.Capability{Name: b.Skill.Name, Description: b.Skill.Description, Body: body})
		}
	case proto.ActionPlugin:
		var body []byte
		if body, err = staged.Bytes(); err == nil {
			err = env.InstallPlugin(b.Slot, environment.Capability{Name: b.Plugin.Name, Description: b.Plugin.Description, Body: body})
		}
	case proto.ActionFinalize:
		err = r.checkSources(b.Sources)
	case proto.ActionInitialize:
		return r.initialize(b.Initialization, deadline)
	}
	switch {
	case err == nil:
		return rtprepare.Applied{Outcome: rtprepare.Completed}
	case errors.Is(err, environment.ErrUnsafe):
		r.d.log.Info("runtime_prepare: refused", "err", err)
		return rtprepare.Applied{Outcome: rtprepare.Refused}
	case errors.Is(err, environment.ErrInvalidContent) && mutation.On(mutation.RPInvalidContentUnconfirmed):
	case errors.Is(err, environment.ErrInvalidContent), errors.Is(err, errMissingSource):
		r.d.log.Info("runtime_prepare: failed", "err", err)
		return rtprepare.Applied{Outcome: rtprepare.Failed}
	}
	r.d.log.Warn("runtime_prepare: apply unconfirmed", "err", err)
	return rtprepare.Applied{Outcome: rtprepare.Unconfirmed}
}

var errMissingSource = errors.New("a finalize source is not installed")

// checkSources: every skill and plugin named is installed, every directory exists.
func (r *router) checkSources(s *proto.CapabilitySources) error {
	env := r.d.env
	skills, err := env.Skills()
	if err != nil {
		return err
	}
	plugins, err := env.Plugins()
	if err != nil {
		return err
	}
	installed := map[string]bool{}
	for _, n := range skills {
		installed["skill "+n] = true
	}
	for _, n := range plugins {
		installed["plugin "+n] = true
	}
	for _, c := range s.Skills {
		if !installed["skill "+c.Name] {
			return errors.Join(errMissingSource, errors.New("skill "+c.Name))
		}
	}
	for _, c := range s.Plugins {
		if !installed["plugin "+c.Name] {
			return errors.Join(errMissingSource, errors.New("plugin "+c.Name))
		}
	}
	for _, d := range s.Directories {
		if !env.DirectoryExists(d) {
			return errors.Join(errMissingSource, errors.New("directory "+d))
		}
	}
	return nil
}

func (r *router) initialize(in *proto.RuntimeInitialization, deadline time.Time) rtprepare.Applied {
	env := r.d.env
	var err error
	switch in.Action {
	case proto.InitConfigure:
		err = env.Configure(in.Env)
	case proto.InitNPM, proto.InitPython:
		err = env.RecordPackages(in.Action, in.Packages)
	case proto.InitSetup:
		out := env.RunSetup(r.ctx, r.d.cfg.Clock, deadline.Sub(r.d.cfg.Clock.Now()), in.Cwd, in.Command)
		switch {
		case out.Result == environment.Exited && out.ExitCode == 0:
			return rtprepare.Applied{Outcome: rtprepare.Completed}
		case out.Result == environment.Exited, out.Result == environment.NotStarted:
			if mutation.On(mutation.PrepareExitCodeDropped) {
				out.ExitCode = 0
			}
			if out.Result == environment.NotStarted && mutation.On(mutation.RPNotStartedExitCode) {
				out.ExitCode = 127
			}
			return rtprepare.Applied{Outcome: rtprepare.Failed, ExitCode: out.ExitCode}
		}
		return rtprepare.Applied{Outcome: rtprepare.Unconfirmed}
	}
	if err != nil {
		return rtprepare.Applied{Outcome: rtprepare.Unconfirmed}
	}
	return rtprepare.Applied{Outcome: rtprepare.Completed}
}
