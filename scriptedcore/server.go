package scriptedcore

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/internal/sockwatch"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/transport"
)

// server serves bootstrap, device-status and the WebSocket for one device, by the rules every Core
// applies (transport.Rules, protocol-facts.md §1). Every request is reported on attempts;
// accepted connections on conns.
type server struct {
	// rules.Version is what a handshake scenario may shift (Config.ShiftVersion) so that a Runtime
	// presenting proto.Version is refused; bootstrap announces it as protocol_version.
	rules  transport.Rules
	answer scenarios.BootstrapAnswer // HeartbeatSeconds set
	rec    *script.Recorder

	ln       net.Listener
	http     *http.Server
	attempts chan string       // one line per bootstrap or dial request
	conns    chan *script.Conn // accepted WebSocket connections
	rejects  chan rejection    // every rejection answered
	stalled  chan stalledUpgrade
	quit     chan struct{} // closed when the scenario is over: stalled upgrades end

	mu     sync.Mutex
	online bool
	closed bool

	// history is every attempt, in order: what the attempt channel may have dropped or been
	// drained of. Its own lock: reject runs both with and without mu held.
	hmu        sync.Mutex
	history    []string
	bootstraps int // bootstraps answered: the first len(answer.Unusable) get those answers
	stalls     int // upgrades seen: the first answer.StalledUpgrades are never answered
}

type rejection struct {
	status int
	code   string
	after  int             // how many attempts had been made when it was answered
	check  transport.Check // the rule that refused it
	cause  string          // what the daemon did, in plain words (transport.Rules.Explain)
	route  string          // the request refused: scenarios.ExpectAtBootstrap or ExpectAtUpgrade
}

func newServer(deviceID, credential, requiredVersion string, answer scenarios.BootstrapAnswer, rec *script.Recorder, stalls bool) (*server, error) {
	var lc net.ListenConfig
	if stalls {
		lc.Control = script.SmallReceiveBuffer
	}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{rules: transport.Rules{Version: requiredVersion,
		Auth: transport.OneDevice{DeviceID: deviceID, Credential: credential, WorkspaceID: "wirecheck"}},
		answer: answer, rec: rec, ln: ln,
		attempts: make(chan string, 64), conns: make(chan *script.Conn, 8), rejects: make(chan rejection, 64),
		stalled: make(chan stalledUpgrade, 8), quit: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, s.bootstrap)
	mux.HandleFunc(proto.RouteDeviceStatus, s.deviceStatus)
	mux.HandleFunc(proto.RouteWebSocket, s.websocket)
	s.http = &http.Server{Handler: mux, ConnContext: func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, netConnKey{}, c) // the socket, for await_stall and advance
	}}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// attemptAfter returns the first attempt made after the n-th, if there is one.
func (s *server) attemptAfter(n int) (string, bool) {
	s.hmu.Lock()
	defer s.hmu.Unlock()
	if len(s.history) > n {
		return s.history[n], true
	}
	return "", false
}

// baseURL is the server URL a daemon is configured with; it already ends in /api/v1.
func (s *server) baseURL() string { return "http://" + s.ln.Addr().String() + proto.APIPrefix }

// close stops serving and drops every connection nobody took (a Runtime that reconnects after
// the scenario ended, for one), so nothing outlives the run.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	close(s.quit)
	_ = s.http.Close()
	for {
		select {
		case c := <-s.conns:
			c.Drop()
		default:
			return
		}
	}
}

// settle waits for an upgrade being answered to hand its connection over. The handler holds mu
// from before it answers 101 until the connection is on conns, so a Runtime that connected, said
// everything and exited before the handler got there is still seen as connected.
func (s *server) settle() {
	s.mu.Lock()
	defer s.mu.Unlock() // nothing to do inside: taking the lock is the point
}

func (s *server) attempt(what string) {
	s.hmu.Lock()
	s.history = append(s.history, what)
	s.hmu.Unlock()
	s.rec.Event("attempt", what)
	select {
	case s.attempts <- what:
	default:
	}
}

// reject records a rejection, for the run to match against the scenario, and answers it.
func (s *server) reject(w http.ResponseWriter, r *http.Request, rej *transport.Rejection) {
	cause := s.rules.Explain(r, rej)
	s.rec.Event("reject", fmt.Sprintf("%d %s: %s (%s)", rej.Status, rej.Code, rej.Detail, cause))
	s.hmu.Lock()
	after := len(s.history)
	s.hmu.Unlock()
	route := r.URL.Path
	switch route {
	case proto.RouteWebSocket:
		route = scenarios.ExpectAtUpgrade
	case proto.RouteBootstrap:
		route = scenarios.ExpectAtBootstrap
	}
	select {
	case s.rejects <- rejection{status: rej.Status, code: rej.Code, after: after, check: rej.Check, cause: cause, route: route}:
	default:
	}
	rej.Write(w)
}

func (s *server) bootstrap(w http.ResponseWriter, r *http.Request) {
	s.attempt("bootstrap")
	dev, rej := s.rules.CheckBootstrap(r)
	if rej != nil {
		s.reject(w, r, rej)
		return
	}
	answer := proto.BootstrapResponse{
		DeviceID: dev.ID, WorkspaceID: dev.WorkspaceID,
		WSURL:            "ws://" + s.ln.Addr().String() + proto.RouteWebSocket,
		HeartbeatSeconds: *s.answer.HeartbeatSeconds, ProtocolVersion: s.rules.Version,
	}
	if q := s.answer.WSURLQuery; q != "" {
		answer.WSURL += "?" + q
	}
	s.hmu.Lock()
	n := s.bootstraps
	s.bootstraps++
	s.hmu.Unlock()
	if n < len(s.answer.Unusable) {
		s.writeUnusable(w, answer, s.answer.Unusable[n])
		return
	}
	transport.WriteJSON(w, answer)
}

// writeUnusable answers a bootstrap with an answer the daemon must not use (CN-44): its body is
// the usual answer, so a daemon that used it anyway would dial.
func (s *server) writeUnusable(w http.ResponseWriter, answer proto.BootstrapResponse, u scenarios.UnusableAnswer) {
	if u.DeviceID != nil {
		answer.DeviceID = *u.DeviceID
	}
	body, _ := json.Marshal(answer)
	if u.Oversize {
		pad := strings.Repeat("x", proto.BootstrapResponseMaxBytes)
		body = append([]byte(`{"padding":"`+pad+`",`), body[1:]...)
	}
	status := u.Status
	if status == 0 {
		status = http.StatusOK
	}
	s.rec.Event("unusable", fmt.Sprintf("bootstrap answered %d with %d bytes (device_id %q)", status, len(body), answer.DeviceID))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func (s *server) deviceStatus(w http.ResponseWriter, r *http.Request) {
	dev, rej := s.rules.CheckDeviceStatus(r)
	if rej != nil {
		s.reject(w, r, rej)
		return
	}
	s.mu.Lock()
	online := s.online
	s.mu.Unlock()
	transport.WriteJSON(w, proto.DeviceStatusResponse{DeviceID: dev.ID, Online: online})
}

func (s *server) websocket(w http.ResponseWriter, r *http.Request) {
	s.attempt("dial")
	dev, rej := s.rules.CheckUpgrade(r)
	if rej != nil {
		s.reject(w, r, rej)
		return
	}
	if s.stall(w, r) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.reject(w, r, transport.Reject(transport.CheckInternal, proto.HTTPInternal, "the scenario is over"))
		return
	}
	ws, err := transport.Accept(w, r)
	if err != nil {
		s.rec.Event("accept-failed", err.Error())
		return
	}
	s.online = true
	s.rec.Event("connected", "device "+dev.ID)
	conn := script.NewConn(ws, s.rec, script.From(proto.Runtime))
	if nc, ok := r.Context().Value(netConnKey{}).(net.Conn); ok {
		conn.SetUnread(sockwatch.UnreadCounter(nc))
		conn.SetUnsent(sockwatch.UnsentCounter(nc))
	}
	select {
	case s.conns <- conn:
	default:
		s.rec.Event("refused", "too many connections nobody took")
		_ = ws.CloseNow()
	}
}
