package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// admission is one execution admission: a connection-local handle reserving an Executor for one
// Turn. Revisions order its observations; a rejection never changes them.
type admission struct {
	reqID, handle string
	session       string
	hash          string // of the execution_prepare payload: an identical duplicate re-publishes
	cfg           proto.PromptRequestPayload
	exec          *executor
	reused        bool

	state     string
	revision  uint64
	expiresAt time.Time
	runID     string
	errCode   string
	startHash string

	stopExpiry  func()
	cancelSetup context.CancelFunc
}

// retired reports whether the request ID may allocate a fresh handle.
func (a *admission) retired() bool {
	return a.state == proto.StateReleased || a.state == proto.StateExpired || a.state == proto.StateFailed
}

// owned reports whether the admission still holds resources (it is not pruned while owned).
func (a *admission) owned() bool {
	return a.state == proto.StatePreparing || a.state == proto.StateReady || a.state == proto.StateStarting
}

func (a *admission) status() *proto.PreparationStatusPayload {
	s := &proto.PreparationStatusPayload{Handle: a.handle, Revision: a.revision, State: a.state,
		ExpiresAt: a.expiresAt.UnixMilli(), RunID: a.runID, ErrorCode: a.errCode, Reused: a.reused && a.state == proto.StateReady && a.revision == 1}
	if a.exec != nil {
		s.ExecutorID = a.exec.id
	}
	return s
}

// advanceLocked moves the admission to a new state at the next revision.
func (a *admission) advanceLocked(state, code string) {
	a.revision++
	a.state, a.errCode = state, code
	if a.retired() && a.stopExpiry != nil {
		a.stopExpiry()
	}
}

// abandon stops the admission's timers and native setup when the connection ends.
func (a *admission) abandon() {
	if a.stopExpiry != nil {
		a.stopExpiry()
	}
	if a.cancelSetup != nil {
		a.cancelSetup()
	}
	if a.owned() {
		a.state, a.errCode = proto.StateFailed, proto.CodeConnectionClosed // local: never sent
	}
}

func payloadHash(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		buf.Reset()
		buf.Write(raw)
	}
	// Canonical member order: decode and re-encode (maps marshal sorted).
	var v any
	if json.Unmarshal(buf.Bytes(), &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			buf.Reset()
			buf.Write(b)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

// publishLocked queues the admission's current status; the caller waits for the write outside the
// lock with awaitStatus. Queuing under the lock keeps revisions in order on the wire.
func (r *router) publishLocked(a *admission) <-chan error {
	return r.out.enqueue(proto.MustEnvelope(proto.TypePreparationStatus, a.reqID, a.status()))
}

// awaitStatus waits for a status write. A status that cannot be delivered abandons the admission
// (failed/status_delivery_failed, local: it may never reach Core).
func (r *router) awaitStatus(a *admission, res <-chan error) {
	if err := <-res; err == nil {
		return
	}
	r.mu.Lock()
	release := false
	if a.owned() {
		a.advanceLocked(proto.StateFailed, proto.CodeStatusDeliveryFailed)
		release = a.exec != nil && a.exec.state == execAdmitted
		if release {
			r.idleLocked(a.exec)
		}
	}
	r.mu.Unlock()
}

// reject answers one control operation without touching any handle's revision.
func (r *router) reject(reqID, operation, code string, a *admission) {
	s := &proto.PreparationStatusPayload{State: proto.StateRejected, Operation: operation, ErrorCode: code}
	if a != nil {
		s.Handle = a.handle
		if a.exec != nil {
			s.ExecutorID = a.exec.id
		}
	}
	r.out.enqueue(proto.MustEnvelope(proto.TypePreparationStatus, reqID, s))
}

// prepare handles execution_prepare: the rules of protocol-facts.md §4.3, in the table's order.
func (r *router) prepare(env proto.Envelope) {
	p, err := proto.Decode[proto.ExecutionPreparePayload](env)
	if err != nil || env.ID == "" {
		r.d.log.Warn("execution_prepare rejected", "err", err)
		r.reject(env.ID, proto.OperationPrepare, proto.CodeInvalidRequest, nil)
		return
	}
	hash := payloadHash(env.Payload)

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return
	}
	if old := r.records[env.ID]; old != nil {
		if !old.retired() {
			if old.hash == hash {
				res := r.publishLocked(old)
				r.goOwned(func() { r.awaitStatus(old, res) })
			} else {
				r.reject(env.ID, proto.OperationPrepare, proto.CodeRequestConflict, nil)
			}
			return
		}
		r.forgetLocked(old) // a retired request ID allocates a fresh handle
	}
	code := r.admitLocked(p)
	if code != "" {
		r.reject(env.ID, proto.OperationPrepare, code, nil)
		return
	}
	cfg := p.Configuration
	h, _ := r.harness(cfg.AgentKind)
	now := r.d.cfg.Clock.Now()
	a := &admission{reqID: env.ID, handle: newID("handle-"), session: p.SessionID, hash: hash, cfg: cfg,
		expiresAt: now.Add(r.d.cfg.AdmissionExpiry).Truncate(time.Millisecond)}
	r.records[a.reqID], r.byHandle[a.handle] = a, a
	r.order = append(r.order, a)
	a.stopExpiry = r.afterFunc(r.d.cfg.AdmissionExpiry, func() { r.expire(a) })

	if e := r.byStateKeyLocked(cfg.AgentStateKey); e != nil {
		// A healthy idle Executor of the same configuration is reused without native setup.
		e.stopIdleLocked()
		e.state = execAdmitted
		a.exec, a.reused = e, true
		a.advanceLocked(proto.StateReady, "")
		res := r.publishLocked(a)
		r.goOwned(func() { r.awaitStatus(a, res) })
		return
	}
	e := &executor{id: newID("executor-"), session: p.SessionID, stateKey: cfg.AgentStateKey, fingerprint: fingerprint(cfg),
		h: h, caps: h.Capabilities(), state: execPreparing}
	r.executors[e.id] = e
	a.exec = e
	a.advanceLocked(proto.StatePreparing, "")
	res := r.publishLocked(a)
	ctx, cancel := context.WithCancel(r.ctx)
	a.cancelSetup = cancel
	r.goOwned(func() {
		r.awaitStatus(a, res)
		r.setup(ctx, a, e)
	})
}

// admitLocked applies the admission rules and returns the rejection code, or "" to admit.
func (r *router) admitLocked(p *proto.ExecutionPreparePayload) string {
	cfg := &p.Configuration
	if err := p.CheckPrepareConfiguration(); err != nil {
		r.d.log.Info("execution_prepare: invalid configuration", "rule", err)
		return proto.CodeInvalidConfiguration
	}
	h, ok := r.harness(cfg.AgentKind)
	if !ok || !h.Available() {
		return proto.CodeResourceUnavailable
	}
	caps := h.Capabilities()
	if !caps.Preparation.Supported() {
		return proto.CodeUnsupportedPreparation
	}
	if cfg.WorkspaceReadOnly {
		if !caps.WorkspaceReadPreparation.Supported() {
			return proto.CodeUnsupportedReadPreparation
		}
		// The read-only profile arrives with the workspace family.
		return proto.CodeUnsupportedReadPreparation
	}
	if code := r.checkEnvironment(cfg, caps); code != "" {
		return code
	}
	if len(r.records) >= proto.AdmissionRecords && !r.pruneLocked() {
		return proto.CodePreparationCapacity
	}
	existing := r.byStateKeyLocked(cfg.AgentStateKey)
	if existing != nil && existing.session != p.SessionID {
		return proto.CodeSessionBindingConflict
	}
	active, total, _ := r.countsLocked()
	if active >= proto.PreparationCapacity {
		return proto.CodePreparationCapacity
	}
	if existing != nil {
		native := ""
		if existing.native != nil {
			native = existing.native.NativeSessionID()
		}
		switch {
		case existing.fingerprint != fingerprint(*cfg):
			return proto.CodeConfigurationConflict
		case existing.state == execInvalid:
			return proto.CodeExecutorCleanupUnconfirmed
		case existing.busy():
			return proto.CodeResourceUnavailable
		case cfg.AgentSessionID != "" && cfg.AgentSessionID != native:
			return proto.CodeNativeSessionConflict
		case cfg.RequireExistingNativeSession && native == "":
			return proto.CodeHistoryUnavailable
		}
		return ""
	}
	if cfg.RequireExistingNativeSession {
		return proto.CodeHistoryUnavailable
	}
	if total >= proto.ExecutorCapacity {
		return proto.CodeExecutorCapacity
	}
	return ""
}

// checkEnvironment rejects an Environment binding the Runtime cannot apply or does not support.
func (r *router) checkEnvironment(cfg *proto.PromptRequestPayload, caps proto.AgentKindCapabilities) string {
	switch {
	case cfg.LocalEnvironment != nil && !caps.LocalEnvironment.Supported():
		return proto.CodeUnsupportedConfiguration
	case cfg.LocalEnvironment != nil && cfg.LocalEnvironment.WorkspaceDirectory != r.d.cfg.WorkspaceDirectory:
		return proto.CodeInvalidConfiguration
	case cfg.DisableExecutionEnvironment && !caps.EnvironmentNone.Supported():
		return proto.CodeUnsupportedConfiguration
	case cfg.LocalEnvironment == nil && !cfg.DisableExecutionEnvironment:
		return proto.CodeInvalidConfiguration // no Environment binding at all
	case len(cfg.FunctionTools) > 0 && !caps.FunctionTools.Supported():
		return proto.CodeUnsupportedConfiguration
	case cfg.ToolSearch && !caps.ToolSearch.Supported():
		return proto.CodeUnsupportedConfiguration
	case cfg.ExecutionControls != nil && !caps.ExecutionControls.Supported():
		return proto.CodeUnsupportedConfiguration
	case len(cfg.MCPHTTPServers) > 0 && !caps.MCPHTTPTools.Supported():
		return proto.CodeUnsupportedConfiguration
	}
	return ""
}

// pruneLocked drops the oldest admission records that no longer own anything; it reports whether
// there is room for one more.
func (r *router) pruneLocked() bool {
	for i := 0; i < len(r.order) && len(r.records) >= proto.AdmissionRecords; {
		if a := r.order[i]; !a.owned() && (a.runID == "" || r.runs[a.runID] == nil) {
			r.forgetLocked(a)
			continue
		}
		i++
	}
	return len(r.records) < proto.AdmissionRecords
}

func (r *router) forgetLocked(a *admission) {
	delete(r.records, a.reqID)
	delete(r.byHandle, a.handle)
	for i, o := range r.order {
		if o == a {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// setup runs native Executor setup outside the receive loop.
func (r *router) setup(ctx context.Context, a *admission, e *executor) {
	native, err := e.h.NewExecutor(ctx, &a.cfg)
	r.mu.Lock()
	e.native = native
	if a.state != proto.StatePreparing {
		// Released, expired or abandoned while setup ran: the Executor is not wanted.
		r.mu.Unlock()
		r.closeExecutor(e)
		return
	}
	if err != nil {
		r.d.log.Info("native setup failed", "executor", e.id, "err", err)
		a.advanceLocked(proto.StateFailed, proto.CodePreparationFailed)
		res := r.publishLocked(a)
		r.mu.Unlock()
		r.awaitStatus(a, res)
		if cerr := r.closeExecutor(e); cerr != nil {
			r.mu.Lock()
			a.advanceLocked(proto.StateFailed, proto.CodeExecutorCleanupUnconfirmed)
			res := r.publishLocked(a)
			r.mu.Unlock()
			r.awaitStatus(a, res)
		}
		return
	}
	e.state = execAdmitted
	a.advanceLocked(proto.StateReady, "")
	res := r.publishLocked(a)
	r.mu.Unlock()
	r.awaitStatus(a, res)
}

// expire publishes expired when the admission's fixed deadline passes before start. The healthy
// Executor goes idle; it is not closed.
func (r *router) expire(a *admission) {
	r.mu.Lock()
	if a.state != proto.StatePreparing && a.state != proto.StateReady {
		r.mu.Unlock()
		return
	}
	wasPreparing := a.state == proto.StatePreparing
	a.advanceLocked(proto.StateExpired, "")
	res := r.publishLocked(a)
	if wasPreparing && a.cancelSetup != nil {
		a.cancelSetup()
	} else if a.exec != nil && a.exec.state == execAdmitted {
		r.idleLocked(a.exec)
	}
	r.mu.Unlock()
	r.awaitStatus(a, res)
}

// release handles execution_release: it abandons only that admission. After the admission passed
// to a Run it re-publishes the current status and cancels nothing.
func (r *router) release(env proto.Envelope) {
	p, err := proto.Decode[proto.ExecutionReleasePayload](env)
	if err != nil {
		r.reject(env.ID, proto.OperationRelease, proto.CodeInvalidRelease, nil)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.byHandle[p.Handle]
	if a == nil || a.reqID != env.ID {
		r.reject(env.ID, proto.OperationRelease, proto.CodeUnknownPreparation, nil)
		return
	}
	switch a.state {
	case proto.StatePreparing:
		a.advanceLocked(proto.StateReleased, "")
		if a.cancelSetup != nil {
			a.cancelSetup() // setup closes the Executor when it returns
		}
	case proto.StateReady:
		a.advanceLocked(proto.StateReleased, "")
		if a.exec != nil && a.exec.state == execAdmitted {
			r.idleLocked(a.exec)
		}
	}
	res := r.publishLocked(a)
	r.goOwned(func() { r.awaitStatus(a, res) })
}
