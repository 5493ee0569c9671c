package load

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// writeTimeout bounds one frame's write, as a daemon's per-frame deadline (protocol-facts §1.7).
const writeTimeout = 10 * time.Second

// admissionTTL is the admission deadline a simulated Runtime grants: the protocol's maximum.
const admissionTTL = 5 * time.Minute

// counters are the simulator's totals, read by the report.
type counters struct {
	reconnects, connectErrors, heartbeats, heartbeatErrors, writeErrors atomic.Int64
	unexpected, rejected, withheld, duplicateStarts                     atomic.Int64
}

// fleet is what every simulated Runtime shares: the client, the heartbeat wheel, the script
// cache, the record of Runs and the hooks of the driver.
type fleet struct {
	ctx     context.Context
	client  transport.Client
	kinds   []byte // the supported_agent_kinds of every heartbeat, encoded once
	scripts scripts
	runs    *runBook
	wheel   *wheel
	connSem chan struct{} // bounds concurrent bootstraps and dials
	coreURL string
	n       counters
	// onHold is told when a Turn that waits for cancellation started; lose says whether the
	// cancellation receipt of a Run is withheld.
	onHold func(runID string)
	lose   func(runID string) bool
	// dropped, when set, sees every connection end the driver did not cause.
	seq atomic.Int64 // handles and executor IDs
}

// simRuntime is one simulated Runtime: one connection at a time, one reader goroutine.
type simRuntime struct {
	f  *fleet
	id transport.Identity

	mu     sync.Mutex
	ws     *websocket.Conn
	gen    int                   // connection generation: a timer of an older one does nothing
	adms   map[string]*admission // by execution_prepare request ID
	active int                   // Runs started and not ended
}

// admission is one execution admission and, once started, its Run.
type admission struct {
	prepareID, handle, executor, runID string
	rev                                uint64
	s                                  *script
	next                               int // the next script step
	deltas                             uint64
	rec                                *runRecord
	waiting, ended                     bool
	timer                              *time.Timer
}

// connect bootstraps and dials, then sends the first heartbeat at once (protocol-facts §1.5).
func (r *simRuntime) connect(ctx context.Context) (*websocket.Conn, error) {
	select {
	case r.f.connSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-r.f.connSem }()
	bctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	boot, err := r.f.client.Bootstrap(bctx, r.f.serverURL(), r.id)
	if err != nil {
		return nil, fmt.Errorf("bootstrap of %s: %w", r.id.DeviceID, err)
	}
	if err := checkLoopback(boot.WSURL); err != nil {
		return nil, fmt.Errorf("bootstrap of %s: ws_url: %w", r.id.DeviceID, err)
	}
	r.f.wheel.start(time.Duration(boot.HeartbeatSeconds) * time.Second)
	ws, err := r.f.client.Dial(bctx, boot.WSURL, r.id)
	if err != nil {
		return nil, fmt.Errorf("dial of %s: %w", r.id.DeviceID, err)
	}
	r.mu.Lock()
	r.ws = ws
	r.gen++
	r.adms = make(map[string]*admission)
	r.mu.Unlock()
	if err := r.heartbeat(); err != nil {
		_ = ws.CloseNow()
		return nil, fmt.Errorf("first heartbeat of %s: %w", r.id.DeviceID, err)
	}
	return ws, nil
}

// loop keeps the Runtime connected until ctx ends: a connection the storm (or the Core) closes
// is bootstrapped and dialled again at once. first gets the first attempt's result.
func (r *simRuntime) loop(ctx context.Context, first chan<- error) {
	ws, err := r.connect(ctx)
	first <- err
	if err != nil {
		return
	}
	for {
		r.serve(ctx, ws)
		r.drop()
		if ctx.Err() != nil {
			return
		}
		r.f.n.reconnects.Add(1)
		for {
			if ws, err = r.connect(ctx); err == nil {
				break
			}
			r.f.n.connectErrors.Add(1)
			select { // a refused reconnect waits a little before the next attempt
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}
}

func (r *simRuntime) serve(ctx context.Context, ws *websocket.Conn) {
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			_ = ws.CloseNow()
			return
		}
		var env proto.Envelope
		if err := json.Unmarshal(data, &env); err != nil {
			r.f.n.unexpected.Add(1)
			continue
		}
		r.handle(env, time.Now())
	}
}

// kick closes the current connection (a reconnect storm); the reader reconnects.
func (r *simRuntime) kick() {
	r.mu.Lock()
	ws := r.ws
	r.mu.Unlock()
	if ws != nil {
		_ = ws.CloseNow()
	}
}

// drop forgets a closed connection's admissions: reconnection never replays anything.
func (r *simRuntime) drop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.adms {
		a.ended = true
		if a.timer != nil {
			a.timer.Stop()
		}
	}
	r.adms, r.ws, r.active = nil, nil, 0
	r.gen++
}

func (r *simRuntime) heartbeat() error {
	r.mu.Lock()
	ws, active := r.ws, r.active
	r.mu.Unlock()
	if ws == nil {
		return nil
	}
	frame := make([]byte, 0, 96+len(r.f.kinds))
	frame = append(frame, `{"type":"heartbeat","payload":{"ts":`...)
	frame = strconv.AppendInt(frame, time.Now().Unix(), 10)
	frame = append(frame, `,"active_requests":`...)
	frame = strconv.AppendInt(frame, int64(active), 10)
	frame = append(frame, `,"daemon_version":"wirecheck-load","supported_agent_kinds":`...)
	frame = append(frame, r.f.kinds...)
	frame = append(frame, "}}"...)
	r.f.n.heartbeats.Add(1)
	if err := write(ws, frame); err != nil {
		r.f.n.heartbeatErrors.Add(1)
		return err
	}
	return nil
}

func write(ws *websocket.Conn, frame []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return ws.Write(ctx, websocket.MessageText, frame)
}

// send writes one frame on the current connection; r.mu is held, so a Run's frames keep their
// order whichever goroutine (reader or step timer) sends them.
func (r *simRuntime) send(typ, id string, payload any) bool {
	if r.ws == nil {
		return false
	}
	raw, err := proto.MustEnvelope(typ, id, payload).Encode()
	if err == nil {
		err = write(r.ws, raw)
	}
	if err != nil {
		r.f.n.writeErrors.Add(1)
		return false
	}
	return true
}

func (r *simRuntime) handle(env proto.Envelope, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch env.Type {
	case proto.TypeExecutionPrepare:
		r.prepare(env)
	case proto.TypeExecutionStart:
		r.start(env, at)
	case proto.TypeExecutionRelease:
		r.release(env)
	case proto.TypePromptCancel:
		r.cancel(env)
	default:
		r.f.n.unexpected.Add(1)
	}
}

func (r *simRuntime) status(a *admission, state, code string) {
	st := &proto.PreparationStatusPayload{ExecutorID: a.executor, Handle: a.handle, Revision: a.rev, State: state,
		ExpiresAt: time.Now().Add(admissionTTL).UnixMilli(), RunID: a.runID, ErrorCode: code}
	r.send(proto.TypePreparationStatus, a.prepareID, st)
}

func (r *simRuntime) reject(id, operation, code string) {
	r.f.n.rejected.Add(1)
	r.send(proto.TypePreparationStatus, id, &proto.PreparationStatusPayload{State: proto.StateRejected, ErrorCode: code, Operation: operation})
}

// prepare grants a fresh Executor: preparing(1) then ready(2). A repeated request ID re-publishes.
func (r *simRuntime) prepare(env proto.Envelope) {
	if a, ok := r.adms[env.ID]; ok {
		r.republish(a)
		return
	}
	var p proto.ExecutionPreparePayload
	if env.ID == "" || json.Unmarshal(env.Payload, &p) != nil || p.SessionID == "" {
		r.reject(env.ID, proto.TypeExecutionPrepare, "invalid_request")
		return
	}
	s, err := r.f.scripts.parse(p.Configuration.AgentOptions)
	if err != nil {
		r.reject(env.ID, proto.TypeExecutionPrepare, "invalid_configuration")
		return
	}
	n := strconv.FormatInt(r.f.seq.Add(1), 36)
	a := &admission{prepareID: env.ID, handle: "h" + n, executor: "e" + n, s: s}
	r.adms[env.ID] = a
	a.rev = 1
	r.status(a, proto.StatePreparing, "")
	a.rev = 2
	r.status(a, proto.StateReady, "")
}

func (r *simRuntime) republish(a *admission) {
	switch {
	case a.runID != "":
		r.status(a, proto.StateStarted, "")
	default:
		r.status(a, proto.StateReady, "")
	}
}

// start hands the admission to the Run: starting(3), started(4), then the script's events.
func (r *simRuntime) start(env proto.Envelope, at time.Time) {
	var p proto.ExecutionStartPayload
	if json.Unmarshal(env.Payload, &p) != nil || p.Handle == "" || p.ExecutorID == "" || p.RunID == "" {
		r.reject(env.ID, proto.TypeExecutionStart, "invalid_start")
		return
	}
	a, ok := r.adms[env.ID]
	switch {
	case !ok || a.handle != p.Handle:
		r.reject(env.ID, proto.TypeExecutionStart, "unknown_preparation")
		return
	case a.executor != p.ExecutorID:
		r.reject(env.ID, proto.TypeExecutionStart, "unknown_executor")
		return
	case a.runID == p.RunID:
		r.republish(a)
		return
	case a.runID != "" || a.ended:
		r.reject(env.ID, proto.TypeExecutionStart, "start_conflict")
		return
	}
	a.runID = p.RunID
	a.rec = r.f.runs.started(p.RunID, at)
	if a.rec.execs.Load() > 1 {
		r.f.n.duplicateStarts.Add(1)
	}
	r.active++
	a.rev = 3
	r.status(a, proto.StateStarting, "")
	a.rev = 4
	r.status(a, proto.StateStarted, "")
	r.advance(a)
}

// advance plays the script from a.next until a delay, the wait for cancellation, or the done.
func (r *simRuntime) advance(a *admission) {
	for a.next < len(a.s.steps) {
		st := a.s.steps[a.next]
		a.next++
		if st.typ == "" {
			if st.delay > 0 {
				gen := r.gen
				a.timer = time.AfterFunc(st.delay, func() {
					r.mu.Lock()
					defer r.mu.Unlock()
					if r.gen == gen && !a.ended {
						r.advance(a)
					}
				})
				return
			}
			continue
		}
		var payload any = st.payload
		if st.typ == proto.TypeDelta {
			a.deltas++
			payload = &proto.DeltaPayload{Delta: st.text, Sequence: a.deltas}
		}
		if !r.send(st.typ, a.runID, payload) {
			return
		}
		a.rec.wrote1(time.Now())
	}
	if a.s.waitForCancel {
		if !a.waiting {
			a.waiting = true
			if r.f.onHold != nil {
				r.f.onHold(a.runID)
			}
		}
		return
	}
	r.end(a, json.RawMessage(a.s.done))
}

func (r *simRuntime) end(a *admission, done json.RawMessage) {
	a.ended = true
	r.active--
	delete(r.adms, a.prepareID)
	if r.send(proto.TypeDone, a.runID, done) {
		a.rec.wrote1(time.Now())
	}
}

func (r *simRuntime) release(env proto.Envelope) {
	a, ok := r.adms[env.ID]
	if !ok {
		r.reject(env.ID, proto.TypeExecutionRelease, "unknown_preparation")
		return
	}
	if a.runID != "" {
		r.republish(a) // releasing a started admission does not cancel its Run
		return
	}
	a.ended = true
	a.rev++
	r.status(a, proto.StateReleased, "")
	delete(r.adms, env.ID)
}

// cancel settles a running Run at once: the empty done, then the receipt (contract-harness §4),
// unless the fault schedule withholds this Run's receipt.
func (r *simRuntime) cancel(env proto.Envelope) {
	var p proto.PromptCancelPayload
	if len(env.Payload) > 0 {
		_ = json.Unmarshal(env.Payload, &p)
	}
	var a *admission
	for _, x := range r.adms {
		if x.runID == env.ID && !x.ended {
			a = x
			break
		}
	}
	ack := &proto.InteractionDecisionAckPayload{DeliveryID: p.DeliveryID}
	if a == nil {
		ack.ErrorCode = "run_inactive"
	} else {
		if a.timer != nil {
			a.timer.Stop()
		}
		r.end(a, json.RawMessage(`{"content":""}`))
		if len(a.s.cancelOutcome) > 0 {
			var out proto.DonePayload
			if json.Unmarshal(a.s.cancelOutcome, &out) == nil {
				ack.Applied, ack.Outcome = true, &out
			}
		}
		if !ack.Applied {
			ack.ErrorCode = "cancel_outcome_unavailable"
		}
	}
	if p.DeliveryID == "" {
		return
	}
	if r.f.lose != nil && r.f.lose(env.ID) {
		r.f.n.withheld.Add(1)
		return
	}
	r.send(proto.TypeInteractionDecisionAck, env.ID, ack)
}

func (f *fleet) serverURL() string { return f.coreURL + proto.APIPrefix }
