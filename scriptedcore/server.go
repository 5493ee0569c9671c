package scriptedcore

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
)

// server serves bootstrap, device-status and the WebSocket exactly as protocol-facts.md §1 says,
// for one device. Every request is reported on attempts; accepted connections on conns.
type server struct {
	deviceID, credential, workspaceID string
	requiredVersion                   string
	heartbeatSeconds                  int
	rec                               *script.Recorder

	ln       net.Listener
	http     *http.Server
	attempts chan string       // one line per bootstrap or dial request
	conns    chan *script.Conn // accepted WebSocket connections
	rejects  chan rejection    // every rejection answered

	mu     sync.Mutex
	online bool
	closed bool
}

type rejection struct {
	status int
	code   string
}

func newServer(deviceID, credential, requiredVersion string, heartbeatSeconds int, rec *script.Recorder) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{deviceID: deviceID, credential: credential, workspaceID: "wirecheck", requiredVersion: requiredVersion,
		heartbeatSeconds: heartbeatSeconds, rec: rec, ln: ln,
		attempts: make(chan string, 64), conns: make(chan *script.Conn, 8), rejects: make(chan rejection, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, s.bootstrap)
	mux.HandleFunc(proto.RouteDeviceStatus, s.deviceStatus)
	mux.HandleFunc(proto.RouteWebSocket, s.websocket)
	s.http = &http.Server{Handler: mux}
	go func() { _ = s.http.Serve(ln) }()
	return s, nil
}

// baseURL is the server URL a daemon is configured with; it already ends in /api/v1.
func (s *server) baseURL() string { return "http://" + s.ln.Addr().String() + proto.APIPrefix }

// close stops serving and drops every connection nobody took (a Runtime that reconnects after
// the scenario ended, for one), so nothing outlives the run.
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
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

func (s *server) attempt(what string) {
	s.rec.Event("attempt", what)
	select {
	case s.attempts <- what:
	default:
	}
}

func (s *server) reject(w http.ResponseWriter, code, detail string) {
	status := proto.HTTPStatusFor(code)
	s.rec.Event("reject", fmt.Sprintf("%d %s: %s", status, code, detail))
	select {
	case s.rejects <- rejection{status, code}:
	default:
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(proto.HTTPError{Error: code, Detail: detail})
}

// authenticate applies the credential rules. The credential is accepted from the Bearer header
// only; one that appears anywhere in the URL is refused.
func (s *server) authenticate(w http.ResponseWriter, r *http.Request, deviceID string) bool {
	for key, vals := range r.URL.Query() {
		for _, v := range vals {
			if key == "token" || key == "credential" || (s.credential != "" && v == s.credential) {
				s.reject(w, proto.HTTPBadCredential, "a credential must never appear in the URL")
				return false
			}
		}
	}
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		s.reject(w, proto.HTTPMissingBearer, "Authorization: Bearer <credential> is required")
		return false
	}
	if deviceID != s.deviceID {
		s.reject(w, proto.HTTPUnknownDevice, "unknown device")
		return false
	}
	if token != s.credential {
		s.reject(w, proto.HTTPBadCredential, "the credential does not match the device")
		return false
	}
	return true
}

func (s *server) bootstrap(w http.ResponseWriter, r *http.Request) {
	s.attempt("bootstrap")
	if r.Method != http.MethodPost {
		s.reject(w, proto.HTTPMethodNotAllowed, "bootstrap is POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	var req proto.BootstrapRequest
	if err != nil || json.Unmarshal(body, &req) != nil {
		s.reject(w, proto.HTTPBadJSON, "the body must be {\"device_id\": ...}")
		return
	}
	if req.DeviceID == "" {
		s.reject(w, proto.HTTPMissingDeviceID, "device_id is required")
		return
	}
	if !s.authenticate(w, r, req.DeviceID) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(proto.BootstrapResponse{
		DeviceID: s.deviceID, WorkspaceID: s.workspaceID,
		WSURL:            "ws://" + s.ln.Addr().String() + proto.RouteWebSocket,
		HeartbeatSeconds: s.heartbeatSeconds, ProtocolVersion: s.requiredVersion,
	})
}

func (s *server) deviceStatus(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get(proto.QueryDeviceID)
	if id == "" {
		s.reject(w, proto.HTTPMissingDeviceID, "device_id is required")
		return
	}
	if !s.authenticate(w, r, id) {
		return
	}
	s.mu.Lock()
	online := s.online
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(proto.DeviceStatusResponse{DeviceID: id, Online: online})
}

func (s *server) websocket(w http.ResponseWriter, r *http.Request) {
	s.attempt("dial")
	q := r.URL.Query()
	deviceID, version := q.Get(proto.QueryDeviceID), q.Get(proto.QueryVersion)
	if deviceID == "" || !q.Has(proto.QueryVersion) || r.Header.Get("Authorization") == "" {
		s.reject(w, proto.HTTPMissingParams, "device_id, version and the Bearer header are required")
		return
	}
	// The version is checked before authentication and before anything is registered.
	if version != s.requiredVersion {
		s.reject(w, proto.HTTPIncompatibleVersion, "this Core speaks wire version "+s.requiredVersion)
		return
	}
	if !s.authenticate(w, r, deviceID) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		s.reject(w, proto.HTTPInternal, "the scenario is over")
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.rec.Event("accept-failed", err.Error())
		return
	}
	s.online = true
	s.rec.Event("connected", "device "+deviceID)
	select {
	case s.conns <- script.NewConn(ws, s.rec, script.From(proto.Runtime)):
	default:
		s.rec.Event("refused", "too many connections nobody took")
		_ = ws.CloseNow()
	}
}
