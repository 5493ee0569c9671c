package execution

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/suspend"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Errors of Suspend and Resume. Each is a refusal inside Core: nothing reached the Runtime.
var (
	// ErrSuspensionLimit: two suspension requests are outstanding on the connection (SU-09).
	ErrSuspensionLimit = errors.New("two suspension requests are outstanding on this connection")
	// ErrSuspensionConflict: the key was used for another suspension request.
	ErrSuspensionConflict = errors.New("the key was used for another suspension request")
	// ErrNoAttempt: a resume names no quiesce of the device.
	ErrNoAttempt = errors.New("no such suspension attempt on this device")
	// ErrNotResumable: the attempt was refused, or is still pending, or already resumed.
	ErrNotResumable = errors.New("the suspension attempt cannot be resumed")
	// ErrSameConnection: a resume (not a rollback) goes on a new connection (SU-07): the
	// Runtime parked the one that accepted the quiesce.
	ErrSameConnection = errors.New("a resume needs a new connection")
	// ErrNoSuspension: no suspension request of that ID.
	ErrNoSuspension = errors.New("no such suspension request")
)

// SuspendRequest is a caller's request to suspend a device's Environment.
type SuspendRequest struct {
	DeviceID string
	// Key is the caller's idempotency key (as a workspace operation's).
	Key string
	// EnvironmentID is the Environment to quiesce; "" is the one the device's preparation binds.
	EnvironmentID string
}

// ResumeRequest is a caller's request to resume a suspension attempt on the device's current
// connection: environment_resume naming the attempt's (environment_id, suspend_id).
type ResumeRequest struct {
	DeviceID string
	Key      string
	Attempt  string // the quiesce's record ID
	// Rollback resumes a source that may still be running (an accepted no-op there, SU-08); it
	// may go on any connection.
	Rollback bool
}

// suspensions tracks the suspension requests in flight.
type suspensions struct {
	mu          sync.Mutex
	runners     map[string]*suRunner
	outstanding map[uint64]int // connection → its pending requests (SU-09)
}

// Suspend sends environment_quiesce for the device's Environment under a new, persisted
// suspend_id, and returns the request's record (pending, or the one already kept under the key).
// From then on Core admits no work to the device until an accepted resume ends the attempt: not
// while it is pending, not once accepted, not when its outcome is unknown (a closed socket is
// not an acknowledgement, SU-10); a refusal ends it.
func (e *Engine) Suspend(req SuspendRequest) (*store.Suspension, error) {
	if err := checkKey(req.Key); err != nil {
		return nil, err
	}
	env := req.EnvironmentID
	if env == "" {
		if p, err := e.cfg.Store.Preparation(req.DeviceID); err == nil {
			env = p.EnvironmentID
		}
	}
	if strings.TrimSpace(env) == "" {
		return nil, fmt.Errorf("%w: no environment_id given, and the device's preparation binds none", ErrInvalid)
	}
	id := NewID()
	suspendID := "suspend-" + id
	if mutation.On(mutation.SUSuspendIDPerEnvironment) {
		suspendID = "suspend-" + env // derived from the Environment: every attempt reuses it
	}
	return e.startSuspension(req.DeviceID, req.Key, &store.Suspension{ID: id, Kind: suspend.Quiesce, Key: req.Key,
		DeviceID: req.DeviceID, EnvironmentID: env, SuspendID: suspendID})
}

// Resume sends environment_resume naming the attempt's pair.
func (e *Engine) Resume(req ResumeRequest) (*store.Suspension, error) {
	if err := checkKey(req.Key); err != nil {
		return nil, err
	}
	a, err := e.cfg.Store.Suspension(req.Attempt)
	if err != nil || a.Kind != suspend.Quiesce || a.DeviceID != req.DeviceID {
		return nil, fmt.Errorf("%s: %w", req.Attempt, ErrNoAttempt)
	}
	suspendID := a.SuspendID
	if mutation.On(mutation.SUResumeNamesRecordID) {
		suspendID = a.ID // the attempt's record ID instead of the suspend_id it sent
	}
	return e.startSuspension(req.DeviceID, req.Key, &store.Suspension{ID: NewID(), Kind: suspend.Resume, Key: req.Key,
		DeviceID: req.DeviceID, EnvironmentID: a.EnvironmentID, SuspendID: suspendID, Rollback: req.Rollback, Attempt: a.ID})
}

func checkKey(key string) error {
	if strings.TrimSpace(key) == "" || len(key) > MaxInputKeyBytes {
		return fmt.Errorf("%w: the key must be non-blank and at most %d bytes", ErrInvalid, MaxInputKeyBytes)
	}
	return nil
}

func (e *Engine) startSuspension(deviceID, key string, rec *store.Suspension) (*store.Suspension, error) {
	e.su.mu.Lock()
	defer e.su.mu.Unlock()
	if e.su.runners == nil {
		e.su.runners, e.su.outstanding = map[string]*suRunner{}, map[uint64]int{}
	}
	if old, err := e.suspensionByKey(deviceID, key, rec); old != nil || err != nil {
		return old, err
	}
	c, ok := e.cfg.Conns.Conn(deviceID)
	if !ok {
		return nil, fmt.Errorf("device %s: %w", deviceID, ErrDeviceOffline)
	}
	conn, ok := c.(WorkspaceConn)
	if !ok {
		return nil, fmt.Errorf("device %s: the connection routes no suspension replies", deviceID)
	}
	if err := e.mayResume(conn, rec); err != nil {
		return nil, err
	}
	slot := conn.ID()
	if rec.Kind == suspend.Resume && mutation.On(mutation.SUResumeUncounted) {
		slot |= 1 << 63 // resumes counted apart from quiesces
	}
	if !suspend.Outstanding(e.su.outstanding[slot]) {
		return nil, fmt.Errorf("%w (SU-09)", ErrSuspensionLimit)
	}
	rec.Connection, rec.State = conn.ID(), suspend.StatePending
	// Recorded before anything reaches the Runtime: the suspend_id is the persisted attempt ID.
	if err := e.cfg.Store.PutSuspension(rec); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return rec, nil // recorded: the next ReconcileSuspensions settles it
	}
	e.wg.Add(1)
	e.mu.Unlock()
	r := &suRunner{e: e, conn: conn, rec: rec, slot: slot, stopped: make(chan struct{}),
		state: suspend.New(suspend.Spec{Kind: rec.Kind, ID: rec.ID, EnvironmentID: rec.EnvironmentID, SuspendID: rec.SuspendID, Rollback: rec.Rollback}),
		log:   e.log.With("suspension", rec.ID, "kind", rec.Kind, "device_id", deviceID)}
	e.su.runners[rec.ID] = r
	e.su.outstanding[slot]++
	go func() {
		defer e.wg.Done()
		defer func() {
			e.su.mu.Lock()
			delete(e.su.runners, rec.ID)
			e.su.mu.Unlock()
			e.parkedChanged()
		}()
		r.loop()
	}()
	return rec, nil
}

// suspensionByKey answers a repeated key: the request already recorded, or a conflict.
func (e *Engine) suspensionByKey(deviceID, key string, rec *store.Suspension) (*store.Suspension, error) {
	all, err := e.cfg.Store.Suspensions()
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.DeviceID != deviceID || s.Key != key {
			continue
		}
		same := s.Kind == rec.Kind && s.Rollback == rec.Rollback && s.Attempt == rec.Attempt &&
			(rec.Kind == suspend.Resume || rec.EnvironmentID == s.EnvironmentID)
		if !same {
			return nil, fmt.Errorf("key %q: %w", key, ErrSuspensionConflict)
		}
		return s, nil
	}
	return nil, nil
}

// mayResume: a resume ends an attempt Core holds fenced (accepted or unknown), and, unless it
// is a rollback, goes on a newer connection than the quiesce's.
func (e *Engine) mayResume(conn WorkspaceConn, rec *store.Suspension) error {
	if rec.Kind != suspend.Resume {
		return nil
	}
	a, err := e.cfg.Store.Suspension(rec.Attempt)
	if err != nil {
		return fmt.Errorf("%s: %w", rec.Attempt, ErrNoAttempt)
	}
	if fenced, _ := e.fencedBy(a); !fenced || a.State == suspend.StatePending {
		return fmt.Errorf("%w: the attempt is %s", ErrNotResumable, a.State)
	}
	if !rec.Rollback && a.Connection == conn.ID() && !mutation.On(mutation.SUResumeSameConnection) {
		return fmt.Errorf("%w (SU-07)", ErrSameConnection)
	}
	return nil
}

// fencedBy says whether the quiesce attempt a holds its device fenced: pending, accepted or
// unknown, and no accepted resume has ended it.
func (e *Engine) fencedBy(a *store.Suspension) (bool, error) {
	if a.State == suspend.StateRefused {
		return false, nil
	}
	all, err := e.cfg.Store.Suspensions()
	if err != nil {
		return true, err
	}
	for _, s := range all {
		if s.Kind == suspend.Resume && s.Attempt == a.ID && s.State == suspend.StateAccepted {
			return false, nil
		}
	}
	return true, nil
}

// Suspended reports whether Core admits no work to the device, and the attempt that fences it.
func (e *Engine) Suspended(deviceID string) (bool, string) {
	all, err := e.cfg.Store.Suspensions()
	if err != nil {
		return true, "unreadable: " + err.Error()
	}
	for _, s := range all {
		if s.DeviceID != deviceID || s.Kind != suspend.Quiesce {
			continue
		}
		if fenced, _ := e.fencedBy(s); fenced {
			return true, s.ID
		}
	}
	return false, ""
}

// Suspension returns one request's record.
func (e *Engine) Suspension(id string) (*store.Suspension, error) {
	s, err := e.cfg.Store.Suspension(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, ErrNoSuspension)
	}
	return s, nil
}

// Suspensions lists a device's suspension requests, oldest first.
func (e *Engine) Suspensions(deviceID string) ([]*store.Suspension, error) {
	all, err := e.cfg.Store.Suspensions()
	if err != nil {
		return nil, err
	}
	out := []*store.Suspension{}
	for _, s := range all {
		if s.DeviceID == deviceID {
			out = append(out, s)
		}
	}
	return out, nil
}

// ReconcileSuspensions settles what a previous process left pending: unknown, never replayed.
func (e *Engine) ReconcileSuspensions() ([]string, error) {
	all, err := e.cfg.Store.Suspensions()
	if err != nil {
		return nil, err
	}
	var settled []string
	for _, s := range all {
		if s.State != suspend.StatePending {
			continue
		}
		s.State, s.ErrorCode, s.Detail = suspend.StateUnknown, suspend.CodeUnconfirmed, "Core restarted before the reply"
		if err := e.cfg.Store.PutSuspension(s); err != nil {
			return settled, err
		}
		settled = append(settled, s.ID)
	}
	return settled, nil
}

// suspensionsIdle reports whether every suspension request waits with nothing on its way to it.
func (e *Engine) suspensionsIdle() bool {
	e.su.mu.Lock()
	rs := make([]*suRunner, 0, len(e.su.runners))
	for _, r := range e.su.runners {
		rs = append(rs, r)
	}
	e.su.mu.Unlock()
	for _, r := range rs {
		if !r.idle() {
			return false
		}
	}
	return true
}

// suRunner executes one suspension request: the decisions are package suspend's.
type suRunner struct {
	e       *Engine
	conn    WorkspaceConn
	rec     *store.Suspension
	slot    uint64 // the key its outstanding count is kept under (the connection's ID)
	state   suspend.State
	log     *slog.Logger
	stopped chan struct{}

	mu     sync.Mutex // guards what idle reads
	parked bool
	res    Stream
	taken  uint64

	trace opTrace // its frames carry the request's trace (tracing.go)
}

func (r *suRunner) loop() {
	defer close(r.stopped)
	r.trace = startOp("", SpanSuspension, attribute.String(AttrOpID, r.rec.ID), attribute.String(AttrOpKind, r.rec.Kind),
		attribute.String(AttrDeviceID, r.rec.DeviceID), attribute.Int64(AttrConnection, int64(r.conn.ID())))
	defer func() {
		st := r.rec.State
		r.trace.end(st, r.rec.ErrorCode, st != suspend.StateAccepted && st != suspend.StatePending)
	}()
	defer r.closeStream()
	r.feed(suspend.Begin{})
	for !r.state.Done() {
		r.park(true)
		select {
		case <-r.e.ctx.Done():
			r.park(false)
			return // Core is stopping: the record stays pending for ReconcileSuspensions
		case ev, ok := <-events(r.res):
			r.took()
			r.park(false)
			if !ok {
				r.feed(suspend.Closed{Err: r.res.Err()})
				continue
			}
			r.journal(store.Event{Kind: store.EventReceived, Type: ev.Envelope.Type, ID: ev.Envelope.ID, Payload: ev.Envelope.Payload})
			reply := suspend.Reply{Raw: ev.Envelope.Payload, Invalid: ev.Invalid}
			if ev.Frame != nil {
				reply.Payload, _ = ev.Frame.Payload.(*proto.EnvironmentSuspendResultPayload)
			}
			r.feed(reply)
		}
	}
}

func (r *suRunner) feed(ev suspend.Event) {
	for ev != nil {
		next, effects := suspend.Step(r.state, ev)
		r.state, ev = next, nil
		for _, eff := range effects {
			if failure := r.apply(eff); failure != nil {
				ev = failure
				break
			}
		}
	}
}

func (r *suRunner) apply(eff suspend.Effect) suspend.Event {
	switch e := eff.(type) {
	case suspend.Await:
		s, err := r.conn.AwaitWorkspace(e.Type, e.ID)
		if err != nil {
			return suspend.SendFailed{Err: err}
		}
		r.mu.Lock()
		r.res, r.taken = s, 0
		r.mu.Unlock()
	case suspend.Send:
		return r.send(e.Envelope)
	case suspend.Finish:
		r.finish(e.Outcome)
	}
	return nil
}

func (r *suRunner) send(env proto.Envelope) suspend.Event {
	env = r.trace.stamp(env)
	err := r.e.sendWithin(r.conn.Send, env, proto.CoreSendTimeout)
	r.trace.sent(env, err)
	if err != nil {
		r.journal(store.Event{Kind: store.EventNote, Type: env.Type, ID: env.ID, Note: "send failed: " + err.Error()})
		return suspend.SendFailed{Err: err}
	}
	r.journal(store.Event{Kind: store.EventSent, Type: env.Type, ID: env.ID, Payload: env.Payload})
	return nil
}

func (r *suRunner) journal(ev store.Event) {
	if _, err := r.e.cfg.Store.Append("suspension/"+r.rec.DeviceID, ev); err != nil {
		r.log.Error("journal append failed", "error", err)
	}
}

// finish records the outcome, frees the connection's slot and, when the fence lifted, claims
// the device's queued Turns.
func (r *suRunner) finish(o suspend.Outcome) {
	rec := *r.rec
	rec.State, rec.ErrorCode, rec.Detail = o.State, o.ErrorCode, o.Detail
	if err := r.e.cfg.Store.PutSuspension(&rec); err != nil {
		r.log.Error("recording the suspension outcome failed", "error", err)
	}
	r.rec = &rec
	r.journal(store.Event{Kind: store.EventNote, Type: rec.Kind, ID: rec.ID, Note: "suspension " + rec.Kind + " " + o.State + " " + o.ErrorCode + " " + o.Detail})
	r.e.su.mu.Lock()
	if !mutation.On(mutation.SUAnsweredStillCounts) {
		r.e.su.outstanding[r.slot]--
		if r.e.su.outstanding[r.slot] <= 0 {
			delete(r.e.su.outstanding, r.slot)
		}
	}
	r.e.su.mu.Unlock()
	r.log.Info("suspension request settled", "state", o.State, "error_code", o.ErrorCode, "detail", o.Detail)
	if suspended, _ := r.e.Suspended(rec.DeviceID); !suspended {
		r.e.wakeDevice(rec.DeviceID)
	}
	r.e.cfg.OnChange("")
}

func (r *suRunner) park(p bool) {
	r.mu.Lock()
	r.parked = p
	r.mu.Unlock()
	if p {
		r.e.parkedChanged()
	}
}

func (r *suRunner) took() {
	r.mu.Lock()
	r.taken++
	r.mu.Unlock()
}

func (r *suRunner) closeStream() {
	r.mu.Lock()
	s := r.res
	r.res = nil
	r.mu.Unlock()
	if s != nil {
		s.Close()
	}
}

// idle: as a workspace runner's.
func (r *suRunner) idle() bool {
	select {
	case <-r.stopped:
		return true
	default:
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.parked && (r.res == nil || r.res.Delivered() == r.taken)
}
