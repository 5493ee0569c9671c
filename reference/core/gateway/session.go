package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/transport"
)

// Close codes and reasons Core uses.
const (
	closeReplaced        = websocket.StatusPolicyViolation
	closeInvalidFrame    = websocket.StatusPolicyViolation
	closeLiveness        = websocket.StatusPolicyViolation
	reasonReplaced       = "preempted by newer connection from same device_id"
	reasonBadHeartbeat   = "invalid heartbeat: the capability snapshot is cleared"
	reasonLiveness       = "no frame within the liveness timeout"
	reasonGatewayClosing = "core shutting down"
)

// Session is one physical daemon connection: its own routes, capability snapshot, send queue and
// liveness timer. A replaced or closed Session keeps nothing alive.
type Session struct {
	g        *Gateway
	id       uint64
	deviceID string
	ws       *websocket.Conn
	log      *slog.Logger
	clk      clock.Clock

	ctx    context.Context // the connection's lifetime: cancelling it closes the WebSocket
	cancel context.CancelFunc
	queue  chan []byte
	done   chan struct{} // closed once the Session is closed (routes evicted, nothing more delivered)
	wg     sync.WaitGroup

	closeOnce sync.Once
	closeErr  error

	// liveness: the reader re-arms the timer for every inbound frame before dispatching it.
	liveMu   sync.Mutex
	liveT    clock.Timer
	liveKick chan struct{}

	// inbound numbers the frames read (Event.Seq); only the reader touches it.
	inbound uint64

	mu        sync.Mutex
	heartbeat *proto.HeartbeatPayload // nil: no capabilities known
	// legacyHeartbeat: the latest heartbeat carried claude_available (read by a CN-28.4 mutant only).
	legacyHeartbeat bool
	runs            map[string]*RunSubscription
	preps           map[string]*PreparationSubscription
	acks            map[string]*AckWaiter
	// asks routes a permission request's later frames (permission_cancel, whose id is the
	// request_id) to its Run: request_id → Run ID. It lives and dies with the connection.
	asks map[string]string
	// transfer is the runtime_prepare transfer in progress (prepare.go): one at a time.
	transfer *TransferWaiter
	works    map[workKey]*WorkspaceWaiter // workspace results by (type, id): workspace.go
	closed   bool
}

// ID is the connection's generation: unique and increasing within a Gateway.
func (s *Session) ID() uint64 { return s.id }

// DeviceID is the authenticated device.
func (s *Session) DeviceID() string { return s.deviceID }

// Done is closed once the Session is closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err says why the Session closed (nil while open).
func (s *Session) Err() error {
	select {
	case <-s.done:
		return s.closeErr
	default:
		return nil
	}
}

// Capabilities returns the latest valid heartbeat; known is false before the first one and after
// an invalid one. Nothing is ever inferred from legacy members.
func (s *Session) Capabilities() (hb *proto.HeartbeatPayload, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hb := cnInferredSnapshot(s.heartbeat, s.closed, s.legacyHeartbeat); hb != nil {
		return hb, true
	}
	return s.heartbeat, s.heartbeat != nil
}

// Send queues one frame. A nil error proves only that the frame entered the local send queue.
func (s *Session) Send(ctx context.Context, env proto.Envelope) error {
	raw, err := env.Encode()
	if err != nil {
		return err
	}
	return s.SendFrame(ctx, env, raw)
}

// SendFrame is Send of a frame the caller has encoded: raw must be env.Encode()'s result.
func (s *Session) SendFrame(ctx context.Context, env proto.Envelope, raw []byte) error {
	select {
	case <-s.done:
		return ErrSessionClosed
	default:
	}
	s.rememberSent(env, raw)
	select {
	case s.queue <- raw:
		return nil
	default:
	}
	if waiting := QueueWait(ctx); waiting != nil {
		waiting(true)
		defer waiting(false)
	}
	select {
	case s.queue <- raw:
		return nil
	case <-s.done:
		return ErrSessionClosed
	case <-ctx.Done():
		return fmt.Errorf("%w: %v", ErrSendQueueFull, ctx.Err())
	}
}

type queueWaitKey struct{}

// WithQueueWait returns a context whose Sends report a wait for room in the full send queue to
// waiting: true as the wait begins, false as it ends (the frame queued, or the send given up). A
// Send that finds room calls nothing. A sender blocked there waits on the daemon reading or on its
// own send budget, nothing else in Core: Quiesce (package execution) counts it as idle, so a
// virtual clock can move that budget instead of waiting for the sender.
func WithQueueWait(ctx context.Context, waiting func(bool)) context.Context {
	return context.WithValue(ctx, queueWaitKey{}, waiting)
}

// QueueWait is what WithQueueWait put on ctx (nil: nothing): a connection that queues frames on
// its own (a test's) reports its waits to it as Send does.
func QueueWait(ctx context.Context) func(bool) {
	waiting, _ := ctx.Value(queueWaitKey{}).(func(bool))
	return waiting
}

// SubscribeDurable is the only way to observe a Run: subscribe before sending execution_start,
// since output can race the started status.
func (s *Session) SubscribeDurable(runID string) (*RunSubscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	if _, dup := s.runs[runID]; dup {
		return nil, fmt.Errorf("run %s: %w", runID, ErrDuplicate)
	}
	sub := &RunSubscription{RunID: runID}
	sub.s = newStream(proto.RunSubscriptionBuffer, func() { s.removeRun(runID, sub) })
	s.runs[runID] = sub
	return sub, nil
}

// SubscribePreparation observes a preparation request ID: subscribe before sending
// execution_prepare.
func (s *Session) SubscribePreparation(requestID string) (*PreparationSubscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	if _, dup := s.preps[requestID]; dup {
		return nil, fmt.Errorf("preparation %s: %w", requestID, ErrDuplicate)
	}
	if len(s.preps) >= proto.PreparationSubscriptions {
		return nil, ErrTooManySubscriptions
	}
	sub := &PreparationSubscription{RequestID: requestID}
	sub.s = newStream(preparationBuffer(), func() { s.removePrep(requestID, sub) })
	s.preps[requestID] = sub
	return sub, nil
}

// AwaitAck registers a waiter for the receipt of a delivery ID before the request is sent. A
// duplicate pending delivery ID is refused locally.
func (s *Session) AwaitAck(deliveryID string) (*AckWaiter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	if _, dup := s.acks[deliveryID]; dup && !duplicateAckReplaced() {
		return nil, fmt.Errorf("delivery %s: %w", deliveryID, ErrDuplicate)
	}
	w := &AckWaiter{DeliveryID: deliveryID}
	w.s = newStream(1, func() { s.removeAck(deliveryID, w) })
	s.acks[deliveryID] = w
	return w, nil
}

func (s *Session) removeRun(id string, sub *RunSubscription) {
	s.mu.Lock()
	if s.runs[id] == sub {
		delete(s.runs, id)
	}
	s.mu.Unlock()
}

func (s *Session) removePrep(id string, sub *PreparationSubscription) {
	s.mu.Lock()
	if s.preps[id] == sub {
		delete(s.preps, id)
	}
	s.mu.Unlock()
}

func (s *Session) removeAck(id string, w *AckWaiter) {
	s.mu.Lock()
	if s.acks[id] == w {
		delete(s.acks, id)
	}
	s.mu.Unlock()
}

// HasRoute reports whether a Run route exists on this connection (tests, diagnostics).
func (s *Session) HasRoute(runID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.runs[runID]
	return ok
}

// Close closes the transport with a close frame and evicts every route at once.
func (s *Session) Close(code websocket.StatusCode, reason string) {
	s.shutdown(fmt.Errorf("%w: core closed it (%d %s)", ErrSessionClosed, code, reason), code, reason)
}

// shutdown evicts every route with ErrSessionClosed (nothing fabricated), deregisters the Session
// and closes the transport in the background.
func (s *Session) shutdown(why error, code websocket.StatusCode, reason string) {
	s.closeOnce.Do(func() {
		s.closeErr = why
		s.mu.Lock()
		s.closed = true
		s.heartbeat = nil
		runs, preps, acks := s.runs, s.preps, s.acks
		s.runs, s.preps, s.acks = map[string]*RunSubscription{}, map[string]*PreparationSubscription{}, map[string]*AckWaiter{}
		s.asks = map[string]string{}
		transfer := s.takeTransfer()
		works := s.works
		s.works = nil
		s.mu.Unlock()
		if transfer != nil {
			transfer.s.end(ErrSessionClosed)
		}
		endWorkspace(works)
		for _, r := range runs {
			if !cnEndLostRun(r) {
				r.s.end(ErrSessionClosed)
			}
		}
		for _, p := range preps {
			if !cnEndLostPreparation(p) {
				p.s.end(ErrSessionClosed)
			}
		}
		for _, a := range acks {
			a.s.end(ErrSessionClosed)
		}
		close(s.done)
		s.g.registry.deregister(s)
		s.g.notify()
		s.log.Info("daemon connection closed", "reason", why.Error())
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if code != 0 {
				_ = s.ws.Close(code, reason)
			}
			s.cancel()
			_ = s.ws.CloseNow()
		}()
	})
}

// start runs the reader, the writer and the liveness watchdog.
func (s *Session) start() {
	s.wg.Add(3)
	go s.readLoop()
	go s.writeLoop()
	go s.watchLiveness()
}

func (s *Session) wait() { s.wg.Wait() }

func (s *Session) readLoop() {
	defer s.wg.Done()
	in := transport.Reader{Conn: s.ws} // data is reused: dispatch keeps none of it
	for {
		_, data, err := in.Read(s.ctx)
		if err != nil {
			var ce websocket.CloseError
			why := fmt.Errorf("%w: %v", ErrSessionClosed, err)
			if errors.As(err, &ce) {
				why = fmt.Errorf("%w: the daemon closed it (%d %s)", ErrSessionClosed, ce.Code, ce.Reason)
			}
			s.shutdown(why, 0, "")
			return
		}
		if cnRearms(data) {
			s.rearmLiveness()
		}
		s.inbound++
		s.dispatch(data)
	}
}

func (s *Session) writeLoop() {
	defer s.wg.Done()
	for {
		select {
		case raw := <-s.queue:
			if err := s.write(raw); err != nil {
				if mutation.On(mutation.CNFailedWriteSkipped) {
					s.log.Warn("a write failed: the frame is dropped (a mutant)", "error", err)
					continue
				}
				s.shutdown(fmt.Errorf("%w: a write failed: %v", ErrSessionClosed, err), 0, "")
				return
			}
		case <-s.done:
			return
		}
	}
}

// write sends one frame within the per-frame write timeout. The deadline reads the transport
// clock (the wall clock unless a test injects another): a virtual `advance` of the protocol clock
// must not cut a write that has just completed.
func (s *Session) write(raw []byte) error {
	if mutation.On(mutation.CN42WriteDeadlineIgnored) {
		return s.ws.Write(s.ctx, websocket.MessageText, raw)
	}
	ctx, cancel := clock.WithTimeout(s.ctx, s.g.cfg.TransportClock, writeTimeout())
	defer cancel()
	return s.ws.Write(ctx, websocket.MessageText, raw)
}

func (s *Session) rearmLiveness() {
	s.liveMu.Lock()
	s.liveT.Stop()
	s.liveT = s.clk.NewTimer(livenessTimeout())
	s.liveMu.Unlock()
	select {
	case s.liveKick <- struct{}{}:
	default:
	}
}

// watchLiveness closes the Session after LivenessTimeout without any inbound frame.
func (s *Session) watchLiveness() {
	defer s.wg.Done()
	for {
		s.liveMu.Lock()
		t := s.liveT
		s.liveMu.Unlock()
		select {
		case <-t.C():
			s.liveMu.Lock()
			current := s.liveT == t
			s.liveMu.Unlock()
			if current && !mutation.On(mutation.LivenessNeverFires) {
				s.shutdown(fmt.Errorf("%w: no frame within %v", ErrSessionClosed, proto.LivenessTimeout), closeLiveness, reasonLiveness)
				return
			}
		case <-s.liveKick:
		case <-s.done:
			s.liveMu.Lock()
			s.liveT.Stop()
			s.liveMu.Unlock()
			return
		}
	}
}

// dispatch routes one inbound frame. Malformed frames are logged and skipped.
func (s *Session) dispatch(data []byte) {
	env, err := proto.DecodeEnvelope(data)
	if err != nil {
		s.log.Warn("skipping a malformed frame", "error", err)
		if mutation.On(mutation.MalformedFrameCloses) || cnSkipIsFatal(data, nil) {
			s.shutdown(fmt.Errorf("%w: a malformed frame: %v", ErrSessionClosed, err), closeInvalidFrame, "malformed frame")
		}
		return
	}
	spec, known := proto.Lookup(env.Type)
	frame, perr := proto.ParseEnvelope(env)
	switch {
	case env.Type == proto.TypeHeartbeat:
		if perr != nil {
			if hb := lenientHeartbeat(env); hb != nil {
				frame, perr = &proto.Frame{Payload: hb}, nil
			}
		} else if err := cnStrictHeartbeat(env); err != nil {
			frame, perr = nil, err
		}
		s.onHeartbeat(frame, perr, cnLegacyMember(env))
	case known && spec.From != proto.Runtime:
		s.log.Warn("skipping a Core frame sent by the Runtime", "type", env.Type)
	case s.dispatchWorkspace(env, frame, perr):
	case env.Type == proto.TypePreparationStatus:
		if perr != nil {
			frame, perr = lenientStatus(env, perr)
		}
		if perr != nil {
			s.log.Warn("skipping an invalid preparation_status", "id", env.ID, "error", perr)
			return
		}
		s.mu.Lock()
		sub := s.preps[env.ID]
		s.mu.Unlock()
		if sub == nil || !sub.offer(Event{Envelope: env, Frame: frame, Seq: s.inbound}) {
			s.log.Debug("dropping a preparation_status", "id", env.ID)
		}
	case env.Type == proto.TypeRuntimePrepareResult:
		s.routeTransferResult(env, frame, perr)
	case env.Type == proto.TypeInteractionDecisionAck:
		if perr != nil {
			frame, perr = lenientAckBent(env, perr)
		}
		if perr != nil {
			s.log.Warn("skipping an invalid interaction_decision_ack", "id", env.ID, "error", perr)
			return
		}
		ack := frame.Payload.(*proto.InteractionDecisionAckPayload)
		s.mu.Lock()
		w := s.ackRoute(env.ID, ack.DeliveryID)
		s.mu.Unlock()
		if w == nil {
			s.log.Debug("dropping a receipt nobody waits for", "id", env.ID)
			return
		}
		w.s.deliver(Event{Envelope: env, Frame: frame, Seq: s.inbound}, true)
	case env.Type == proto.TypePermissionCancel:
		// Its id is the request_id: the route the request left leads to the Run, once.
		s.mu.Lock()
		sub := s.runs[s.asks[env.ID]]
		if mutation.On(mutation.IACoreCancelRoutedAsRun) {
			sub = s.runs[env.ID]
		}
		delete(s.asks, env.ID)
		s.mu.Unlock()
		if len(env.Payload) == 0 && mutation.On(mutation.IACoreCancelNeedsPayload) {
			sub = nil
		}
		if sub == nil {
			s.log.Debug("dropping a permission_cancel without a route", "id", env.ID)
			return
		}
		sub.s.deliver(Event{Envelope: env, Frame: frame, Invalid: perr, Seq: s.inbound}, false)
	case env.ID != "" && (!known || spec.ID == proto.IDRequired):
		// Run frames (and unknown types with an id) go to the Run subscription of that id.
		s.mu.Lock()
		sub := s.runs[routeID(env, frame)]
		s.mu.Unlock()
		if sub == nil {
			s.log.Debug("dropping a frame without a route", "type", env.Type, "id", env.ID)
			return
		}
		if perr != nil && env.Type == proto.TypeToolCall {
			frame, perr = lenientToolCall(env, perr)
		}
		if perr != nil && (env.Type == proto.TypeDelta || env.Type == proto.TypeThinking || env.Type == proto.TypeDone) {
			frame, perr = lenientRunFrame(env, perr)
		}
		ev := Event{Envelope: env, Frame: frame, Invalid: perr, Seq: s.inbound}
		if perr != nil {
			ev.Frame = nil
		} else if p, ok := frame.Payload.(*proto.PermissionRequestPayload); ok {
			s.mu.Lock()
			s.asks[p.RequestID] = env.ID
			s.mu.Unlock()
		}
		sub.s.deliver(ev, env.Type == proto.TypeDone)
	default:
		s.log.Debug("dropping a frame", "type", env.Type, "id", env.ID)
		if cnSkipIsFatal(data, &env) {
			s.shutdown(fmt.Errorf("%w: an unknown frame type (a mutant)", ErrSessionClosed), closeInvalidFrame, "unknown frame type")
		}
	}
}

// onHeartbeat replaces the snapshot with a valid heartbeat; an invalid one clears it and closes
// the transport (which says nothing about native completion or cancellation).
func (s *Session) onHeartbeat(frame *proto.Frame, perr error, legacy bool) {
	if perr != nil {
		s.mu.Lock()
		if !mutation.On(mutation.InvalidHeartbeatKeepsSnapshot) {
			s.heartbeat = nil
		}
		s.mu.Unlock()
		s.g.notify()
		s.log.Warn("invalid heartbeat: clearing the capability snapshot and closing", "error", perr)
		if mutation.On(mutation.InvalidHeartbeatKeepsOpen) {
			return
		}
		s.shutdown(fmt.Errorf("%w: invalid heartbeat: %v", ErrSessionClosed, perr), closeInvalidFrame, reasonBadHeartbeat)
		return
	}
	hb := frame.Payload.(*proto.HeartbeatPayload)
	s.mu.Lock()
	s.legacyHeartbeat = legacy
	if !s.closed {
		widenSnapshot(s.heartbeat, hb)
		s.heartbeat = hb
	}
	s.mu.Unlock()
	s.idleHeartbeatEndsRuns(hb)
	s.g.notify()
}
