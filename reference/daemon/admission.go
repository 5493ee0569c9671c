package daemon

import (
	"context"
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// grant is one admission the daemon granted: its protocol record, which only package admission
// changes, and what the daemon needs to carry out the record's effects.
type grant struct {
	reqID string
	cfg   proto.PromptRequestPayload
	exec  *executor
	rec   admission.Record

	stopExpiry  func()
	cancelSetup context.CancelFunc
	startTrace  string // the trace of the latest execution_start, which the Run it opens carries
}

// prepare handles execution_prepare: the rules of protocol-facts.md §4.3, in the table's order.
func (r *router) prepare(env proto.Envelope) {
	p, err := proto.Decode[proto.ExecutionPreparePayload](env)
	p, err = laxFunctionTools(env, p, err)
	p, err = r.laxPrepareShapeAD(env, p, err)
	if err != nil && mutation.On(mutation.KindBeforeMCPOrigin) {
		var loose proto.ExecutionPreparePayload
		if json.Unmarshal(env.Payload, &loose) == nil {
			if _, ok := r.harness(loose.Configuration.AgentKind); !ok {
				r.reject(env.ID, proto.OperationPrepare, proto.CodeResourceUnavailable)
				return
			}
		}
	}
	if err != nil || (env.ID == "" && !mutation.On(mutation.ADBlankPrepareIDAdmitted)) {
		r.d.log.Warn("execution_prepare rejected", "err", err)
		if mutation.On(mutation.InvalidPrepareUnanswered) {
			return
		}
		r.reject(env.ID, proto.OperationPrepare, proto.CodeInvalidRequest)
		return
	}
	hash := payloadHash(env.Payload)
	retiredHandle := ""

	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return
	}
	if old := r.records[env.ID]; old != nil && !mutation.On(mutation.DuplicatePrepareNewHandle) {
		if mutation.On(mutation.PrepareConflictRepublishes) ||
			(mutation.On(mutation.ADPreparingConflictRepublishes) && old.rec.State == admission.Preparing) ||
			(mutation.On(mutation.ADStartedConflictRepublishes) && (old.rec.State == admission.Starting || old.rec.State == admission.Started)) {
			hash = old.rec.PrepareHash
		}
		if mutation.On(mutation.ADRepeatOfStartedConflicts) && (old.rec.State == admission.Starting || old.rec.State == admission.Started) {
			hash = "a-different-prepare"
		}
		if mutation.On(mutation.ADRetryExtendsDeadline) && old.rec.Owned() && old.rec.State != admission.Starting && hash == old.rec.PrepareHash {
			old.rec.ExpiresAt = r.d.cfg.Clock.Now().Add(r.d.cfg.AdmissionExpiry).Truncate(time.Millisecond)
			r.goAfter(r.carryOutLocked(old, []admission.Effect{admission.ArmExpiry{At: old.rec.ExpiresAt}}))
		}
		if old.rec.Retired() {
			retiredHandle = old.rec.Handle
		}
		if mutation.On(mutation.ADRepeatReadyBumpsRevision) && old.rec.State == admission.Ready && hash == old.rec.PrepareHash {
			old.rec.Revision++
		}
		if mutation.On(mutation.ADRepeatGrantsSecondHandle) && old.rec.State == admission.Preparing && hash == old.rec.PrepareHash {
			s := old.rec.Status()
			s.Handle = newID("handle-")
			r.byHandle[s.Handle] = old
			r.goAfter(r.carryOutLocked(old, []admission.Effect{admission.Publish{Status: s}}))
		}
		if mutation.On(mutation.ADRepeatPreparingSetsUpAgain) && old.rec.State == admission.Preparing && hash == old.rec.PrepareHash {
			e := old.exec
			r.goOwned(func() { _, _ = e.h.NewExecutor(r.ctx, &old.cfg) })
		}
		r.goAfter(r.applyLocked(old, admission.PrepareRepeated{Hash: hash}))
		if r.records[env.ID] != nil {
			return // a live request: its status was re-published, or the conflict refused
		}
		// A retired request ID was forgotten: it allocates a fresh handle.
	}
	if code := r.admitLocked(p); code != "" {
		r.reject(env.ID, proto.OperationPrepare, code)
		if code == proto.CodeInvalidConfiguration && mutation.On(mutation.ADInvalidConfigurationThenPrep) {
			r.out.enqueue(r.sentStatus(proto.MustEnvelope(proto.TypePreparationStatus, env.ID, &proto.PreparationStatusPayload{
				State: proto.StatePreparing, Revision: 1, Handle: newID("handle-"), ExecutorID: newID("executor-"),
				ExpiresAt: r.d.cfg.Clock.Now().Add(r.d.cfg.AdmissionExpiry).UnixMilli()})))
		}
		return
	}
	cfg := p.Configuration
	if cfg.WorkspaceReadOnly {
		r.grantReadOnlyLocked(env.ID, cfg, hash)
		return
	}
	g := &grant{reqID: env.ID, cfg: cfg}
	ev := admission.PrepareAccepted{Now: r.d.cfg.Clock.Now(), Expiry: r.d.cfg.AdmissionExpiry, Handle: newID("handle-"),
		ReadOnly: cfg.WorkspaceReadOnly, Hash: hash}
	if e := r.byStateKeyLocked(cfg.AgentStateKey); e != nil && !mutation.On(mutation.IdleExecutorNotReused) && !idleExpiredAD(r, e) {
		g.exec, ev.Reused = e, true // a healthy idle Executor of the same configuration, without native setup
	} else {
		h, _ := r.harness(cfg.AgentKind)
		g.exec = &executor{id: newID("executor-"), session: p.SessionID, stateKey: cfg.AgentStateKey, fingerprint: fingerprint(cfg),
			h: h, caps: h.Capabilities(), state: execPreparing}
		r.executors[g.exec.id] = g.exec
	}
	ev.ExecutorID = g.exec.id
	if retiredHandle != "" && mutation.On(mutation.ADRetiredRequestKeepsHandle) {
		ev.Handle = retiredHandle
	}
	r.records[g.reqID], r.byHandle[ev.Handle] = g, g
	cnRememberHandle(r.d, r.conn, ev.Handle)
	r.order = append(r.order, g)
	r.goAfter(r.applyLocked(g, ev))
}

// admitLocked applies the admission rules and returns the rejection code, or "" to admit.
func (r *router) admitLocked(p *proto.ExecutionPreparePayload) string {
	cfg := &p.Configuration
	if err := laxPrepareAD(p).CheckPrepareConfiguration(); err != nil && !mutation.On(mutation.InvalidConfigurationAccepted) {
		r.d.log.Info("execution_prepare: invalid configuration", "rule", err)
		return proto.CodeInvalidConfiguration
	}
	h, ok := r.harness(cfg.AgentKind)
	if !ok || (!h.Available() && !mutation.On(mutation.ADUnavailableKindAdmitted)) {
		if mutation.On(mutation.UnknownKindWrongCode) {
			return proto.CodeUnsupportedPreparation
		}
		return proto.CodeResourceUnavailable
	}
	caps := h.Capabilities()
	if !caps.Preparation.Supported() && !mutation.On(mutation.PreparationUnsupportedAccepted) {
		return proto.CodeUnsupportedPreparation
	}
	if cfg.WorkspaceReadOnly {
		return r.admitReadOnlyLocked(p, caps)
	}
	if code := r.checkEnvironment(cfg, ungatedTools(cfg, caps, false), false); code != "" {
		return code
	}
	if r.prepareBusyLocked() || r.workspaceBusyLocked(busyPrepare) || (r.fencedLocked() && !mutation.On(mutation.SuspendAdmitsWork)) {
		return proto.CodeResourceUnavailable // a suspension, a runtime_prepare transfer, a write or an export holds the slot (AD-14)
	}
	if len(r.records) >= recordLimitAD() && !r.pruneLocked() {
		return proto.CodePreparationCapacity
	}
	existing := r.byStateKeyLocked(cfg.AgentStateKey)
	if existing != nil && existing.session != p.SessionID {
		return proto.CodeSessionBindingConflict
	}
	active, total, _ := r.countsLocked()
	if active >= proto.PreparationCapacity-offByOneAD(mutation.ADActiveLimitOffByOne) && !mutation.On(mutation.IgnoreAdmissionLimit) {
		return proto.CodePreparationCapacity
	}
	if existing != nil && total >= proto.ExecutorCapacity && mutation.On(mutation.ADTotalBoundOnReuse) {
		return proto.CodeExecutorCapacity
	}
	if existing != nil {
		native := ""
		if existing.native != nil {
			native = existing.native.NativeSessionID()
		}
		switch {
		case existing.fingerprint != fingerprint(*cfg) && !mutation.On(mutation.ConfigurationConflictIgnored):
			return proto.CodeConfigurationConflict
		case existing.state == execInvalid && mutation.On(mutation.ADInvalidExecutorBusy):
			return proto.CodeResourceUnavailable
		case existing.state == execInvalid:
			return proto.CodeExecutorCleanupUnconfirmed
		case existing.busy() && !mutation.On(mutation.BusyExecutorAccepted):
			return proto.CodeResourceUnavailable
		case cfg.AgentSessionID != "" && (cfg.AgentSessionID != native || mutation.On(mutation.ADSameNativeSessionConflicts)) &&
			!mutation.On(mutation.NativeSessionConflictIgnored):
			return proto.CodeNativeSessionConflict
		case cfg.RequireExistingNativeSession && (native == "" || mutation.On(mutation.ADExistingHistoryAlwaysMissing)) &&
			!mutation.On(mutation.HistoryUnavailableIgnored) && !mutation.On(mutation.ADExistingHistoryUnchecked):
			return proto.CodeHistoryUnavailable
		}
		return ""
	}
	if cfg.RequireExistingNativeSession && !mutation.On(mutation.HistoryUnavailableIgnored) {
		return proto.CodeHistoryUnavailable
	}
	if total >= proto.ExecutorCapacity-offByOneAD(mutation.ADExecutorLimitOffByOne) && !mutation.On(mutation.ExecutorCapacityUnchecked) {
		return proto.CodeExecutorCapacity
	}
	return ""
}

// checkEnvironment rejects an Environment binding the Runtime cannot apply or does not support.
func (r *router) checkEnvironment(cfg *proto.PromptRequestPayload, caps proto.AgentKindCapabilities, direct bool) string {
	switch {
	case cfg.LocalEnvironment != nil && !caps.LocalEnvironment.Supported() && !mutation.On(mutation.LocalEnvironmentUnsupportedOK):
		return proto.CodeUnsupportedConfiguration
	case cfg.LocalEnvironment != nil && !r.d.bindingApplies(cfg.LocalEnvironment) && !mutation.On(mutation.LocalEnvironmentBindingUnchecked) &&
		!(direct && mutation.On(mutation.RSForeignBindingRunsDirect)):
		return proto.CodeInvalidConfiguration
	case cfg.DisableExecutionEnvironment && !caps.EnvironmentNone.Supported() && !mutation.On(mutation.ADEnvironmentNoneUnchecked):
		return proto.CodeUnsupportedConfiguration
	case cfg.LocalEnvironment == nil && !cfg.DisableExecutionEnvironment && !mutation.On(mutation.NoEnvironmentBindingAccepted) &&
		!(direct && mutation.On(mutation.RSNoBindingRunsDirect)):
		return proto.CodeInvalidConfiguration // no Environment binding at all
	case len(cfg.FunctionTools) > 0 && !caps.FunctionTools.Supported() && !(direct && mutation.On(mutation.RSFunctionToolsUncheckedDirect)):
		return proto.CodeUnsupportedConfiguration
	case cfg.ToolSearch && !caps.ToolSearch.Supported():
		return proto.CodeUnsupportedConfiguration
	case len(cfg.MCPHTTPServers) > 0 && !caps.MCPHTTPTools.Supported() && !mutation.On(mutation.ADMCPWithoutCapability):
		return proto.CodeUnsupportedConfiguration
	}
	if direct && mutation.On(mutation.RSOptionsCheckedAfterSetup) {
		return "" // checked only after native setup (optionsAfterSetup)
	}
	return checkOptions(cfg, caps)
}

// checkOptions gates the configuration's optional opt-ins on the kind's declaration, before any
// native call (runtime-protocol "Capability declarations"; protocol-facts §3.1, §4.4.1, §4.18):
// an option the Harness does not declare is refused, never silently dropped.
func checkOptions(cfg *proto.PromptRequestPayload, caps proto.AgentKindCapabilities) string {
	ec := cfg.ExecutionControls
	switch {
	case ec != nil && !caps.ExecutionControls.Supported() && !mutation.On(mutation.ExecutionControlsWithoutCapability):
		return proto.CodeUnsupportedConfiguration
	case ec != nil && ec.OutputFormat != nil && !caps.StructuredOutput.Supported() && !mutation.On(mutation.JSONSchemaWithoutStructuredOutput):
		return proto.CodeUnsupportedConfiguration // json_schema output needs structured_output
	case ec != nil && ec.DisableProgrammaticToolCalling && !caps.ProgrammaticToolCallingDisable.Supported() &&
		!mutation.On(mutation.ProgrammaticDisableWithoutCapability):
		return proto.CodeUnsupportedConfiguration
	case cfg.Input.HasImage() && !caps.MessageImages.Supported() && !mutation.On(mutation.PromptImagesWithoutCapability):
		return proto.CodeUnsupportedConfiguration // AD-69: images need message_images (prompt_request input)
	}
	return ""
}

// pruneLocked drops the oldest admission records that no longer own anything; it reports whether
// there is room for one more.
func (r *router) pruneLocked() bool {
	if mutation.On(mutation.AdmissionRecordsNeverPruned) {
		return false
	}
	for i := 0; i < len(r.order) && len(r.records) >= recordLimitAD(); {
		if g := r.order[i]; mutation.On(mutation.ADOwnedRecordPruned) || (!g.rec.Owned() && (g.rec.RunID == "" || r.runs[g.rec.RunID] == nil)) {
			r.forgetLocked(g)
			continue
		}
		i++
	}
	return len(r.records) < recordLimitAD()
}

func (r *router) forgetLocked(g *grant) {
	delete(r.records, g.reqID)
	delete(r.byHandle, g.rec.Handle)
	for i, o := range r.order {
		if o == g {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// setup runs native Executor setup outside the receive loop.
func (r *router) setup(ctx context.Context, g *grant, e *executor) {
	native, err := e.h.NewExecutor(ctx, &g.cfg)
	var ev admission.Event = admission.SetupSucceeded{}
	if err != nil {
		r.d.log.Info("native setup failed", "executor", e.id, "err", err)
		ev = admission.SetupFailed{}
	}
	r.mu.Lock()
	e.native = native
	if r.publishLateReadyAD(g) {
		r.mu.Unlock()
		return
	}
	after := r.applyLocked(g, ev)
	r.mu.Unlock()
	after.run()
}

// expire is the expiry timer's event: the deadline is the record's, the instant is the clock's.
func (r *router) expire(g *grant) {
	r.mu.Lock()
	now := r.d.cfg.Clock.Now()
	if mutation.On(mutation.ADExpiryEarly) {
		now = now.Add(time.Minute)
	}
	after := r.applyLocked(g, admission.ExpiryFired{Now: now})
	r.mu.Unlock()
	after.run()
}

// release handles execution_release: it abandons only that admission. After the admission passed
// to a Run it re-publishes the current status and cancels nothing.
func (r *router) release(env proto.Envelope) {
	p, err := proto.Decode[proto.ExecutionReleasePayload](env)
	if err != nil && mutation.On(mutation.ADReleaseByRequestID) {
		var loose proto.ExecutionReleasePayload
		if json.Unmarshal(env.Payload, &loose) == nil && loose.Handle == "" {
			p, err = &loose, nil
		}
	}
	if err != nil {
		if mutation.On(mutation.InvalidReleaseUnanswered) {
			return
		}
		r.reject(env.ID, proto.OperationRelease, releaseCodeAD(env))
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.byHandle[p.Handle]
	if p.Handle == "" && mutation.On(mutation.ADReleaseByRequestID) {
		g = r.records[env.ID]
	}
	if g == nil || (g.reqID != env.ID && !mutation.On(mutation.ADReleaseOtherRequestID)) {
		if mutation.On(mutation.UnknownReleaseSilent) {
			return
		}
		r.reject(env.ID, proto.OperationRelease, proto.CodeUnknownPreparation)
		return
	}
	r.wsReleasedLocked(g)
	if (mutation.On(mutation.ADReleasePreparingRepublishes) && g.rec.State == admission.Preparing) ||
		(mutation.On(mutation.ADReadOnlyReleaseRepublishes) && g.rec.ReadOnly && g.rec.State == admission.Ready) {
		r.goAfter(r.carryOutLocked(g, []admission.Effect{admission.Publish{Status: g.rec.Status()}}))
		return
	}
	if mutation.On(mutation.ADReleaseStartedEnds) && g.rec.State == admission.Started {
		s := g.rec.Status()
		s.State, s.Revision = proto.StateReleased, s.Revision+1
		r.goAfter(r.carryOutLocked(g, []admission.Effect{admission.Publish{Status: s}}))
		return
	}
	if mutation.On(mutation.ReleaseAfterStartCancelsRun) && (g.rec.State == admission.Starting || g.rec.State == admission.Started) {
		if rn := r.runs[g.rec.RunID]; rn != nil {
			r.goOwned(func() { _, _ = rn.cancelNative(r.ctx) })
		}
	}
	r.goAfter(r.applyLocked(g, admission.ReleaseRequested{}))
}
