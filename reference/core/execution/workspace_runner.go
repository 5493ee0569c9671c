package execution

import (
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/workspace"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// wsRunner executes one workspace operation: the decisions are package workspace's, the runner
// owns the connection's waiters, the timer, the journal (the Turn's) and the record.
type wsRunner struct {
	e       *Engine
	conn    WorkspaceConn
	rec     *store.WorkspaceOp
	state   workspace.State
	log     *slog.Logger
	stopped chan struct{}

	// Quiesce reads these under mu; only the runner's goroutine writes them.
	mu     sync.Mutex
	parked bool
	prep   Stream
	res    Stream
	taken  [2]uint64 // events and closes taken from prep, res
	timer  clock.Timer
	due    time.Time

	trace opTrace // its frames carry the operation's trace (tracing.go)
}

func newWSRunner(e *Engine, conn WorkspaceConn, op *store.WorkspaceOp, spec *workspace.Spec) *wsRunner {
	return &wsRunner{e: e, conn: conn, rec: op, state: workspace.New(spec), stopped: make(chan struct{}),
		log: e.log.With("workspace_op", op.ID, "kind", op.Kind, "turn_id", op.TurnID)}
}

func (r *wsRunner) loop() {
	defer close(r.stopped)
	r.trace = startOp("", SpanWorkspace, attribute.String(AttrOpID, r.rec.ID), attribute.String(AttrOpKind, r.rec.Kind),
		attribute.String(AttrTurnID, r.rec.TurnID), attribute.Int64(AttrConnection, int64(r.conn.ID())))
	defer func() {
		st := r.rec.State
		r.trace.end(st, r.rec.ErrorCode, st != workspace.StateCompleted && st != workspace.StatePending)
	}()
	defer r.closeAll()
	r.feed(workspace.Begin{})
	for !r.state.Done() {
		r.park(true)
		select {
		case <-r.e.ctx.Done():
			r.park(false)
			// Core is stopping: an operation awaiting released is recorded (PJ-14); anything
			// else stays pending for ReconcileWorkspace.
			r.feed(workspace.Stopping{})
			return
		case <-timerC(r.timer):
			r.park(false)
			r.setTimer(nil, time.Time{})
			r.feed(workspace.TimerFired{})
		case ev, ok := <-events(r.prep):
			r.took(0)
			r.park(false)
			if !ok {
				err := r.prep.Err()
				r.setStream(0, nil)
				r.feed(workspace.StatusClosed{Err: err})
				continue
			}
			r.journal(store.Event{Kind: store.EventReceived, Type: ev.Envelope.Type, ID: ev.Envelope.ID, Payload: ev.Envelope.Payload})
			if st, ok := ev.Frame.Payload.(*proto.PreparationStatusPayload); ok {
				r.feed(workspace.Status{Status: st})
			}
		case ev, ok := <-events(r.res):
			r.took(1)
			r.park(false)
			if !ok {
				err := r.res.Err()
				r.setStream(1, nil)
				r.feed(workspace.ResultsClosed{Err: err})
				continue
			}
			if !bulkReceived(ev) {
				r.journal(store.Event{Kind: store.EventReceived, Type: ev.Envelope.Type, ID: ev.Envelope.ID, Payload: ev.Envelope.Payload})
			}
			var payload any
			if ev.Frame != nil {
				payload = ev.Frame.Payload
			}
			r.feed(workspace.Result{Payload: payload, Invalid: ev.Invalid})
		}
	}
}

// feed steps an event and carries out its effects in order; a failed send is the next event.
func (r *wsRunner) feed(ev workspace.Event) {
	for ev != nil {
		next, effects := workspace.Step(r.state, ev)
		r.state, ev = next, nil
		for _, eff := range effects {
			if failure := r.apply(eff); failure != nil {
				ev = failure
				break
			}
		}
	}
}

func (r *wsRunner) apply(eff workspace.Effect) workspace.Event {
	switch e := eff.(type) {
	case workspace.SubscribePreparation:
		s, err := r.conn.SubscribePreparation(e.ID)
		if err != nil {
			return workspace.SendFailed{Err: err}
		}
		r.setStream(0, s)
	case workspace.AwaitResults:
		s, err := r.conn.AwaitWorkspace(e.Type, e.ID)
		if err != nil {
			return workspace.SendFailed{Err: err}
		}
		r.setStream(1, s)
	case workspace.Send:
		return r.send(e)
	case workspace.Arm:
		r.setTimer(r.e.cfg.Clock.NewTimer(e.After), r.e.cfg.Clock.Now().Add(e.After))
	case workspace.Disarm:
		r.setTimer(nil, time.Time{})
	case workspace.Note:
		r.journal(store.Event{Kind: store.EventNote, Type: r.rec.Kind, ID: r.rec.ID, Note: e.Text})
	case workspace.CloseAll:
		r.closeAll()
	case workspace.CloseResults:
		if r.res != nil {
			r.res.Close()
		}
		r.setStream(1, nil)
	case workspace.Finish:
		r.finish(e.Outcome)
	}
	return nil
}

// send queues a frame within its budget and journals it (or that it failed), unless it is a bulk
// step (bulk.go).
func (r *wsRunner) send(s workspace.Send) workspace.Event {
	env := r.trace.stamp(s.Envelope)
	budget := s.Budget
	if budget == 0 {
		budget = proto.CoreSendTimeout
	}
	err := r.e.sendWithin(r.conn.Send, env, budget)
	if !bulkSent(env) {
		r.trace.sent(env, err)
	}
	if err != nil {
		r.journal(store.Event{Kind: store.EventNote, Type: env.Type, ID: env.ID, Note: "send failed: " + err.Error()})
		if s.BestEffort {
			return nil
		}
		return workspace.SendFailed{Err: err}
	}
	if bulkSent(env) {
		return nil
	}
	payload := env.Payload
	if env.Type == proto.TypeExecutionPrepare {
		payload = redactPrepare(payload)
	}
	r.journal(store.Event{Kind: store.EventSent, Type: env.Type, ID: env.ID, Payload: payload})
	return nil
}

func (r *wsRunner) journal(ev store.Event) {
	if _, err := r.e.cfg.Store.Append(r.rec.TurnID, ev); err != nil {
		r.log.Error("journal append failed", "error", err)
	}
}

// finish records the outcome and what the operation returned, and frees the connection's slot.
func (r *wsRunner) finish(o workspace.Outcome) {
	rec := *r.rec
	rec.State, rec.ErrorCode, rec.Reason, rec.Detail, rec.Cleanup = o.State, o.ErrorCode, o.Reason, o.Detail, o.Cleanup
	if o.State == workspace.StateCompleted {
		rec.Data, rec.Directory, rec.Truncated = r.state.Data, r.state.Dir, r.state.Trunc
	}
	if err := r.e.cfg.Store.PutWorkspaceOp(&rec); err != nil {
		r.log.Error("recording the workspace outcome failed", "error", err)
	}
	r.rec = &rec
	r.journal(store.Event{Kind: store.EventNote, Type: rec.Kind, ID: rec.ID, Note: "workspace " + rec.Kind + " " + o.State + " " + o.ErrorCode + cleanupNote(o.Cleanup)})
	r.e.settled(r.conn, &rec)
	r.log.Info("workspace operation finished", "state", o.State, "error_code", o.ErrorCode, "detail", o.Detail)
	r.e.cfg.OnChange(rec.TurnID)
}

func cleanupNote(cleanup string) string {
	if cleanup == "" {
		return ""
	}
	return " cleanup " + cleanup
}

func (r *wsRunner) park(p bool) {
	r.mu.Lock()
	r.parked = p
	r.mu.Unlock()
	if p {
		r.e.parkedChanged()
	}
}

func (r *wsRunner) setTimer(c clock.Timer, due time.Time) {
	r.mu.Lock()
	old := r.timer
	r.timer, r.due = c, due
	r.mu.Unlock()
	if old != nil {
		old.Stop()
	}
}

func (r *wsRunner) setStream(i int, s Stream) {
	r.mu.Lock()
	if i == 0 {
		r.prep = s
	} else {
		r.res = s
	}
	r.taken[i] = 0
	r.mu.Unlock()
}

func (r *wsRunner) took(i int) {
	r.mu.Lock()
	r.taken[i]++
	r.mu.Unlock()
}

func (r *wsRunner) closeAll() {
	for i, s := range []Stream{r.prep, r.res} {
		if s != nil {
			s.Close()
		}
		r.setStream(i, nil)
	}
	r.setTimer(nil, time.Time{})
}

// idle: as a Turn runner's (see runner.idle).
func (r *wsRunner) idle() bool {
	select {
	case <-r.stopped:
		return true
	default:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.parked {
		return false
	}
	for i, s := range []Stream{r.prep, r.res} {
		if s != nil && s.Delivered() != r.taken[i] {
			return false
		}
	}
	return r.timer == nil || r.e.cfg.Clock.Now().Before(r.due)
}
