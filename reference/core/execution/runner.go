package execution

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// runner drives one Turn. All its state is owned by its goroutine.
type runner struct {
	e   *Engine
	log *slog.Logger
	t   *store.Turn
	cfg proto.PromptRequestPayload // in memory only: may carry MCP bearer tokens
	req StartRequest

	cancelReq chan struct{}
	finished  bool

	// parked is true while the runner waits with nothing to do; Quiesce reads it (and the streams
	// and timers below) under mu.
	mu     sync.Mutex
	parked bool

	conn    Conn
	prep    Stream
	run     Stream
	ack     Stream
	timer   clock.Timer // the cancellation confirmation or the release fallback
	retry   clock.Timer
	backoff time.Duration

	// observations
	deltas      strings.Builder
	lastMessage string
	lastUsage   *proto.Usage
	errorSeen   bool
	lastError   proto.ErrorPayload
	done        *proto.DonePayload
	handle      string
	executor    string
}

func newRunner(e *Engine, t *store.Turn, cfg proto.PromptRequestPayload, req StartRequest) *runner {
	return &runner{e: e, t: t, cfg: cfg, req: req, cancelReq: make(chan struct{}, 1), backoff: e.cfg.RetryBackoff,
		log: e.log.With("turn_id", t.ID, "run_id", t.RunID, "device_id", t.DeviceID)}
}

func events(s Stream) <-chan gateway.Event {
	if s == nil {
		return nil
	}
	return s.Events()
}

func timerC(t clock.Timer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.C()
}

func (r *runner) loop() {
	defer r.closeAll()
	r.claim()
	for !r.finished {
		r.park(true)
		select {
		case <-r.e.ctx.Done():
			r.park(false)
			return // Core is stopping: the committed phase stays for the next Reconcile
		case <-r.cancelReq:
			r.park(false)
			r.onCancel()
		case <-timerC(r.retry):
			r.park(false)
			r.setRetry(nil)
			r.claim()
		case <-timerC(r.timer):
			r.park(false)
			r.setTimer(nil)
			r.onTimer()
		case ev, ok := <-events(r.prep):
			r.park(false)
			if !ok {
				r.onPrepClosed()
				continue
			}
			r.onStatus(ev)
		case ev, ok := <-events(r.run):
			r.park(false)
			if !ok {
				r.onRunClosed()
				continue
			}
			r.onRunEvent(ev)
		case ev, ok := <-events(r.ack):
			r.park(false)
			// Run frames and receipts travel on one ordered connection but reach the runner on two
			// channels: apply every Run frame the gateway routed before this receipt first.
			r.drainRun()
			if r.finished {
				continue
			}
			if !ok {
				r.onAckClosed()
				continue
			}
			r.onReceipt(ev)
		}
	}
}

func (r *runner) park(p bool) {
	r.mu.Lock()
	r.parked = p
	r.mu.Unlock()
	if p {
		r.e.parkedChanged()
	}
}

func (r *runner) setTimer(t clock.Timer) { r.mu.Lock(); r.timer = t; r.mu.Unlock() }
func (r *runner) setRetry(t clock.Timer) { r.mu.Lock(); r.retry = t; r.mu.Unlock() }

// idle reports whether the runner waits with nothing queued: no frame routed to it and no timer
// fired that it has not handled yet.
func (r *runner) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.parked || len(r.cancelReq) > 0 {
		return false
	}
	for _, s := range []Stream{r.prep, r.run, r.ack} {
		if s != nil && len(s.Events()) > 0 {
			return false
		}
	}
	for _, t := range []clock.Timer{r.timer, r.retry} {
		if t != nil && len(t.C()) > 0 {
			return false
		}
	}
	return true
}

// drainRun applies the Run frames already routed to the subscription, without waiting.
func (r *runner) drainRun() {
	for r.run != nil && !r.finished {
		select {
		case ev, ok := <-r.run.Events():
			if !ok {
				r.onRunClosed()
				continue
			}
			r.onRunEvent(ev)
		default:
			return
		}
	}
}

func (r *runner) closeAll() {
	for _, s := range []Stream{r.prep, r.run, r.ack} {
		if s != nil {
			s.Close()
		}
	}
	r.prep, r.run, r.ack = nil, nil, nil
	for _, t := range []clock.Timer{r.timer, r.retry} {
		if t != nil {
			t.Stop()
		}
	}
	r.timer, r.retry = nil, nil
}

// journal appends an event; a failure to persist what Core received fails the Turn.
func (r *runner) journal(ev store.Event) bool {
	if _, err := r.e.cfg.Store.Append(r.t.ID, ev); err != nil {
		r.log.Error("journal append failed", "error", err)
		if !r.finished {
			r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonEventPersistenceFailed, Error: err.Error()})
		}
		return false
	}
	return true
}

func (r *runner) note(format string) { r.journal(store.Event{Kind: store.EventNote, Note: format}) }

// move commits a phase change (with whatever else fn changes) before Core acts on it.
func (r *runner) move(to string, fn func(*store.Turn)) bool {
	from := r.t.Phase
	if err := Transition(from, to); err != nil {
		r.log.Error("refusing an invalid transition", "error", err)
		return false
	}
	t, err := r.e.cfg.Store.UpdateTurn(r.t.ID, func(t *store.Turn) error {
		t.Phase = to
		if fn != nil {
			fn(t)
		}
		return nil
	})
	if err != nil {
		r.log.Error("committing a transition failed", "error", err)
		r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonEventPersistenceFailed, Error: err.Error()})
		return false
	}
	r.t = t
	r.journal(store.Event{Kind: store.EventTransition, Type: from + "→" + to})
	r.e.cfg.OnChange(r.t.ID)
	return true
}

// finish records the outcome once and stops the runner.
func (r *runner) finish(o *store.Outcome) {
	if r.finished {
		return
	}
	r.finished = true
	if effectUnknown[o.Reason] {
		o.EffectUnknown = true
	}
	if o.Status == proto.TurnFailed && o.Reason == proto.ReasonExecutionInterrupted {
		o.EffectUnknown = store.Dispatched(r.t.Phase)
	}
	from := r.t.Phase
	t, err := r.e.cfg.Store.Finish(r.t.ID, o, store.Event{Kind: store.EventTransition, Type: from + "→" + store.PhaseDone,
		Note: strings.TrimSpace(o.Status + " " + o.Reason)})
	if err != nil {
		r.log.Error("recording the outcome failed", "error", err)
		return
	}
	r.t = t
	r.log.Info("turn finished", "status", o.Status, "reason", o.Reason)
	r.e.cfg.OnChange(r.t.ID)
}

func (r *runner) fail(reason, msg string) {
	r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: reason, Error: msg})
}

// send queues a frame within Core's per-send timeout and journals it.
func (r *runner) send(env proto.Envelope) error {
	ctx, cancel := context.WithCancel(r.e.ctx)
	defer cancel()
	t := r.e.cfg.Clock.NewTimer(proto.CoreSendTimeout)
	defer t.Stop()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-t.C():
			cancel()
		case <-stop:
		}
	}()
	if err := r.conn.Send(ctx, env); err != nil {
		r.journal(store.Event{Kind: store.EventNote, Type: env.Type, ID: env.ID, Note: "send failed: " + err.Error()})
		return err
	}
	payload := env.Payload
	if env.Type == proto.TypeExecutionPrepare {
		payload = redactPrepare(payload)
	}
	r.journal(store.Event{Kind: store.EventSent, Type: env.Type, ID: env.ID, Payload: payload})
	return nil
}

// redactPrepare removes MCP bearer tokens from a journalled execution_prepare.
func redactPrepare(raw json.RawMessage) json.RawMessage {
	var p proto.ExecutionPreparePayload
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	p.Configuration = store.RedactConfiguration(p.Configuration)
	out, _ := json.Marshal(p)
	return out
}

// claim is the final admission check and the dispatch of execution_prepare.
func (r *runner) claim() {
	conn, ok := r.e.cfg.Conns.Conn(r.t.DeviceID)
	if !ok {
		r.note("device offline: the Turn stays unclaimed")
		r.scheduleRetry()
		return
	}
	hb, known := conn.Capabilities()
	d := r.e.cfg.Policy.Evaluate(r.e.policyRequest(r.req, r.cfg), hb, known)
	r.journal(store.Event{Kind: store.EventAdmission, Note: d.String()})
	if d.Verdict != policy.Allow {
		r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonExecutionStateChanged,
			Error: "admission denied at the final check: " + d.String(), Denied: d.Missing})
		return
	}
	r.conn = conn
	var admitted *proto.AgentKindCapabilities
	if k := hb.Kind(r.cfg.AgentKind); k != nil && k.Capabilities != nil {
		c := *k.Capabilities // a copy: the owner keeps this declaration whatever later heartbeats say
		admitted = &c
	}
	prepareID := NewID()
	prep, err := conn.SubscribePreparation(prepareID)
	if err != nil {
		r.fail(proto.ReasonDeviceDisconnected, "could not subscribe to preparation status: "+err.Error())
		return
	}
	r.prep = prep
	r.handle, r.executor = "", ""
	if !r.move(store.PhasePreparing, func(t *store.Turn) {
		t.PrepareID = prepareID
		t.Claims++
		t.Handle, t.ExecutorID = "", ""
		t.Admitted = admitted
	}) {
		return
	}
	env, err := proto.NewEnvelope(proto.TypeExecutionPrepare, prepareID, &proto.ExecutionPreparePayload{SessionID: r.t.SessionID, Configuration: r.cfg})
	if err != nil {
		r.fail(proto.ReasonExecutionStateUnavailable, err.Error())
		return
	}
	if err := r.send(env); err != nil {
		r.fail(proto.ReasonDeliveryUnknown, "execution_prepare could not be confirmed as sent: "+err.Error())
	}
}

func (r *runner) scheduleRetry() {
	r.setRetry(r.e.cfg.Clock.NewTimer(r.backoff))
	r.backoff *= 2
	if r.backoff > r.e.cfg.MaxRetryBackoff {
		r.backoff = r.e.cfg.MaxRetryBackoff
	}
}

func (r *runner) received(ev gateway.Event) bool {
	rec := store.Event{Kind: store.EventReceived, Type: ev.Envelope.Type, ID: ev.Envelope.ID, Payload: ev.Envelope.Payload}
	if !r.journal(rec) {
		return false
	}
	if r.e.cfg.OnEvent != nil {
		r.e.cfg.OnEvent(r.t.ID, rec)
	}
	return true
}

// onStatus handles a preparation status that passed the revision rules.
func (r *runner) onStatus(ev gateway.Event) {
	if !r.received(ev) {
		return
	}
	st := ev.Frame.Payload.(*proto.PreparationStatusPayload)
	switch st.State {
	case proto.StateRejected:
		r.onRejected(st)
	case proto.StatePreparing:
		r.learn(st)
		if r.t.CancelRequested {
			r.release()
		}
	case proto.StateReady:
		if r.t.Phase != store.PhasePreparing {
			r.note("ready ignored in phase " + r.t.Phase)
			return
		}
		r.learn(st)
		if r.t.CancelRequested {
			r.release()
			return
		}
		r.start()
	case proto.StateStarting:
	case proto.StateStarted:
		if r.t.Phase == store.PhaseStarting {
			r.move(store.PhaseRunning, nil)
		}
	case proto.StateFailed, proto.StateExpired, proto.StateReleased:
		if r.t.CancelRequested && !store.Dispatched(r.t.Phase) {
			r.finish(&store.Outcome{Status: proto.TurnCancelled})
			return
		}
		if r.t.Phase == store.PhaseRunning || r.t.Phase == store.PhaseCancelling {
			return
		}
		o := &store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonPreparationStartFailed,
			PreparationErrorCode: st.ErrorCode, Error: "preparation " + st.State,
			EffectUnknown: store.Dispatched(r.t.Phase)}
		if st.ErrorCode != "" {
			o.Error += ": " + st.ErrorCode
		}
		r.finish(o)
	}
}

func (r *runner) learn(st *proto.PreparationStatusPayload) {
	r.handle, r.executor = st.Handle, st.ExecutorID
}

func (r *runner) onRejected(st *proto.PreparationStatusPayload) {
	switch st.Operation {
	case proto.OperationPrepare:
		if r.t.Phase != store.PhasePreparing {
			return
		}
		d := r.e.cfg.Policy.Preparation(st.ErrorCode)
		r.journal(store.Event{Kind: store.EventAdmission, Note: d.String()})
		if d.Verdict == policy.Retry {
			r.prep.Close()
			r.prep = nil
			if r.move(store.PhaseQueued, nil) {
				r.scheduleRetry()
			}
			return
		}
		r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonPreparationStartFailed,
			PreparationErrorCode: st.ErrorCode, Error: "execution_prepare rejected: " + st.ErrorCode})
	case proto.OperationStart:
		if r.t.Phase != store.PhaseStarting {
			return
		}
		if st.ErrorCode == proto.CodeExecutorUnavailable {
			if r.t.Recovered {
				r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonExecutorRecoveryFailed,
					PreparationErrorCode: st.ErrorCode, Error: "the single recovery after executor_unavailable failed"})
				return
			}
			// Guaranteed: no input was submitted and the old Executor was closed. Retry once, with a
			// fresh preparation request for the same Run.
			r.prep.Close()
			r.run.Close()
			r.prep, r.run = nil, nil
			if _, err := r.e.cfg.Store.UpdateTurn(r.t.ID, func(t *store.Turn) error { t.Recovered = true; return nil }); err != nil {
				r.fail(proto.ReasonEventPersistenceFailed, err.Error())
				return
			}
			r.t.Recovered = true
			r.claimAgain()
			return
		}
		r.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonPreparationStartFailed,
			PreparationErrorCode: st.ErrorCode, Error: "execution_start rejected: " + st.ErrorCode})
	}
}

// claimAgain is the recovery after executor_unavailable: starting → preparing with a new request.
func (r *runner) claimAgain() {
	prepareID := NewID()
	prep, err := r.conn.SubscribePreparation(prepareID)
	if err != nil {
		r.fail(proto.ReasonExecutorRecoveryFailed, "could not subscribe for the recovery: "+err.Error())
		return
	}
	r.prep = prep
	if !r.move(store.PhasePreparing, func(t *store.Turn) { t.PrepareID = prepareID; t.Claims++; t.Handle, t.ExecutorID = "", "" }) {
		return
	}
	env, err := proto.NewEnvelope(proto.TypeExecutionPrepare, prepareID, &proto.ExecutionPreparePayload{SessionID: r.t.SessionID, Configuration: r.cfg})
	if err != nil {
		r.fail(proto.ReasonExecutionStateUnavailable, err.Error())
		return
	}
	if err := r.send(env); err != nil {
		r.fail(proto.ReasonExecutorRecoveryFailed, "the recovery's execution_prepare could not be confirmed as sent: "+err.Error())
	}
}

// start subscribes to the Run, commits the phase and sends execution_start.
func (r *runner) start() {
	run, err := r.conn.SubscribeDurable(r.t.RunID)
	if err != nil {
		r.fail(proto.ReasonDeviceDisconnected, "could not subscribe to the Run: "+err.Error())
		return
	}
	r.run = run
	handle, executor := r.handle, r.executor
	if !r.move(store.PhaseReady, func(t *store.Turn) { t.Handle, t.ExecutorID = handle, executor }) {
		return
	}
	if !r.move(store.PhaseStarting, nil) {
		return
	}
	env, err := proto.NewEnvelope(proto.TypeExecutionStart, r.t.PrepareID, &proto.ExecutionStartPayload{
		ExecutorID: executor, Handle: handle, RunID: r.t.RunID, Input: r.t.Input})
	if err != nil {
		r.fail(proto.ReasonInvalidInput, err.Error())
		return
	}
	if err := r.send(env); err != nil {
		r.fail(proto.ReasonDeliveryUnknown, "execution_start could not be confirmed as sent: "+err.Error())
	}
}

func (r *runner) onPrepClosed() {
	err := r.prep.Err()
	r.prep = nil
	if err == nil {
		return
	}
	r.note("preparation subscription closed: " + err.Error())
	switch r.t.Phase {
	case store.PhasePreparing, store.PhaseReady:
		if r.t.CancelRequested {
			r.finish(&store.Outcome{Status: proto.TurnCancelled})
			return
		}
		r.fail(proto.ReasonPreparationInterrupted, "the preparation status stream ended before started: "+err.Error())
	}
	// From starting on, the Run subscription decides.
}

// onRunEvent journals a Run frame, then folds it into the observation.
func (r *runner) onRunEvent(ev gateway.Event) {
	if !r.received(ev) {
		return
	}
	typ := ev.Envelope.Type
	if ev.Invalid != nil {
		switch typ {
		case proto.TypeError, proto.TypeUsage, proto.TypeDone, proto.TypePromptSteerAck:
			r.fail(proto.ReasonInvalidExecutorResult, "undecodable "+typ+": "+ev.Invalid.Error())
		default:
			r.note("ignoring an invalid " + typ + ": " + ev.Invalid.Error())
		}
		return
	}
	switch p := ev.Frame.Payload.(type) {
	case *proto.DeltaPayload:
		r.deltas.WriteString(p.Delta)
	case *proto.OutputMessagePayload:
		if p.Status == proto.MessageCompleted && p.Text != nil {
			r.lastMessage = *p.Text
		}
	case *proto.UsagePayload:
		u := p.Usage // a cumulative snapshot: it replaces the previous one
		r.lastUsage = &u
	case *proto.ErrorPayload:
		r.errorSeen, r.lastError = true, *p
	case *proto.DonePayload:
		r.done = p
		if r.t.Phase == store.PhaseCancelling {
			return // the cancellation receipt owns the terminal outcome
		}
		r.finish(r.fromDone())
	case *proto.PermissionRequestPayload, *proto.PromptForUserChoicePayload:
		r.fail(proto.ReasonInteractionNotSupported, typ+" arrived on an execution path without interactions")
	}
}

// fromDone projects the stream that done closed: engine_failed after an error frame (with the
// engine classification), completed otherwise; usage and content merged as §4.7 says.
func (r *runner) fromDone() *store.Outcome {
	o := r.merge(r.done)
	o.DoneObserved = true
	if r.errorSeen {
		o.Status, o.Reason, o.Error = proto.TurnFailed, proto.ReasonEngineFailed, r.lastError.Error
		o.EngineErrorCode, o.EngineHTTPStatus = r.lastError.Code, r.lastError.HTTPStatus
	} else {
		o.Status = proto.TurnCompleted
	}
	return o
}

// merge builds the observed result from a done payload (or a cancellation snapshot): a missing
// usage keeps the last usage snapshot; empty content, model or metadata are filled from earlier
// observations.
func (r *runner) merge(d *proto.DonePayload) *store.Outcome {
	o := &store.Outcome{}
	if d == nil {
		d = &proto.DonePayload{}
	}
	o.Content, o.Transcript, o.SourceCompletedAtMS = d.Content, d.Transcript, d.SourceCompletedAtMS
	if o.Content == "" {
		o.Content = r.deltas.String()
	}
	if o.Content == "" {
		o.Content = r.lastMessage
	}
	switch {
	case d.Usage != nil && !d.Usage.IsZero():
		u := *d.Usage
		if u.Model == "" && r.lastUsage != nil {
			u.Model = r.lastUsage.Model
		}
		o.Usage = &u
	case r.lastUsage != nil:
		u := *r.lastUsage
		o.Usage = &u
	}
	if len(d.Metadata) > 0 {
		o.Metadata = map[string]string{}
		for k, v := range d.Metadata {
			o.Metadata[k] = v
		}
	}
	return o
}

func (r *runner) onRunClosed() {
	err := r.run.Err()
	r.run = nil
	if err == nil {
		return // done was delivered and handled
	}
	r.note("run subscription closed: " + err.Error())
	if r.t.Phase == store.PhaseCancelling {
		return // the cancellation receipt (or its absence) decides
	}
	r.fail(proto.ReasonEventStreamIncomplete, "the Run's event stream ended without done: "+err.Error())
}

// onCancel handles a cancellation request.
func (r *runner) onCancel() {
	if r.finished || r.t.CancelRequested {
		return
	}
	if _, err := r.e.cfg.Store.UpdateTurn(r.t.ID, func(t *store.Turn) error { t.CancelRequested = true; return nil }); err != nil {
		r.fail(proto.ReasonEventPersistenceFailed, err.Error())
		return
	}
	r.t.CancelRequested = true
	r.journal(store.Event{Kind: store.EventNote, Note: "cancellation requested in phase " + r.t.Phase})
	switch r.t.Phase {
	case store.PhaseQueued:
		r.finish(&store.Outcome{Status: proto.TurnCancelled})
	case store.PhasePreparing, store.PhaseReady:
		if r.handle != "" {
			r.release()
			return
		}
		// No handle yet: release as soon as a status names it; never wait forever.
		r.setTimer(r.e.cfg.Clock.NewTimer(proto.CancellationConfirmationTimeout))
	case store.PhaseStarting, store.PhaseRunning:
		r.cancelRun()
	}
}

// release abandons the admission before start; no input was submitted, so the Turn is cancelled.
func (r *runner) release() {
	env, err := proto.NewEnvelope(proto.TypeExecutionRelease, r.t.PrepareID, &proto.ExecutionReleasePayload{Handle: r.handle})
	if err == nil {
		_ = r.send(env)
	}
	r.finish(&store.Outcome{Status: proto.TurnCancelled})
}

// cancelRun sends prompt_cancel after the Run owns the admission. The receipt waiter and the
// 15-second confirmation timer exist before the frame is queued.
func (r *runner) cancelRun() {
	delivery := CancelDeliveryID(r.t.RunID)
	ack, err := r.conn.AwaitAck(delivery)
	if err != nil {
		r.fail(proto.ReasonCancelUnconfirmed, "could not wait for the cancellation receipt: "+err.Error())
		return
	}
	r.ack = ack
	r.setTimer(r.e.cfg.Clock.NewTimer(proto.CancellationConfirmationTimeout))
	if !r.move(store.PhaseCancelling, nil) {
		return
	}
	env, err := proto.NewEnvelope(proto.TypePromptCancel, r.t.RunID, &proto.PromptCancelPayload{DeliveryID: delivery})
	if err == nil {
		err = r.send(env)
	}
	if err != nil {
		r.fail(proto.ReasonCancelUnconfirmed, "prompt_cancel could not be confirmed as sent: "+err.Error())
	}
}

func (r *runner) onTimer() {
	switch r.t.Phase {
	case store.PhaseCancelling:
		r.fail(proto.ReasonCancelUnconfirmed, "no cancellation confirmation within 15s")
	case store.PhasePreparing, store.PhaseReady, store.PhaseQueued:
		if r.t.CancelRequested {
			r.finish(&store.Outcome{Status: proto.TurnCancelled})
		}
	}
}

// onReceipt decides a cancellation from its receipt.
func (r *runner) onReceipt(ev gateway.Event) {
	if !r.received(ev) {
		return
	}
	ack := ev.Frame.Payload.(*proto.InteractionDecisionAckPayload)
	switch {
	case ack.Applied && ack.Outcome != nil:
		o := r.merge(ack.Outcome)
		o.Status, o.CancelReceipt, o.DoneObserved = proto.TurnCancelled, ack, r.done != nil
		r.finish(o)
	case ack.Applied:
		o := r.merge(r.done)
		o.Status, o.Reason, o.CancelReceipt = proto.TurnFailed, proto.ReasonCancelOutcomeUnavailable, ack
		o.Error = "the cancellation was applied without an outcome snapshot"
		r.finish(o)
	case ack.ErrorCode == proto.CodeRunInactive && r.done != nil:
		o := r.fromDone()
		o.CancelReceipt = ack
		r.finish(o)
	default:
		o := r.merge(r.done)
		o.Status, o.Reason, o.CancelReceipt = proto.TurnFailed, proto.ReasonCancelUnconfirmed, ack
		o.Error = "the cancellation was not applied: " + ack.ErrorCode
		r.finish(o)
	}
}

func (r *runner) onAckClosed() {
	err := r.ack.Err()
	r.ack = nil
	if err != nil && !errors.Is(err, context.Canceled) {
		r.fail(proto.ReasonCancelUnconfirmed, "the cancellation receipt can no longer arrive: "+err.Error())
	}
}
