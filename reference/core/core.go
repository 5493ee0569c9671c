package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Config configures a Core.
type Config struct {
	// DataFile is the bbolt file of the durable records; it is created if missing.
	DataFile string
	// PublicURL is Core's public base URL; the bootstrap's ws_url derives from it.
	PublicURL string
	Clock     clock.Clock
	// TransportClock runs the per-frame write deadline (CN-42); default the wall clock. A test on
	// a virtual Clock gives it a clock of its own, moved only while its peer has stopped reading,
	// so an advance of the protocol clock never cuts a write that has just completed.
	TransportClock clock.Clock
	Logger         *slog.Logger
	Policy         *policy.Policy
	// HeartbeatSeconds is what bootstrap tells daemons; default 15.
	HeartbeatSeconds int
	// OnEvent, if set, sees every frame received for a Turn once it is journalled (the frames
	// committed with the Turn's outcome just after the outcome is recorded).
	OnEvent func(turnID string, ev store.Event)
}

// Core is a running reference Core.
type Core struct {
	cfg    Config
	log    *slog.Logger
	store  *store.Store
	gw     *gateway.Gateway
	engine *execution.Engine
	mux    *http.ServeMux

	// Reconciled lists the Turns found in flight when the store was opened.
	Reconciled []store.InFlight

	mu      sync.Mutex
	changed chan struct{}
}

// Open opens the data file, reconciles what a previous process left in flight and returns a Core
// ready to serve. Close releases everything.
func Open(cfg Config) (*Core, error) {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Policy == nil {
		cfg.Policy = policy.New()
	}
	st, err := store.Open(cfg.DataFile, store.Options{Clock: cfg.Clock})
	if err != nil {
		return nil, err
	}
	c := &Core{cfg: cfg, log: cfg.Logger, store: st, changed: make(chan struct{})}
	c.gw, err = gateway.New(gateway.Config{PublicURL: cfg.PublicURL, Auth: authenticator{st}, Clock: cfg.Clock, TransportClock: cfg.TransportClock,
		Logger: cfg.Logger, HeartbeatSeconds: cfg.HeartbeatSeconds, OnChange: c.notify,
		OnConnect: func(s *gateway.Session) { c.engine.PrepareConnection(prepConn{s}) }})
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	c.engine = execution.New(execution.Config{Store: st, Conns: conns{c.gw}, Policy: cfg.Policy, Clock: cfg.Clock,
		Logger: cfg.Logger, OnChange: func(string) { c.notify() }, OnEvent: cfg.OnEvent})
	c.Reconciled, err = c.engine.Reconcile()
	if err != nil {
		c.engine.Close()
		_ = st.Close()
		return nil, fmt.Errorf("reconciling the store: %w", err)
	}
	if _, err := c.engine.ReconcileWorkspace(); err != nil {
		c.engine.Close()
		_ = st.Close()
		return nil, fmt.Errorf("reconciling the workspace operations: %w", err)
	}
	if _, err := c.engine.ReconcileSuspensions(); err != nil {
		c.engine.Close()
		_ = st.Close()
		return nil, fmt.Errorf("reconciling the suspension requests: %w", err)
	}
	c.mux = http.NewServeMux()
	c.gw.Register(c.mux)
	c.registerAPI(c.mux)
	c.registerPreparationAPI(c.mux)
	c.registerWorkspaceAPI(c.mux)
	c.registerSuspensionAPI(c.mux)
	return c, nil
}

// Handler serves the daemon routes under /api/v1/agent-daemon/ and the JSON API.
func (c *Core) Handler() http.Handler { return c.mux }

// Close stops every Turn and operation runner, then closes every connection and the store, as a
// process exit leaves them: Turns still in flight keep their committed phase and operations stay
// pending, for the next Open to reconcile. The runners stop first so that none takes the end of
// its connection, which Close itself causes, for a disconnect to record (a write's unknown
// outcome, say, which is the restart's to settle: ReconcileWorkspace).
func (c *Core) Close() error {
	c.engine.Close()
	c.gw.Close()
	return c.store.Close()
}

// CloseConnections closes every daemon connection as a Core that shuts down does, and refuses new
// ones; the records stay readable until Close.
func (c *Core) CloseConnections() { c.gw.Close() }

// Quiesce waits until every Turn runner has handled what was already routed to it (tests on a
// virtual clock call it before advancing the clock).
func (c *Core) Quiesce(ctx context.Context) error { return c.engine.Quiesce(ctx) }

// Store exposes the durable records (read-only use: tests, tools).
func (c *Core) Store() *store.Store { return c.store }

// Changed is closed at the next change of a Turn, a connection or a capability snapshot.
func (c *Core) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

func (c *Core) notify() {
	c.mu.Lock()
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// RegisterDevice registers a device and returns its new credential; it is shown only once.
func (c *Core) RegisterDevice(deviceID, workspaceID string) (string, error) {
	return c.store.CreateDevice(deviceID, workspaceID)
}

// AddDevice registers a device with a credential the caller chose (tests and fixtures).
func (c *Core) AddDevice(deviceID, credential string) error {
	return c.store.AddDevice(store.Device{ID: deviceID}, credential)
}

// AddDeviceOfType registers a device whose credential belongs to another runtime type than
// store.RuntimeTypeAgentDaemon (an API key, say): its bootstrap is refused 403 wrong_runtime_type.
func (c *Core) AddDeviceOfType(deviceID, credential, runtimeType string) error {
	return c.store.AddDevice(store.Device{ID: deviceID, RuntimeType: runtimeType}, credential)
}

// StartTurn starts a Turn on a device (see execution.StartRequest).
func (c *Core) StartTurn(req execution.StartRequest) (*store.Turn, error) { return c.startTurn(req) }

// CancelTurn cancels a Turn.
func (c *Core) CancelTurn(turnID string) error { return c.engine.Cancel(turnID) }

// DeliverInput gives a running Turn an active input under the caller's idempotency key.
func (c *Core) DeliverInput(turnID, key string, input proto.MessageInput) (store.Input, error) {
	return c.engine.DeliverInput(turnID, key, input)
}

// Answer answers one of a running Turn's interactions under the caller's idempotency key (see
// execution.Engine.Answer).
func (c *Core) Answer(turnID, interactionID, key string, answer json.RawMessage) (store.Interaction, error) {
	return c.engine.Answer(turnID, interactionID, key, answer)
}

// Interactions lists a Turn's interactions as last committed.
func (c *Core) Interactions(turnID string) ([]store.Interaction, error) {
	return c.engine.Interactions(turnID)
}

// Turn returns a Turn's record and outcome.
func (c *Core) Turn(turnID string) (*store.Turn, error) { return c.store.Turn(turnID) }

// TurnByRun returns the Turn of a Run.
func (c *Core) TurnByRun(runID string) (*store.Turn, error) { return c.store.TurnByRun(runID) }

// Journal returns a Turn's journal.
func (c *Core) Journal(turnID string) ([]store.Event, error) { return c.store.Journal(turnID) }

// Online reports whether a device has a live connection.
func (c *Core) Online(deviceID string) bool { return c.gw.Session(deviceID) != nil }

// Capabilities returns the capability snapshot of a device's live connection: the latest valid
// heartbeat, or known=false (no connection, no heartbeat yet, or an invalid one).
func (c *Core) Capabilities(deviceID string) (hb *proto.HeartbeatPayload, known bool) {
	s := c.gw.Session(deviceID)
	if s == nil {
		return nil, false
	}
	return s.Capabilities()
}

// ErrOffline is returned for a device without a live connection.
var ErrOffline = errors.New("the device has no live connection")

// CloseDevice closes a device's connection with a close code.
func (c *Core) CloseDevice(deviceID string, code int, reason string) error {
	s := c.gw.Session(deviceID)
	if s == nil {
		return ErrOffline
	}
	s.Close(websocket.StatusCode(code), reason)
	return nil
}

// RetireDevice retires a device: its credential stops working and its connection is closed with
// 4001, which the daemon treats as permanent.
func (c *Core) RetireDevice(deviceID string) error {
	if err := c.store.RetireDevice(deviceID); err != nil {
		return err
	}
	if s := c.gw.Session(deviceID); s != nil {
		code := websocket.StatusCode(proto.CloseRuntimeDeleted)
		if mutation.On(mutation.CNRetiredClose1008) {
			code = websocket.StatusPolicyViolation
		}
		s.Close(code, "runtime retired")
	}
	return nil
}

// ShutdownDevice sends device_shutdown: the daemon cancels every Run and closes its Executors.
func (c *Core) ShutdownDevice(deviceID, reason string) error {
	s := c.gw.Session(deviceID)
	if s == nil {
		return ErrOffline
	}
	var payload *proto.DeviceShutdownPayload
	if reason != "" {
		payload = &proto.DeviceShutdownPayload{Reason: reason}
	}
	env, err := proto.NewEnvelope(proto.TypeDeviceShutdown, "", payload)
	if err != nil {
		return err
	}
	if mutation.On(mutation.DSCoreShutdownNamesDevice) {
		env.Payload, _ = json.Marshal(map[string]string{"reason": reason, "device_id": deviceID})
	}
	return s.Send(c.engine.Context(), env)
}

// authenticator checks daemon credentials against the store.
type authenticator struct{ st *store.Store }

func (a authenticator) Authenticate(deviceID, credential string) (string, error) {
	d, err := a.st.Authenticate(deviceID, credential)
	switch {
	case err == nil:
		return d.WorkspaceID, nil
	case errors.Is(err, store.ErrUnknownDevice), errors.Is(err, store.ErrDeviceRetired):
		return "", gateway.ErrUnknownDevice
	case errors.Is(err, store.ErrBadCredential):
		return "", gateway.ErrBadCredential
	case errors.Is(err, store.ErrWrongRuntime):
		return "", gateway.ErrWrongRuntime
	}
	return "", err
}

// conns adapts the gateway's registry to what the engine needs.
type conns struct{ gw *gateway.Gateway }

func (c conns) Conn(deviceID string) (execution.Conn, bool) {
	s := c.gw.Session(deviceID)
	if s == nil {
		return nil, false
	}
	return sessionConn{s}, true
}

type sessionConn struct{ *gateway.Session }

func (s sessionConn) SubscribeDurable(runID string) (execution.Stream, error) {
	sub, err := s.Session.SubscribeDurable(runID)
	if err != nil {
		return nil, err
	}
	return sub, nil
}

func (s sessionConn) SubscribePreparation(requestID string) (execution.Stream, error) {
	sub, err := s.Session.SubscribePreparation(requestID)
	if err != nil {
		return nil, err
	}
	return sub, nil
}

func (s sessionConn) AwaitAck(deliveryID string) (execution.Stream, error) {
	w, err := s.Session.AwaitAck(deliveryID)
	if err != nil {
		return nil, err
	}
	return ackStream{w}, nil
}

type ackStream struct{ *gateway.AckWaiter }

func (a ackStream) Events() <-chan gateway.Event { return a.Receipt() }
