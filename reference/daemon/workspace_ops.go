package daemon

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/workspace"
)

// wsOps is the router's workspace_read/write/export state: the machine (under router.mu) and the
// timer that ends an expired write body or export.
type wsOps struct {
	m         workspace.Machine
	stopTimer func()
}

// newWorkspaceFS is the FS the connection's machine works on: the Environment's workspace, with
// the contract Harness's scripted paths (docs/contract-harness.md §8) when it is composed in. nil:
// the daemon has no Environment and serves none of the three operations.
func (d *Daemon) newWorkspaceFS() (workspace.FS, func()) {
	if d.env == nil {
		return nil, func() {}
	}
	dir, err := workspace.OpenDir(d.env.WorkspaceDir())
	if err != nil {
		d.log.Error("the workspace cannot be opened: no workspace operation is served", "err", err)
		return nil, func() {}
	}
	var fs workspace.FS = dir
	if _, ok := d.harnesses[contract.Kind]; ok {
		fs = scriptedFS{dir}
	}
	return fs, func() { _ = dir.Close() }
}

// exports reports whether a Harness declares workspace_output_export.
func (d *Daemon) exports() bool {
	for _, h := range d.harnesses {
		if caps := h.Capabilities(); caps.WorkspaceOutputExport.Supported() {
			return true
		}
	}
	return false
}

// workspaceFrame answers one workspace_read, workspace_write or workspace_export frame.
func (r *router) workspaceFrame(env proto.Envelope) {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return
	}
	now := r.d.cfg.Clock.Now()
	effects := r.wso.m.Handle(env, now, wsHost{r, now})
	r.armWorkspaceTimerLocked(now)
	r.mu.Unlock()
	for _, eff := range effects {
		switch eff := eff.(type) {
		case workspace.Reply:
			r.adoptBinding(env, eff)
			r.wsReply(eff)
		case workspace.StartRead:
			r.startRead(eff)
		}
	}
}

// adoptBinding: a write begin accepted on an unbound daemon binds its Environment, as a
// runtime_prepare begin does.
func (r *router) adoptBinding(env proto.Envelope, rep workspace.Reply) {
	res, ok := rep.Payload.(*proto.WorkspaceWriteResultPayload)
	if !ok || res.Outcome != proto.OutcomeReady {
		return
	}
	if p, err := proto.Decode[proto.WorkspaceWritePayload](env); err == nil {
		r.d.bind.adopt(p.EnvironmentID, p.SessionID)
	}
}

func (r *router) wsReply(rep workspace.Reply) {
	out, err := proto.NewEnvelope(rep.Type, rep.ID, rep.Payload)
	if err != nil {
		r.d.log.Error("workspace reply not encodable", "type", rep.Type, "err", err)
		return
	}
	out.Trace = rep.Trace
	r.out.enqueue(out) // the outbound's per-frame deadline bounds the send
}

// armWorkspaceTimerLocked keeps one timer for the earliest write or export deadline.
func (r *router) armWorkspaceTimerLocked(now time.Time) {
	if r.wso.stopTimer != nil {
		r.wso.stopTimer()
		r.wso.stopTimer = nil
	}
	at, ok := r.wso.m.NextDeadline()
	if !ok {
		return
	}
	r.wso.stopTimer = r.afterFunc(at.Sub(now), func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		now := r.d.cfg.Clock.Now()
		r.wso.m.Expire(now)
		r.armWorkspaceTimerLocked(now)
	})
}

// startRead runs an admitted read natively, bounded by its 12 s budget (WS-14): the first of the
// native result and the budget answers; the other is dropped.
func (r *router) startRead(s workspace.StartRead) {
	var once sync.Once
	finish := func(res proto.WorkspaceReadResultPayload) {
		once.Do(func() {
			r.mu.Lock()
			effects, err := r.wso.m.ReadEnded(s.ID, res)
			r.mu.Unlock()
			if err != nil {
				r.d.log.Error("read end not applied", "id", s.ID, "err", err)
			}
			for _, eff := range effects {
				if rep, ok := eff.(workspace.Reply); ok {
					r.wsReply(rep)
				}
			}
		})
	}
	budget := workspace.ReadBudget
	if mutation.On(mutation.WSReadBudgetEarly) {
		budget /= 2
	}
	stop := func() {}
	if !mutation.On(mutation.WSReadBudgetNever) {
		stop = r.afterFunc(budget, func() { finish(workspace.Unconfirmed()) })
	}
	if held(r.wso.m.FS, s.Request) {
		return // scripted: the native read never returns, the budget answers
	}
	fs := r.wso.m.FS
	r.goOwned(func() {
		res := workspace.NativeRead(fs, s.Request)
		stop()
		finish(res)
	})
}

// What asks whether the workspace is busy: the WS-24 mutants get one of them wrong.
type busyFor int

const (
	busyOther    busyFor = iota // execution_start, runtime_prepare
	busyPrepare                 // an execution (not read-only) execution_prepare
	busyReadOnly                // a read-only execution_prepare
	busyPrompt                  // prompt_request
)

// workspaceBusyLocked: a write or an export holds the Environment, so execution and
// runtime_prepare are resource_unavailable (§4.3, WS-24).
func (r *router) workspaceBusyLocked(what busyFor) bool {
	m := &r.wso.m
	if exclusionOutlivesWriteAD(r, m.Writing()) && (what == busyPrepare || what == busyReadOnly) {
		return true
	}
	if !m.Busy() {
		return false
	}
	switch {
	case what == busyPrepare && m.WriteReceiving() && mutation.On(mutation.ExecutionDuringWrite),
		what == busyReadOnly && m.WriteReceiving() && mutation.On(mutation.WSReadOnlyPrepareDuringWrite),
		what == busyPrompt && m.WriteReceiving() && mutation.On(mutation.WSPromptDuringWrite),
		what == busyPrepare && m.WriteUnconfirmed() && mutation.On(mutation.WSExecutionBesideUnconfirmedWrite),
		what == busyPrepare && m.Exporting() && mutation.On(mutation.ADExportAdmitsPrepare),
		what == busyPrepare && m.Writing() && mutation.On(mutation.ADWriteAdmitsPrepare),
		what == busyOther && m.Exporting() && mutation.On(mutation.ADExportAdmitsStart):
		return false
	}
	return true
}

// wsReleasedLocked: an execution_release of handle is about to be applied.
func (r *router) wsReleasedLocked(g *grant) {
	if g.rec.ReadOnly && r.wso.m.ReadsInFlight() > 0 && mutation.On(mutation.WSReadDroppedOnRelease) {
		r.wso.m.DropReads("handle:" + g.rec.Handle)
	}
}

// wsHost answers the machine's questions from the admission side, under router.mu.
type wsHost struct {
	r   *router
	now time.Time
}

func (h wsHost) Target(handle, runID string) workspace.Target {
	if handle != "" {
		g := h.r.byHandle[handle]
		if g == nil {
			return workspace.Target{}
		}
		t := workspace.Target{Owner: "handle:" + handle, ReadOnly: g.rec.ReadOnly, EnvironmentID: environmentOf(&g.cfg),
			Open: g.rec.State == admission.Ready && h.now.Before(g.rec.ExpiresAt)}
		switch {
		case g.rec.State == admission.Expired || (g.rec.State == admission.Ready && !t.Open):
			t.Closed = workspace.ClosedExpired
		case !t.Open:
			t.Closed = workspace.ClosedNotReady
		}
		return t
	}
	rn := h.r.runs[runID]
	if rn == nil || rn.doneOut.Load() {
		return workspace.Target{}
	}
	return workspace.Target{Owner: "run:" + runID, Open: true, EnvironmentID: rn.environmentID}
}

func (h wsHost) WriteBlocked(environmentID, sessionID string) string {
	r := h.r
	switch {
	case r.tr.m.Busy() && !mutation.On(mutation.WSWriteBeginDuringTransfer):
		return "a runtime_prepare transfer"
	case len(r.runs) > 0 && !mutation.On(mutation.WSWriteBeginDuringRun):
		return "a Run"
	}
	for _, e := range r.executors {
		switch e.state {
		case execClosed:
		case execRunning:
			if !mutation.On(mutation.WSWriteBeginDuringRun) {
				return "an Executor running a Turn"
			}
		case execIdle:
			if !mutation.On(mutation.WSWriteBeginBesideIdleExecutor) {
				return "an idle Executor retained for its Session"
			}
		case execClosing, execInvalid:
			if !mutation.On(mutation.WSWriteBeginBesideBusyExecutor) {
				return "an Executor closing or whose cleanup is unconfirmed"
			}
		default: // preparing, admitted: an execution preparation holds it
			if !mutation.On(mutation.WriteBeginWhileBusy) {
				return "an Executor held by a preparation"
			}
		}
	}
	for _, g := range r.records {
		if g.rec.Owned() && !mutation.On(mutation.WriteBeginWhileBusy) {
			return "an owned preparation"
		}
	}
	if r.fencedLocked() && !mutation.On(mutation.SUWriteAdmitted) {
		return "a suspension (SU-06)"
	}
	env, session := r.d.bind.differs(environmentID, sessionID)
	switch {
	case env && !mutation.On(mutation.WSWriteForeignEnvironmentAccepted):
		return "another Environment binding"
	case session && !mutation.On(mutation.WSWriteForeignSessionAccepted):
		return "another Session binding"
	}
	return ""
}

// differs reports, for a bound daemon, whether envID and session differ from its binding.
func (b *binding) differs(envID, session string) (env, sess bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.environment == "" {
		return false, false
	}
	return b.environment != envID, b.session != session
}

func environmentOf(cfg *proto.PromptRequestPayload) string {
	if cfg.LocalEnvironment == nil {
		return ""
	}
	return cfg.LocalEnvironment.ID
}

// The contract Harness scripts native workspace behaviour by path (docs/contract-harness.md §8):
// names under ScriptDir never reach the disk.
const (
	ScriptDir         = ".contract/"
	scriptHold        = ScriptDir + "hold"
	scriptUnconfirmed = ScriptDir + "unconfirmed"
	scriptUnsupported = ScriptDir + "unsupported"
	scriptDenied      = ScriptDir + "denied"
	// scriptExportFails is a real file (a write puts it there) that the archiver cannot read.
	scriptExportFails = ScriptDir + "export_fails"
)

// scriptedFS is the workspace with the contract Harness's scripted paths.
type scriptedFS struct{ *workspace.Dir }

// held: a scripted byte read whose native side never returns.
func held(fs workspace.FS, req proto.WorkspaceReadPayload) bool {
	_, ok := fs.(scriptedFS)
	return ok && req.Operation == proto.ReadBytes && req.Path == scriptHold
}

func (s scriptedFS) ReadFile(p string, max int) ([]byte, bool, error) {
	switch p {
	case scriptUnconfirmed:
		return nil, false, errScripted
	case scriptUnsupported:
		return nil, false, workspace.ErrUnsupported
	case scriptDenied:
		return nil, false, workspace.ErrPermission
	}
	return s.Dir.ReadFile(p, max)
}

func (s scriptedFS) List(p string, max int) ([]workspace.Entry, bool, error) {
	switch p {
	case scriptUnconfirmed:
		return nil, false, errScripted
	case scriptUnsupported:
		return nil, false, workspace.ErrUnsupported
	case scriptDenied:
		return nil, false, workspace.ErrPermission
	}
	return s.Dir.List(p, max)
}

// Open is the archiver's read of a file: the file at scriptExportFails is on disk, but reading it
// for an export is a native failure (export_failed).
func (s scriptedFS) Open(p string) (io.ReadCloser, int64, error) {
	if p == scriptExportFails {
		return nil, 0, errExportScripted
	}
	return s.Dir.Open(p)
}

func (s scriptedFS) WriteFile(p string, data []byte) error {
	if p == scriptUnconfirmed {
		return errScripted // nothing is installed; the installer cannot say so
	}
	return s.Dir.WriteFile(p, data)
}

type scriptError struct{}

func (scriptError) Error() string { return "scripted: the native outcome is unknown" }

var errScripted error = scriptError{}

// errExportScripted is the archiver's scripted native failure.
var errExportScripted = errors.New("scripted: the native archiver cannot read " + scriptExportFails)
