package execution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/envprep"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// PrepareConn is a new daemon connection as the preparation uses it.
type PrepareConn interface {
	ID() uint64
	DeviceID() string
	Send(ctx context.Context, env proto.Envelope) error
	AwaitTransfer(transferID string) (Stream, error)
}

// connPrep is where the preparation of a device's latest connection stands.
type connPrep struct {
	conn  uint64
	state string
	// binding is the (environment_id, session_id) the connection's preparation named: what the
	// Runtime is bound to from then on (zero when nothing was prepared).
	binding binding
}

type binding struct{ environmentID, sessionID string }

// environments holds, per device, the preparation of its latest connection, and every preparer
// still running (Quiesce counts them as it counts runners).
type environments struct {
	mu        sync.Mutex
	byDevice  map[string]connPrep
	preparers map[*preparer]struct{}
	built     map[string]built // by device
}

// built is a device's preparation as sent, at one revision: its bodies read and hashed once, not
// on every connection (a 50 MiB body cost a reconnect more than the transfer's sends did).
type built struct {
	revision uint64
	prep     *store.Preparation
	ops      []envprep.Op // read only: the machines slice chunks out of the bodies
}

// preparationOps returns the device's preparation and the operations it sends, built once per
// revision. A preparation Build refuses is an error (the API validated it: the store changed).
func (e *Engine) preparationOps(deviceID string) (*store.Preparation, []envprep.Op, error) {
	head, err := e.cfg.Store.PreparationHead(deviceID)
	if err != nil || head == nil {
		return nil, nil, err
	}
	e.env.mu.Lock()
	b, ok := e.env.built[deviceID]
	e.env.mu.Unlock()
	if ok && b.revision == head.Revision {
		return b.prep, b.ops, nil
	}
	p, err := e.cfg.Store.Preparation(deviceID)
	if err != nil || p == nil {
		return nil, nil, err
	}
	ops, err := envprep.Build(p)
	if err != nil {
		return p, nil, err
	}
	e.env.mu.Lock()
	if e.env.built == nil {
		e.env.built = map[string]built{}
	}
	e.env.built[deviceID] = built{revision: p.Revision, prep: p, ops: ops}
	e.env.mu.Unlock()
	return p, ops, nil
}

// PrimePreparation records the operations of a preparation the API has just stored (p.Revision
// set by the store, ops built from p), so the device's next connection sends them without reading
// and hashing the bodies again: the API built them once to validate. The caller must not change p
// or the bodies afterwards. A nil p forgets the device's operations. A revision older than the one
// already built is ignored: two racing stores leave the newer.
func (e *Engine) PrimePreparation(deviceID string, p *store.Preparation, ops []envprep.Op) {
	e.env.mu.Lock()
	defer e.env.mu.Unlock()
	if p == nil {
		delete(e.env.built, deviceID)
		return
	}
	if b, ok := e.env.built[deviceID]; ok && b.revision >= p.Revision {
		return
	}
	if e.env.built == nil {
		e.env.built = map[string]built{}
	}
	e.env.built[deviceID] = built{revision: p.Revision, prep: p, ops: ops}
}

// PrepareConnection runs the device's Environment preparation on a new connection, before the
// connection is registered: the device's Turns find the connection only once this is recorded,
// and are claimed on it only once its preparation completed (a device with no preparation
// configured is ready at once, and nothing is sent). The preparation runs in its own goroutine.
func (e *Engine) PrepareConnection(c PrepareConn) {
	p, ops, err := e.preparationOps(c.DeviceID())
	state := store.PreparationNone
	if err != nil {
		e.log.Error("the device's preparation cannot be sent: nothing is admitted on this connection", "device_id", c.DeviceID(), "error", err)
		state = store.PreparationUnknown
	} else if len(ops) > 0 {
		state = store.PreparationRunning
		if e.preparedBefore(c.DeviceID()) {
			state = store.PreparationCompleted
		}
	}
	cp := connPrep{conn: c.ID(), state: state}
	if p != nil {
		cp.binding = binding{p.EnvironmentID, p.SessionID}
	}
	e.setConnPrep(c.DeviceID(), cp)
	if state != store.PreparationRunning {
		return
	}
	pr := &preparer{e: e, conn: c, state: envprep.New(ops), stopped: make(chan struct{}),
		result: store.PreparationResult{RunID: NewID(), Connection: c.ID(), State: store.PreparationRunning, StartedAt: e.cfg.Clock.Now().UTC()},
		log:    e.log.With("device_id", c.DeviceID(), "connection", c.ID())}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.wg.Add(1)
	e.mu.Unlock()
	e.env.mu.Lock()
	e.env.preparers[pr] = struct{}{}
	e.env.mu.Unlock()
	go func() {
		defer e.wg.Done()
		defer func() {
			e.env.mu.Lock()
			delete(e.env.preparers, pr)
			e.env.mu.Unlock()
			e.parkedChanged()
		}()
		pr.loop()
	}()
}

func (e *Engine) setConnPrep(deviceID string, cp connPrep) {
	e.env.mu.Lock()
	if e.env.byDevice == nil {
		e.env.byDevice = map[string]connPrep{}
	}
	e.env.byDevice[deviceID] = cp
	e.env.mu.Unlock()
}

// endConnPrep records how a connection's preparation ended, unless a newer connection of the
// device has replaced it meanwhile (its own preparation decides then).
func (e *Engine) endConnPrep(deviceID string, cp connPrep) {
	e.env.mu.Lock()
	if old := e.env.byDevice[deviceID]; old.conn == cp.conn {
		cp.binding = old.binding
		e.env.byDevice[deviceID] = cp
	}
	e.env.mu.Unlock()
}

// preparedOn says whether work may be claimed on conn: its preparation completed, or none was
// configured. A connection the gateway never announced (tests' fakes) has nothing to wait for.
func (e *Engine) preparedOn(deviceID string, conn Conn) (ok bool, state string) {
	// A suspension attempt fences the device: no work until an accepted resume ends it.
	if suspended, attempt := e.Suspended(deviceID); suspended && !mutation.On(mutation.SuspendedAdmitsWork) {
		return false, "suspended by " + attempt
	}
	idc, hasID := conn.(interface{ ID() uint64 })
	if !hasID {
		return true, ""
	}
	e.env.mu.Lock()
	cp, known := e.env.byDevice[deviceID]
	e.env.mu.Unlock()
	if !known || cp.conn != idc.ID() {
		return true, ""
	}
	return cp.state == store.PreparationCompleted || cp.state == store.PreparationNone, cp.state
}

// boundSession is the session_id the device's live connection was prepared with for the
// Environment environmentID, if any.
func (e *Engine) boundSession(deviceID, environmentID string) (string, bool) {
	e.env.mu.Lock()
	defer e.env.mu.Unlock()
	b := e.env.byDevice[deviceID].binding
	return b.sessionID, b.environmentID != "" && b.environmentID == environmentID
}

// preparersIdle reports whether every preparer waits with nothing on its way to it.
func (e *Engine) preparersIdle() bool {
	e.env.mu.Lock()
	all := make([]*preparer, 0, len(e.env.preparers))
	for p := range e.env.preparers {
		all = append(all, p)
	}
	e.env.mu.Unlock()
	for _, p := range all {
		if !p.idle() {
			return false
		}
	}
	return true
}

// wakeDevice claims the device's queued Turns now instead of at their next retry: its
// connection has just become ready for work.
func (e *Engine) wakeDevice(deviceID string) {
	e.mu.Lock()
	var rs []*runner
	for _, r := range e.runners {
		if r.deviceID == deviceID {
			rs = append(rs, r)
		}
	}
	e.mu.Unlock()
	for _, r := range rs {
		r.requests.Add(1)
		select {
		case r.wake <- struct{}{}:
		default: // a wake is already pending
			r.requests.Add(-1)
		}
	}
}

// preparer executes one connection's preparation: the decisions are envprep's; it owns the
// receipt route, the exchange timer, the sends and the records.
type preparer struct {
	e      *Engine
	conn   PrepareConn
	log    *slog.Logger
	state  envprep.State
	result store.PreparationResult
	done   bool

	stopped chan struct{}
	mu      sync.Mutex // guards what idle reads
	parked  bool
	waiter  Stream
	taken   uint64
	timer   clock.Timer
	due     time.Time

	ahead *encodedChunk // the next chunk's frame, encoded while the Runtime works on this one
	trace opTrace       // its frames carry the preparation's trace (tracing.go)
}

func (p *preparer) loop() {
	defer close(p.stopped)
	p.trace = startOp("", SpanPreparation, attribute.String(AttrOpID, p.result.RunID),
		attribute.String(AttrDeviceID, p.conn.DeviceID()), attribute.Int64(AttrConnection, int64(p.conn.ID())))
	defer func() {
		r := p.result
		p.trace.end(r.State, r.ErrorCode, r.State != store.PreparationCompleted && r.State != store.PreparationRunning)
	}()
	defer p.release()
	defer p.ahead.wait()
	p.feed(envprep.Start{})
	for !p.done {
		p.park(true)
		select {
		case <-p.e.ctx.Done():
			p.park(false)
			return // Core is stopping: the result stays as last recorded
		case ev, ok := <-events(p.waiter):
			p.took()
			p.park(false)
			if !ok {
				p.feed(envprep.Closed{Err: p.waiter.Err()})
				continue
			}
			p.onReceipt(ev)
		case <-timerC(p.timer):
			p.park(false)
			p.setTimer(nil, time.Time{})
			p.feed(envprep.Deadline{})
		}
	}
}

// onReceipt journals a receipt, then steps it.
func (p *preparer) onReceipt(ev gateway.Event) {
	note := ""
	if ev.Invalid != nil {
		note = "invalid: " + ev.Invalid.Error()
	}
	if !bulkReceived(ev) && !p.journal(store.Event{Kind: store.EventReceived, Type: ev.Envelope.Type, ID: ev.Envelope.ID, Payload: ev.Envelope.Payload, Note: note}) {
		p.feed(envprep.SendFailed{Err: errors.New("the receipt could not be journalled")})
		return
	}
	r := envprep.Receipt{Invalid: ev.Invalid}
	if ev.Invalid != nil && mutation.On(mutation.RPCoreUndecodableReceiptIgnored) {
		return // awaited on
	}
	if ev.Invalid != nil {
		if lax := laxReceipt(ev.Envelope.Payload, p.state.Phase); lax != nil {
			r = envprep.Receipt{Payload: lax}
		}
	}
	if ev.Invalid != nil && mutation.On(mutation.PrepareUnlistedCodeRejected) {
		// The mutant reads a rejected receipt's code whatever it is (the machine takes it from there).
		var raw proto.RuntimePrepareResultPayload
		if json.Unmarshal(ev.Envelope.Payload, &raw) == nil && raw.Outcome == proto.OutcomeRejected {
			r = envprep.Receipt{Payload: &raw}
		}
	}
	if ev.Invalid == nil {
		r.Payload, _ = ev.Frame.Payload.(*proto.RuntimePrepareResultPayload)
		if r.Payload == nil {
			r.Invalid = errors.New("not a runtime_prepare_result payload")
		}
	}
	p.feed(r)
}

// feed steps an event and carries out the effects in order. A failed effect ends the step (the
// effects after it are not carried out) and its failure is stepped next.
func (p *preparer) feed(ev envprep.Event) {
	for ev != nil && !p.done {
		next, effects, err := envprep.Step(p.state, ev)
		if err != nil {
			p.log.Error("the preparation refused an event", "error", err)
			return
		}
		p.state = next
		ev = nil
		for _, eff := range effects {
			answer, failure := p.apply(eff)
			if failure != nil {
				ev = failure
				break
			}
			if answer != nil {
				ev = answer
			}
		}
	}
}

func (p *preparer) apply(eff envprep.Effect) (answer, failure envprep.Event) {
	switch e := eff.(type) {
	case envprep.NewTransferID:
		return envprep.TransferIDIssued{ID: p.transferID()}, nil
	case envprep.Progress:
		p.result.Operation, p.result.TransferID = e.Operation, p.state.Transfer
		p.record()
	case envprep.Await:
		w, err := p.conn.AwaitTransfer(e.TransferID)
		if err != nil {
			return nil, envprep.SendFailed{Err: err}
		}
		p.setWaiter(w)
	case envprep.Release:
		if p.waiter != nil {
			p.waiter.Close()
		}
		p.setWaiter(nil)
	case envprep.Send:
		if e.Chunk != nil {
			return nil, p.sendChunk(*e.Chunk)
		}
		return nil, p.send(e.Envelope)
	case envprep.Arm:
		now := p.e.cfg.Clock.Now()
		p.setTimer(p.e.cfg.Clock.NewTimer(e.After), now.Add(e.After))
	case envprep.Disarm:
		p.setTimer(nil, time.Time{})
	case envprep.Finish:
		p.finish(e.Result)
	}
	return nil, nil
}

// send queues a frame within Core's per-send timeout and journals it, unless it is a bulk step
// (bulk.go).
func (p *preparer) send(env proto.Envelope) envprep.Event {
	env = p.trace.stamp(env)
	err := p.e.sendWithin(p.conn.Send, env, proto.CoreSendTimeout)
	if !bulkSent(env) {
		p.trace.sent(env, err)
	}
	if err != nil {
		p.journal(store.Event{Kind: store.EventNote, Type: env.Type, ID: env.ID, Note: "send failed: " + err.Error()})
		return envprep.SendFailed{Err: err}
	}
	if bulkSent(env) {
		return nil
	}
	if !p.journal(store.Event{Kind: store.EventSent, Type: env.Type, ID: env.ID, Payload: env.Payload}) {
		return envprep.SendFailed{Err: errors.New("the frame sent could not be journalled")}
	}
	return nil
}

// sendChunk sends a chunk, encoded ahead if it is the one predicted, and starts encoding the
// chunk that follows it. A stop-and-wait transfer leaves one side idle at a time: encoding the
// next chunk while the Runtime decodes, stages and confirms this one takes Core's costliest step
// off the critical path (docs/performance.md, "Bulk transfers").
func (p *preparer) sendChunk(c envprep.Chunk) envprep.Event {
	f := p.ahead.take(c)
	p.ahead = nil
	if f == nil {
		f = encodeChunk(c, p.trace.traceparent)
	}
	if f.err != nil {
		return envprep.SendFailed{Err: f.err}
	}
	send := p.conn.Send
	if fs, ok := p.conn.(frameSender); ok {
		send = func(ctx context.Context, env proto.Envelope) error { return fs.SendFrame(ctx, env, f.raw) }
	}
	if err := p.e.sendWithin(send, f.env, proto.CoreSendTimeout); err != nil {
		p.journal(store.Event{Kind: store.EventNote, Type: f.env.Type, ID: f.env.ID, Note: "send failed: " + err.Error()})
		return envprep.SendFailed{Err: err}
	}
	if next, ok := p.state.NextChunk(); ok {
		p.ahead = encodeAhead(next, p.trace.traceparent)
	}
	return nil // a bulk step: not journalled (bulk.go)
}

// frameSender queues a frame already encoded (gateway.Session); raw is env.Encode()'s result.
type frameSender interface {
	SendFrame(ctx context.Context, env proto.Envelope, raw []byte) error
}

// encodedChunk is a chunk's frame, encoded on its own goroutine until done is closed.
type encodedChunk struct {
	chunk envprep.Chunk
	env   proto.Envelope
	raw   []byte
	err   error
	done  chan struct{}
}

// encodeChunk encodes a chunk's frame, carrying trace (a traceparent; empty: none).
func encodeChunk(c envprep.Chunk, trace string) *encodedChunk {
	f := &encodedChunk{chunk: c}
	f.env, f.raw, f.err = c.Frame(trace)
	return f
}

func encodeAhead(c envprep.Chunk, trace string) *encodedChunk {
	f := &encodedChunk{chunk: c, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		e := encodeChunk(c, trace)
		f.env, f.raw, f.err = e.env, e.raw, e.err
	}()
	return f
}

// take returns the encoded frame if it is c's (the same bytes of the same transfer), else nil.
func (f *encodedChunk) take(c envprep.Chunk) *encodedChunk {
	if f == nil {
		return nil
	}
	f.wait()
	same := f.chunk.TransferID == c.TransferID && f.chunk.Offset == c.Offset && len(f.chunk.Data) == len(c.Data) &&
		(len(c.Data) == 0 || &f.chunk.Data[0] == &c.Data[0])
	if !same {
		return nil
	}
	return f
}

// wait returns once the encoding is over: a preparer leaves no goroutine behind.
func (f *encodedChunk) wait() {
	if f != nil && f.done != nil {
		<-f.done
	}
}

func (p *preparer) journal(ev store.Event) bool {
	if _, err := p.e.cfg.Store.Append(p.result.JournalKey(), ev); err != nil {
		p.log.Error("journal append failed", "error", err)
		return false
	}
	return true
}

// record writes the result as it stands; it is what the API shows for this connection.
func (p *preparer) record() {
	if err := p.e.cfg.Store.PutPreparationResult(p.conn.DeviceID(), p.result); err != nil {
		p.log.Error("recording the preparation result failed", "error", err)
	}
	p.e.cfg.OnChange("")
}

// finish records the result, opens the connection to work when every operation completed, and
// stops the preparer: nothing more is sent for it (RP-16).
func (p *preparer) finish(r store.PreparationResult) {
	p.done = true
	r.RunID, r.Connection, r.StartedAt = p.result.RunID, p.result.Connection, p.result.StartedAt
	r.EndedAt = p.e.cfg.Clock.Now().UTC()
	p.result = r
	p.journal(store.Event{Kind: store.EventNote, Note: fmt.Sprintf("preparation %s at operation %d: %s %s %s", r.State, r.Operation, r.Outcome, r.ErrorCode, r.Detail)})
	p.e.endConnPrep(p.conn.DeviceID(), connPrep{conn: p.conn.ID(), state: r.State})
	p.record()
	p.log.Info("environment preparation ended", "state", r.State, "operation", r.Operation, "error_code", r.ErrorCode)
	if r.State == store.PreparationCompleted {
		p.e.wakeDevice(p.conn.DeviceID())
	}
}

func (p *preparer) park(v bool) {
	p.mu.Lock()
	p.parked = v
	p.mu.Unlock()
	if v {
		p.e.parkedChanged()
	}
}

func (p *preparer) took() {
	p.mu.Lock()
	p.taken++
	p.mu.Unlock()
}

func (p *preparer) setWaiter(w Stream) {
	p.mu.Lock()
	p.waiter, p.taken = w, 0
	p.mu.Unlock()
}

func (p *preparer) setTimer(t clock.Timer, due time.Time) {
	p.mu.Lock()
	old := p.timer
	p.timer, p.due = t, due
	p.mu.Unlock()
	if old != nil {
		old.Stop()
	}
}

// idle: parked, every receipt routed to it taken, and its timer not due (see runner.idle).
func (p *preparer) idle() bool {
	select {
	case <-p.stopped:
		return true
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.parked {
		return false
	}
	if p.waiter != nil && p.waiter.Delivered() != p.taken {
		return false
	}
	return p.timer == nil || p.e.cfg.Clock.Now().Before(p.due)
}

// release frees the transfer route and the timer when the preparer stops.
func (p *preparer) release() {
	if p.waiter != nil {
		p.waiter.Close()
	}
	p.setWaiter(nil)
	p.setTimer(nil, time.Time{})
}
