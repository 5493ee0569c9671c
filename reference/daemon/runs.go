package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/input"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// run is one execution attempt: its Turn's events go out in order under its Run ID, followed by
// exactly one done.
type run struct {
	id       string
	exec     *executor
	turn     harness.Turn
	started  chan struct{} // closed once turn is set (or start failed)
	finished chan struct{} // closed once done was written (or could not be)
	once     sync.Once
	// releaseFirst (release_on_completion): the Executor is released before done is forwarded.
	releaseFirst bool
	inputs       *runInputs // active input (prompt_steer)
	// environmentID is the Run's frozen Environment: workspace reads must name it.
	environmentID string
	// observeSubagents: the configuration set observe_subagent_identities (subagents.go).
	observeSubagents bool
	subagents        subagentOrder
	// observeTools: the configuration set observe_tool_observations; direct: a prompt_request
	// started the Run (no admission). Both are read only by mutants (mutants_rsca.go).
	observeTools bool
	direct       bool
	bent         atomic.Pointer[bentRun] // what a mutant remembers of the Run (mutants_rsca.go)
	// startMu guards the native start's cancellation: prompt_cancel aborts a start still running.
	startMu      sync.Mutex
	startCancel  context.CancelFunc
	startAborted bool // a cancellation came before or during the native start
	startDone    bool // the native start returned
	// ended takes the virtual clock's Hold of the wake that ended the Turn (clock.Handoff) until
	// the Run's inputs know of the end; the pump is away from it while it waits on Core.
	ended clock.Handoff
	// doneLost: the Run's done could not be written locally (CA-07).
	doneLost atomic.Bool
	// doneOut is set just before the done is written: a read Core sends once it has the done finds
	// the Run finished (WS-10.4), though the Run leaves r.runs only after afterDone.
	doneOut atomic.Bool
	// trace is what the Run's outbound frames carry: the starting request's (runTrace); span is
	// the Run's, ended by finish.
	trace string
	span  trace.Span
}

// startContext is the native start's context: cancelled at once if a cancellation came first.
func (rn *run) startContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	rn.startMu.Lock()
	defer rn.startMu.Unlock()
	rn.startCancel = cancel
	if rn.startAborted {
		cancel()
	}
	return ctx, cancel
}

// abortStart interrupts the native start if it is still running (AD-41, AD-42).
func (rn *run) abortStart() {
	rn.startMu.Lock()
	defer rn.startMu.Unlock()
	if rn.startDone || mutation.On(mutation.CancelIgnoresStart) {
		return
	}
	rn.startAborted = true
	if rn.startCancel != nil {
		rn.startCancel()
	}
}

func (rn *run) startReturned() {
	rn.startMu.Lock()
	rn.startDone = true
	rn.startMu.Unlock()
}

func newRun(id string, e *executor, requestTrace string) *run {
	return &run{id: id, exec: e, started: make(chan struct{}), finished: make(chan struct{}), inputs: newRunInputs(),
		trace: runTrace(requestTrace), span: startRunSpan(id, requestTrace)}
}

// cancelNative asks the native Turn to cancel and waits for it to settle; the outcome snapshot is
// returned for a receipt.
func (rn *run) cancelNative(ctx context.Context) (*proto.DonePayload, error) {
	select {
	case <-rn.started:
	default:
		clock.Armed(ctx) // the native start's timers must move for it to end
		select {
		case <-rn.started:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if rn.turn == nil {
		return nil, errors.New("no native turn")
	}
	return rn.turn.Cancel(ctx)
}

// start handles execution_start: a valid start transfers the admission to a Run exactly once.
func (r *router) start(env proto.Envelope) {
	p, err := proto.Decode[proto.ExecutionStartPayload](env)
	p, err = laxStartAD(env, p, err)
	if err != nil && mutation.On(mutation.StartInputUnvalidated) {
		var loose proto.ExecutionStartPayload
		if json.Unmarshal(env.Payload, &loose) == nil && loose.Handle != "" && loose.RunID != "" {
			p, err = &loose, nil
		}
	}
	if err != nil {
		r.d.log.Info("execution_start rejected", "err", err)
		if mutation.On(mutation.InvalidStartUnanswered) {
			return
		}
		r.reject(env.ID, proto.OperationStart, startCodeAD(env))
		return
	}
	hash := startHashAD(env.Payload)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return
	}
	if r.prepareBusyLocked() || r.workspaceBusyLocked(busyOther) || r.fencedLocked() {
		r.reject(env.ID, proto.OperationStart, proto.CodeResourceUnavailable) // AD-32, WS-24, SU-06
		return
	}
	g := r.byHandle[p.Handle]
	if g == nil && cnHandleRemembered(r.d, r.conn, p.Handle) {
		r.reject(env.ID, proto.OperationStart, proto.CodeResourceUnavailable)
		return
	}
	if g != nil && g.reqID != env.ID && r.records[env.ID] != nil && mutation.On(mutation.ADStartFallsBackToRequestID) {
		g = r.records[env.ID] // the old handle is not checked against the request's admission
	}
	if g == nil || (g.reqID != env.ID && !mutation.On(mutation.StartForeignRequestID)) {
		code := proto.CodeUnknownPreparation
		if g == nil && mutation.On(mutation.ADUnknownHandleWrongCode) {
			code = proto.CodeUnknownExecutor
		}
		r.reject(env.ID, proto.OperationStart, code)
		rg := r.records[env.ID]
		if g != nil && rg != nil && rg != g && mutation.On(mutation.ADRefusedStartReleasesRequest) {
			r.goAfter(r.applyLocked(rg, admission.ReleaseRequested{}))
		}
		if g != nil || rg == nil || !mutation.On(mutation.ADUnknownHandleStarts) {
			return
		}
		g = rg // the refusal is sent, but the lookup falls through to the request's admission
	}
	if g.exec != nil && p.Input.HasImage() && !g.exec.caps.MessageImages.Supported() && mutation.On(mutation.ADImageDroppedOnTextOnly) {
		p.Input = withoutImagesAD(p.Input)
	}
	if g.exec != nil && p.Input.HasImage() && !g.exec.caps.MessageImages.Supported() && !mutation.On(mutation.StartImagesWithoutCapability) {
		// AD-69: checked against the declaration the Executor was admitted with, before any
		// native call; the admission stays ready (a rejection changes no state).
		r.reject(env.ID, proto.OperationStart, proto.CodeUnsupportedConfiguration)
		return
	}
	if blankPartBesideTextAD(p.Input) {
		r.reject(env.ID, proto.OperationStart, proto.CodeInvalidStart)
		return
	}
	if (mutation.On(mutation.ADStartOnReleasedRepublishes) && g.rec.State == admission.Released) ||
		(mutation.On(mutation.ADStartOnFailedRepublishes) && g.rec.State == admission.Failed) {
		r.goAfter(r.carryOutLocked(g, []admission.Effect{admission.Publish{Status: g.rec.Status()}}))
		return
	}
	g.startTrace = env.Trace
	ev := admission.StartRequested{Now: r.d.cfg.Clock.Now(), ExecutorID: p.ExecutorID,
		RunID: p.RunID, Hash: hash, RunActive: r.runs[p.RunID] != nil, Input: p.Input}
	if rn := r.runs[p.RunID]; rn != nil && rn.direct && mutation.On(mutation.ADDirectRunNoConflict) {
		ev.RunActive = false
	}
	mutateStart(g, &ev)
	r.goAfter(r.applyLocked(g, ev))
}

// runPrepared starts the native Turn of a prepared Run and streams it.
func (r *router) runPrepared(g *grant, rn *run, input proto.MessageInput) {
	ctx, cancel := rn.startContext(r.ctx)
	defer cancel() // after the Run: a harness may tie its Turn to the start's context
	turn, err := rn.exec.native.Start(clock.WithHandoff(ctx, &rn.ended), rn.id, input)
	rn.startReturned()
	if err != nil && turn != nil {
		r.startAborted(g, rn, turn)
		return
	}
	if err != nil {
		// No Turn exists and no input was submitted: the Executor is closed, and Core may retry
		// once after executor_unavailable.
		close(rn.started)
		r.mu.Lock()
		delete(r.runs, rn.id)
		r.mu.Unlock()
		failure := admission.NativeStartFailed{Cancelled: errors.Is(err, context.Canceled)}
		if !failure.Cancelled && mutation.On(mutation.ADUnavailableExecutorKept) {
			r.mu.Lock()
			r.idleLocked(rn.exec)
			r.mu.Unlock()
		} else if !failure.Cancelled {
			failure.CleanupFailed = r.closeExecutor(rn.exec) != nil && !mutation.On(mutation.StartCleanupFailureAsUnavailable)
		}
		if mutation.On(mutation.NativeStartFailureUnanswered) {
			rn.finish()
			return
		}
		r.mu.Lock()
		after := r.applyLocked(g, failure)
		r.mu.Unlock()
		after.run()
		r.failedStartBent(rn)
		if mutation.On(mutation.ADUnavailableStartDone) {
			_ = r.sendRun(&run{trace: rn.trace}, proto.MustEnvelope(proto.TypeDone, rn.id, &proto.DonePayload{}))
		}
		rn.finish()
		return
	}
	rn.turn = turn
	rn.observeSubagents = g.cfg.ObserveSubagentIdentities && !mutation.On(mutation.SAPreparedOptInIgnored)
	rn.observeTools = g.cfg.ObserveToolObservations
	close(rn.started)
	// Output may race started: the pump begins at once.
	pumped := make(chan struct{})
	r.goOwned(func() {
		defer close(pumped)
		r.pump(rn)
	})
	r.mu.Lock()
	after := r.applyLocked(g, admission.TurnStarted{})
	r.mu.Unlock()
	after.run()
	<-pumped
}

// startAborted: cancellation aborted the native start after its Turn existed (AD-42). The Turn
// settles without emitting; the admission fails start_cancelled and started is never published.
// No done is sent: the Run never started, and the cancellation's receipt carries its outcome.
func (r *router) startAborted(g *grant, rn *run, turn harness.Turn) {
	rn.turn = turn
	close(rn.started)
	for range turn.Events() { // the aborted Turn emits nothing; wait for its settlement
	}
	var ev admission.Event = admission.StartAborted{}
	switch {
	case mutation.On(mutation.AbortedStartPublishesStarted):
		ev = admission.TurnStarted{}
	case mutation.On(mutation.AbortedStartRejected):
		ev = admission.NativeStartFailed{Cancelled: true}
	}
	r.mu.Lock()
	delete(r.runs, rn.id)
	after := r.applyLocked(g, ev)
	r.mu.Unlock()
	rn.ended.Release() // the admission knows of the settlement; its frames wait on Core
	after.run()
	rn.finish()
}

// pump writes a Turn's events in order, then exactly one done, then releases the Executor.
func (r *router) pump(rn *run) {
	defer rn.finish()
	defer rn.ended.Release()
	events := bendStream(rn, mutateEvents(rn, rn.turn.Events()))
	if mutation.On(mutation.OutputBeforeConsumerLost) {
		<-events // starting went out before a consumer existed: what the Turn emitted first is lost
	}
	muted := false // a mutant's: the Turn's later events withheld after a withheld sub-agent frame
	for ev := range events {
		if eventDropped(rn) {
			continue // a mutant closed the Run early
		}
		if isSubagentType(ev.Type) {
			if env, ok := r.subagentEnvelope(rn, ev); ok {
				r.pumpSend(rn, env)
			} else if !rn.observeSubagents && mutation.On(mutation.SAWithheldEndsEvents) {
				muted = true
			}
			continue
		}
		if muted {
			continue
		}
		if env, special := r.interactionEmitted(rn, ev); special {
			r.pumpSend(rn, env)
			continue
		}
		if ev.Type == proto.TypeError {
			ev.Payload = bendEngineError(ev.Payload)
		}
		env, err := proto.NewEnvelope(ev.Type, bentRunFrameID(rn, ev), ev.Payload)
		if err != nil {
			r.d.log.Error("dropping an event the harness could not encode", "run", rn.id, "type", ev.Type, "err", err)
			continue
		}
		r.pumpSend(rn, env) // after a disconnect the Turn still settles; its frames have nowhere to go
	}
	r.interactionsEnded(rn)
	r.awaitInputs(rn)
	defer r.applyInput(rn, input.DoneSent{})
	res := rn.turn.Result()
	done := res.Done
	if done == nil {
		done = &proto.DonePayload{} // the Turn produced no terminal frame: the stream still closes
	}
	if shutdownDoneWithheld(rn, res.Done == nil) {
		r.releaseExecutor(rn, res.Reusable)
		return
	}
	holdDone(rn)
	done = bentDone(rn, done, res.Done != nil)
	if mutation.On(mutation.DropDone) || done == nil {
		r.releaseExecutor(rn, res.Reusable)
		return
	}
	if mutation.On(mutation.DoneWithoutNativeIdentity) && done.Metadata != nil {
		stripped := *done
		stripped.Metadata = nil
		done = &stripped
	}
	if rn.releaseFirst && !mutation.On(mutation.DoneBeforeRelease) {
		r.releaseExecutor(rn, res.Reusable)
		r.sendDone(rn, done)
		r.afterDone(rn, done)
		return
	}
	r.sendDone(rn, done)
	r.afterDone(rn, done)
	r.releaseExecutor(rn, res.Reusable)
}

// pumpSend writes one of a Run's events. The write waits on Core reading, so the pump is away
// from the Turn's end meanwhile: a Hold it kept would hold the advance Core is in.
func (r *router) pumpSend(rn *run, env proto.Envelope) {
	rn.ended.Away()
	defer rn.ended.Back()
	_ = r.sendRun(rn, env)
}

// sendDone writes the Run's done; a done that could not be written locally is remembered, so a
// cancellation waiting for it answers cancel_output_unavailable (CA-07).
func (r *router) sendDone(rn *run, done *proto.DonePayload) {
	r.rememberFinished(rn)
	rn.doneOut.Store(true)
	if err := r.sendRun(rn, proto.MustEnvelope(proto.TypeDone, rn.id, done)); err != nil {
		rn.doneLost.Store(true)
	}
}

// releaseExecutor ends a Run's hold on its Executor: a healthy reusable one goes idle for the next
// Turn of its Session, any other is closed.
func (r *router) releaseExecutor(rn *run, reusable bool) {
	r.mu.Lock()
	delete(r.runs, rn.id)
	e := rn.exec
	reuse := (reusable || mutation.On(mutation.ADNonReusableKeptIdle)) && !r.closing && e.state == execRunning && e.stateKey != ""
	if reuse {
		r.idleLocked(e)
	}
	r.mu.Unlock()
	if !reuse {
		r.closeExecutor(e)
	}
}

// promptRequest starts a Run directly, without an admission handle.
func (r *router) promptRequest(env proto.Envelope) {
	f, err := proto.ParseEnvelope(env)
	if err != nil {
		// RS-06: without agent_kind or without any Run ID nothing can be answered: dropped.
		var loose proto.PromptRequestPayload
		_ = json.Unmarshal(env.Payload, &loose)
		runID := env.ID
		if runID == "" {
			runID = loose.RunID // RS-01: the payload's run_id when the envelope has none
		}
		if (strings.TrimSpace(runID) == "" && !mutation.On(mutation.RSNoRunIDAnswered)) ||
			(strings.TrimSpace(loose.AgentKind) == "" && !mutation.On(mutation.PromptWithoutKindAnswered)) {
			r.d.log.Warn("dropping prompt_request without a Run ID or agent_kind", "err", err)
			return
		}
		r.failRun(runID, env.Trace, "invalid prompt_request: "+err.Error())
		return
	}
	p := f.Payload.(*proto.PromptRequestPayload)
	runID := f.RunID()
	if mutation.On(mutation.PayloadRunIDWins) && p.RunID != "" {
		runID = p.RunID
	}
	if mutation.On(mutation.RSEnvelopeIDUnread) && strings.TrimSpace(p.RunID) == "" {
		r.d.log.Warn("dropping prompt_request without a payload run_id")
		return
	}
	if mutation.On(mutation.RSPayloadRunIDUnread) {
		runID = env.ID
	}
	r.mu.Lock()
	if !r.closing && r.runs[runID] != nil && mutation.On(mutation.RSDuplicatePromptAnswered) {
		r.mu.Unlock()
		r.failRun(runID, env.Trace, "the Run is already active")
		return
	}
	if r.closing || (r.runs[runID] != nil && !mutation.On(mutation.DuplicatePromptRequestRestart)) {
		r.mu.Unlock()
		return // a duplicate of an active Run is ignored
	}
	h, ok := r.harness(p.AgentKind)
	var reason string
	switch {
	case p.WorkspaceReadOnly && !mutation.On(mutation.ReadOnlyPromptRequestRuns):
		reason = "a read-only configuration cannot run a Turn"
	case !ok || (!h.Available() && !mutation.On(mutation.RSUnavailableKindRuns)):
		reason = "agent kind " + p.AgentKind + " is not available"
	default:
		if code := r.checkEnvironment(p, ungatedTools(p, h.Capabilities(), true), true); code != "" {
			reason = "the configuration cannot run here: " + code
		} else if r.directBusyLocked() {
			reason = "the workspace is busy with a runtime_prepare transfer, a write or an export"
		} else if r.fencedLocked() && !mutation.On(mutation.SUPromptRequestRuns) {
			reason = "the Environment is quiesced for suspension"
		} else if p.Input == nil {
			reason = "prompt_request carries no input"
		}
	}
	if reason != "" {
		r.mu.Unlock()
		if !ok && mutation.On(mutation.FailRunWithoutError) {
			// an unknown kind: the empty done goes out without the error frame
			_ = r.sendRun(&run{trace: runTrace(env.Trace)}, proto.MustEnvelope(proto.TypeDone, runID, &proto.DonePayload{}))
			return
		}
		r.failRun(runID, env.Trace, reason)
		return
	}
	e := &executor{id: newID("executor-"), h: h, caps: h.Capabilities(), state: execRunning}
	r.executors[e.id] = e
	rn := newRun(runID, e, env.Trace)
	rn.releaseFirst = p.ReleaseOnCompletion
	rn.environmentID = environmentOf(p)
	rn.observeSubagents = p.ObserveSubagentIdentities && !mutation.On(mutation.SAPromptOptInIgnored)
	rn.observeTools, rn.direct = p.ObserveToolObservations, true
	r.runs[runID] = rn
	r.mu.Unlock()
	r.directRunBent(rn, e.id)
	cfg := *p
	r.goOwned(func() {
		// abort reports a Run that never got a native Turn: nothing ran, the Executor is closed.
		abort := func(reason string) {
			close(rn.started)
			r.mu.Lock()
			delete(r.runs, runID)
			r.mu.Unlock()
			r.closeExecutor(e)
			r.failRun(runID, env.Trace, reason)
			rn.finish()
		}
		native, err := h.NewExecutor(r.ctx, &cfg)
		e.native = native
		if err != nil && mutation.On(mutation.RSSetupFailureUnanswered) {
			close(rn.started)
			r.mu.Lock()
			delete(r.runs, runID)
			r.mu.Unlock()
			r.closeExecutor(e)
			rn.finish()
			return
		}
		if err != nil {
			abort("native setup failed: " + err.Error())
			return
		}
		if code := optionsAfterSetup(&cfg, h.Capabilities()); code != "" {
			abort("the configuration cannot run here: " + code)
			return
		}
		turn, err := native.Start(clock.WithHandoff(r.ctx, &rn.ended), runID, cfg.Input)
		if err != nil {
			abort("native start failed: " + err.Error())
			return
		}
		rn.turn = turn
		close(rn.started)
		r.pump(rn)
	})
}

// failRun reports a failure of a Run before it started: an error frame followed by an empty done.
func (r *router) failRun(runID, requestTrace, reason string) {
	rn := &run{trace: runTrace(requestTrace)} // its frames carry the request's trace, as a Run's do
	_ = r.sendRun(rn, proto.MustEnvelope(proto.TypeError, runID, &proto.ErrorPayload{Error: reason}))
	_ = r.sendRun(rn, proto.MustEnvelope(proto.TypeDone, runID, &proto.DonePayload{}))
	r.rememberDone(runID, &proto.DonePayload{})
}

// promptCancel cancels a Run. With a delivery_id the receipt is sent only after native settlement
// and after the stream's done; without one (legacy) no receipt is sent.
func (r *router) promptCancel(env proto.Envelope) {
	p, err := proto.Decode[proto.PromptCancelPayload](env)
	p, err = cancelDecoded(env, p, err)
	if err != nil {
		r.d.log.Warn("dropping an invalid prompt_cancel", "err", err)
		return
	}
	r.mu.Lock()
	rn := r.runs[env.ID]
	r.mu.Unlock()
	if rn == nil {
		if p.DeliveryID != "" && !r.inactiveCancelBent(env.ID, p.DeliveryID) {
			r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID, ErrorCode: inactiveCode()})
		}
		return
	}
	if !r.cancelledBent(rn, p.DeliveryID) {
		return
	}
	if mutation.On(mutation.EventsAfterCancellation) {
		mutation.Remember(cancelledRun{rn}, []byte{1})
	}
	rn.abortStart()
	if mutation.On(mutation.ReceiptBeforeDone) && p.DeliveryID != "" {
		r.receiptBeforeDone(rn, env.ID, p.DeliveryID)
		return
	}
	if mutation.On(mutation.ReceiptBeforeSettlement) && p.DeliveryID != "" {
		r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID, Applied: true, Outcome: &proto.DonePayload{}})
	}
	// The confirmation bound and the native settlement's timers are armed in the goroutine: the
	// clock waits for them (clock.Hold).
	hold := clock.HoldFor(r.d.cfg.Clock)
	r.goOwned(func() {
		defer hold.Release()
		ctx, cancel := clock.WithTimeout(clock.WithHold(context.Background(), hold), r.d.cfg.Clock, cancelConfirmation())
		defer cancel()
		outcome, err := rn.cancelNative(ctx)
		if p.DeliveryID == "" && mutation.On(mutation.LegacyCancelGetsReceipt) {
			<-rn.finished
			r.ack(env.ID, &proto.InteractionDecisionAckPayload{DeliveryID: env.ID, Applied: true, Outcome: outcome})
		}
		if p.DeliveryID == "" || mutation.On(mutation.ReceiptBeforeSettlement) {
			return
		}
		receipt := &proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID}
		switch {
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
			receipt.ErrorCode = proto.CodeCancelTimeout
			r.cancelTimedOutBent(rn, env.ID, p.DeliveryID)
		case err != nil:
			receipt.ErrorCode = proto.CodeCancelFailed
			if mutation.On(mutation.CancelFailureAsTimeout) {
				receipt.ErrorCode = proto.CodeCancelTimeout
			}
			r.cancelFailedBent(rn)
		default:
			// The stream's done goes first; then the receipt owns the terminal outcome.
			select {
			case <-rn.finished:
				if rn.doneLost.Load() {
					receipt.ErrorCode = proto.CodeCancelOutputUnavailable // settled, but its output did not go out
				}
			case <-r.ctx.Done():
				receipt.ErrorCode = proto.CodeCancelOutputUnavailable // shutdown interrupted the output
			case <-ctx.Done():
				receipt.ErrorCode = proto.CodeCancelTimeout
			}
			if receipt.ErrorCode == "" {
				outcome = bentOutcome(rn, outcome)
				if outcome == nil && mutation.On(mutation.MissingOutcomeApplied) {
					receipt.Applied, receipt.Outcome = true, &proto.DonePayload{}
				} else if outcome == nil {
					receipt.ErrorCode = proto.CodeCancelOutcomeUnavailable
				} else {
					receipt.Applied, receipt.Outcome = true, outcome
					if mutation.On(mutation.ReceiptWithoutOutcome) {
						receipt.Outcome = nil
					}
				}
			}
		}
		if receipt.ErrorCode == proto.CodeCancelTimeout && mutation.On(mutation.CancelTimeoutSilent) {
			return
		}
		r.ack(env.ID, receipt)
	})
}

// ack sends a receipt within its own send budget.
func (r *router) ack(id string, receipt *proto.InteractionDecisionAckPayload) {
	if mutation.On(mutation.AppliedAckCarriesCode) && receipt.Applied {
		receipt.ErrorCode = proto.CodeRuntimeError
	}
	if err := r.send(proto.MustEnvelope(proto.TypeInteractionDecisionAck, id, receipt)); err != nil {
		r.d.log.Warn("a receipt could not be sent", "id", id, "err", err)
	}
}

// deviceShutdown cancels every Run and closes pending preparations and idle Executors. No reply.
// Its body is optional, its reason too, and its envelope id means nothing (DS-01).
// The connection goes on.
func (r *router) deviceShutdown(env proto.Envelope) {
	if dropShutdown(env) {
		return
	}
	if r.fencedLocked() && mutation.On(mutation.DSFencedShutdownRefused) {
		r.answerShutdown(env, "the Environment is quiesced for suspension") // fenced like new work
		return
	}
	r.mu.Lock()
	var runs []*run
	prepared := map[string]bool{}
	for _, g := range r.records {
		if g.rec.RunID != "" {
			prepared[g.rec.RunID] = true
		}
	}
	for _, rn := range r.runs {
		switch {
		case prepared[rn.id] && mutation.On(mutation.DeviceShutdownIgnored):
		case !prepared[rn.id] && mutation.On(mutation.DSPromptRunsKept):
		case env.ID != "" && env.ID != rn.id && mutation.On(mutation.DSShutdownIDAddressed):
		default:
			runs = append(runs, rn)
		}
	}
	if len(runs) > 1 && mutation.On(mutation.DSOneRunCancelled) {
		runs = runs[:1]
	}
	var afters []followUp
	for _, g := range r.records {
		if keepOnShutdown(g.rec) {
			continue
		}
		afters = append(afters, r.applyLocked(g, admission.DeviceShutdown{}))
	}
	// Idle Executors turn closing here, under the lock, as the shutdown is handled: a prepare
	// the read loop takes next finds them closing, never idle and reusable (DS-03.3).
	var idle []*executor
	for _, e := range r.executors {
		if e.state == execIdle && !mutation.On(mutation.DSIdleExecutorsKept) {
			e.state = execClosing
			idle = append(idle, e)
		}
	}
	r.mu.Unlock()
	for _, rn := range runs {
		shutdownCancelled(rn)
		hold := clock.HoldFor(r.d.cfg.Clock)
		r.goOwned(func() {
			defer hold.Release()
			outcome, err := rn.cancelNative(clock.WithHold(r.ctx, hold))
			if err == nil && mutation.On(mutation.DSShutdownReceipted) {
				if outcome == nil {
					outcome = &proto.DonePayload{}
				}
				<-rn.finished // receipted after done, as a prompt_cancel with a delivery_id would be
				r.ack(rn.id, &proto.InteractionDecisionAckPayload{DeliveryID: rn.id, Applied: true, Outcome: outcome})
			}
		})
		if mutation.On(mutation.DSDoneBeforeSettlement) {
			r.sendDone(rn, &proto.DonePayload{}) // the stream closed as soon as the shutdown is asked
		}
	}
	if mutation.On(mutation.DSShutdownAnswered) {
		r.answerShutdown(env, "device shutting down")
	}
	for _, e := range idle {
		r.goOwned(func() { r.finishClose(e) })
	}
	for _, after := range afters {
		r.goAfter(after) // closes the Executors that ready admissions held
	}
}
