package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/transport"
)

// Authentication errors an Authenticator returns; each maps to one error code of §1.2.
var (
	ErrUnknownDevice = transport.ErrUnknownDevice
	ErrBadCredential = transport.ErrBadCredential
	ErrWrongRuntime  = transport.ErrWrongRuntime
)

// Authenticator checks a Bearer credential for a device and returns its workspace. It must compare
// in constant time and must never log the credential.
type Authenticator = transport.Authenticator

// Config configures a Gateway.
type Config struct {
	// PublicURL is Core's public base URL (http:// or https://, e.g. http://127.0.0.1:8080); the
	// bootstrap's ws_url is derived from it, never from request headers.
	PublicURL string
	Auth      Authenticator
	// Clock runs the protocol's timers (the 60 s liveness timeout).
	Clock clock.Clock
	// TransportClock runs the per-frame write deadline; default the wall clock.
	TransportClock clock.Clock
	Logger         *slog.Logger
	// HeartbeatSeconds is what bootstrap tells the daemon; default 15.
	HeartbeatSeconds int
	// OnChange is called after a connection opened or closed or a capability snapshot changed.
	OnChange func()
	// OnConnect, if set, is called with every new connection before it is registered: the
	// device's Turns find it only after that (Core starts the connection's preparation there).
	OnConnect func(*Session)
}

// Gateway serves the daemon routes and owns every connection.
type Gateway struct {
	cfg      Config
	rules    transport.Rules // what bootstrap, device-status and the upgrade check first
	wsURL    string
	log      *slog.Logger
	registry *registry
	nextID   atomic.Uint64

	mu       sync.Mutex
	sessions map[*Session]struct{} // every Session not yet finished, replaced ones included
	closed   bool
	changed  chan struct{}
	wg       sync.WaitGroup
}

// New returns a Gateway.
func New(cfg Config) (*Gateway, error) {
	if cfg.Auth == nil {
		return nil, errors.New("gateway: an Authenticator is required")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.TransportClock == nil {
		cfg.TransportClock = clock.Real()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.HeartbeatSeconds <= 0 {
		cfg.HeartbeatSeconds = int(proto.DefaultHeartbeatInterval / time.Second)
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("gateway: the public URL %q must be an absolute http(s) URL", cfg.PublicURL)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return nil, fmt.Errorf("gateway: the public URL %q must be http or https", cfg.PublicURL)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + proto.RouteWebSocket
	u.RawQuery, u.Fragment = "", ""
	return &Gateway{cfg: cfg, rules: transport.Rules{Auth: cfg.Auth}, wsURL: u.String(), log: cfg.Logger, registry: newRegistry(),
		sessions: map[*Session]struct{}{}, changed: make(chan struct{})}, nil
}

// Register adds the daemon routes to mux.
func (g *Gateway) Register(mux *http.ServeMux) {
	mux.HandleFunc(proto.RouteBootstrap, g.bootstrap)
	mux.HandleFunc(proto.RouteDeviceStatus, g.deviceStatus)
	mux.HandleFunc(proto.RouteWebSocket, g.websocket)
}

// Session returns the device's live connection, or nil.
func (g *Gateway) Session(deviceID string) *Session { return g.registry.get(deviceID) }

// Changed is closed at the next change of a connection or a capability snapshot.
func (g *Gateway) Changed() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.changed
}

func (g *Gateway) notify() {
	g.mu.Lock()
	close(g.changed)
	g.changed = make(chan struct{})
	g.mu.Unlock()
	if g.cfg.OnChange != nil {
		g.cfg.OnChange()
	}
}

// Close closes every connection and waits for every goroutine the Gateway started.
func (g *Gateway) Close() {
	g.mu.Lock()
	g.closed = true
	all := make([]*Session, 0, len(g.sessions))
	for s := range g.sessions {
		all = append(all, s)
	}
	g.mu.Unlock()
	for _, s := range all {
		// Nothing went wrong: a clean close, which the daemon does not take for an error (CN-20
		// binds only the daemon's side; no sentence binds how Core closes when it stops).
		s.Close(websocket.StatusGoingAway, reasonGatewayClosing)
	}
	g.wg.Wait()
}

// accept registers a new connection, replacing the device's previous one.
func (g *Gateway) accept(ws *websocket.Conn, deviceID string, live clock.Timer) *Session {
	ctx, cancel := context.WithCancel(context.Background())
	s := &Session{g: g, id: g.nextID.Add(1), deviceID: deviceID, ws: ws, clk: g.cfg.Clock,
		ctx: ctx, cancel: cancel, queue: make(chan []byte, proto.CoreSendQueue), done: make(chan struct{}),
		liveT: live, liveKick: make(chan struct{}, 1),
		runs: map[string]*RunSubscription{}, preps: map[string]*PreparationSubscription{}, acks: map[string]*AckWaiter{}, asks: map[string]string{}}
	s.log = g.log.With("device_id", deviceID, "connection", s.id)
	ws.SetReadLimit(readLimit())
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		live.Stop()
		cancel()
		_ = ws.Close(websocket.StatusGoingAway, reasonGatewayClosing)
		return nil
	}
	g.sessions[s] = struct{}{}
	g.wg.Add(1)
	g.mu.Unlock()
	if g.cfg.OnConnect != nil {
		g.cfg.OnConnect(s)
	}
	if old := g.registry.register(s); old != nil {
		old.log.Info("replaced by a newer connection", "newer", s.id)
		if mutation.On(mutation.CNCapabilitiesCarriedOver) {
			hb, _ := old.Capabilities()
			s.mu.Lock()
			s.heartbeat = hb
			s.mu.Unlock()
		}
		if mutation.On(mutation.RunRoutesInherited) {
			old.mu.Lock()
			s.mu.Lock()
			for id, sub := range old.runs {
				s.runs[id] = sub
			}
			old.runs = map[string]*RunSubscription{}
			s.mu.Unlock()
			old.mu.Unlock()
		}
		if !mutation.On(mutation.ReplacedConnectionKept) {
			old.Close(closeReplaced, reasonReplaced)
		}
	}
	s.start()
	s.replayOnReconnect()
	go func() {
		defer g.wg.Done()
		<-s.done
		s.wait()
		g.mu.Lock()
		delete(g.sessions, s)
		g.mu.Unlock()
	}()
	s.log.Info("daemon connected")
	g.notify()
	return s
}
