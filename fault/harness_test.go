package fault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
)

// The bound on every wait in these tests: each waits for an event (a frame, a close, a relay
// event, an armed timer), so this is a safety net a loaded machine must not reach.
const within = 30 * time.Second

const credential = "s3cret-daemon-credential-7f2c"

// rawCore is a Core the tests control: it serves bootstrap and the WebSocket, records the
// Authorization header of every request, and hands every accepted connection to the test.
type rawCore struct {
	srv   *httptest.Server
	conns chan *script.Conn
	mu    sync.Mutex
	auth  []string // Authorization of every request, in order
	// refuse, when set, answers the next upgrade with this status and error code.
	refuseStatus int
	refuseCode   string
}

func newRawCore() *rawCore {
	c := &rawCore{conns: make(chan *script.Conn, 8)}
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, func(w http.ResponseWriter, r *http.Request) {
		c.sawAuth(r)
		var req proto.BootstrapRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(proto.BootstrapResponse{DeviceID: req.DeviceID, WorkspaceID: "w",
			WSURL: "ws://" + r.Host + proto.RouteWebSocket, HeartbeatSeconds: 15, ProtocolVersion: proto.Version})
	})
	mux.HandleFunc(proto.RouteDeviceStatus, func(w http.ResponseWriter, r *http.Request) {
		c.sawAuth(r)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(proto.DeviceStatusResponse{DeviceID: r.URL.Query().Get(proto.QueryDeviceID), Online: true})
	})
	mux.HandleFunc(proto.RouteWebSocket, func(w http.ResponseWriter, r *http.Request) {
		c.sawAuth(r)
		c.mu.Lock()
		status, code := c.refuseStatus, c.refuseCode
		c.refuseStatus = 0
		c.mu.Unlock()
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(proto.HTTPError{Error: code, Detail: "refused by the raw Core"})
			return
		}
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c.conns <- script.NewConn(ws, script.NewRecorder(), script.From(proto.Runtime))
	})
	c.srv = httptest.NewServer(mux)
	return c
}

func (c *rawCore) sawAuth(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auth = append(c.auth, r.Header.Get("Authorization"))
}

func (c *rawCore) authSeen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.auth...)
}

func (c *rawCore) refuseNext(status int, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuseStatus, c.refuseCode = status, code
}

func (c *rawCore) baseURL() string { return c.srv.URL + proto.APIPrefix }

func (c *rawCore) accept() *script.Conn {
	select {
	case conn := <-c.conns:
		return conn
	case <-time.After(within):
		Fail("Core accepted no connection within " + within.String())
		return nil
	}
}

func (c *rawCore) close() { c.srv.Close() }

// bootstrap calls the relay's bootstrap as a daemon does and returns ws_url.
func bootstrap(base string) (string, *http.Response) {
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: "dev"})
	req, _ := http.NewRequest(http.MethodPost, base+"/agent-daemon/bootstrap", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+credential)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	Expect(resp.StatusCode).To(Equal(http.StatusOK), "bootstrap: %s", data)
	var out proto.BootstrapResponse
	Expect(json.Unmarshal(data, &out)).To(Succeed())
	return out.WSURL, resp
}

// dialError is a refused upgrade.
type dialError struct {
	status int
	body   []byte
}

func (e *dialError) Error() string { return fmt.Sprintf("upgrade refused: %d %s", e.status, e.body) }

// dial opens the WebSocket at wsURL as a daemon does: device_id and version in the query, the
// credential in the Bearer header only.
func dial(wsURL string) (*script.Conn, error) {
	u, err := url.Parse(wsURL)
	Expect(err).NotTo(HaveOccurred())
	q := u.Query()
	q.Set(proto.QueryDeviceID, "dev")
	q.Set(proto.QueryVersion, proto.Version)
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	ws, resp, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + credential}}})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			body, _ := io.ReadAll(resp.Body)
			return nil, &dialError{status: resp.StatusCode, body: body}
		}
		return nil, err
	}
	return script.NewConn(ws, script.NewRecorder(), script.From(proto.Core)), nil
}

// rig is a raw Core, the relay in front of it, and the log the relay writes.
type rig struct {
	core  *rawCore
	relay *fault.Relay
	fake  *clock.Fake
	logs  *syncBuffer
	wsURL string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newRig starts a raw Core and a relay with rules on a fake clock, and bootstraps through it.
func newRig(seed uint64, rules ...fault.Rule) *rig {
	r := &rig{core: newRawCore(), fake: clock.NewFake(), logs: &syncBuffer{}}
	log := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	relay, err := fault.New(r.core.baseURL(), &fault.Schedule{Rules: rules}, fault.Options{Clock: r.fake, Logger: log, Seed: seed})
	Expect(err).NotTo(HaveOccurred())
	base, err := relay.Start(context.Background())
	Expect(err).NotTo(HaveOccurred())
	Expect(base).To(HaveSuffix(proto.APIPrefix))
	r.relay = relay
	r.wsURL, _ = bootstrap(base)
	return r
}

// connect dials through the relay and returns the Runtime's end and Core's end.
func (r *rig) connect() (rt, core *script.Conn) {
	rt, err := dial(r.wsURL)
	Expect(err).NotTo(HaveOccurred())
	return rt, r.core.accept()
}

func (r *rig) close() {
	r.relay.Close()
	r.core.close()
}

// waitEvents waits until the relay has recorded at least n events and returns them.
func (r *rig) waitEvents(n int) []fault.Event {
	deadline := time.After(within)
	for {
		changed := r.relay.Changed()
		if ev := r.relay.Events(); len(ev) >= n {
			return ev
		}
		select {
		case <-changed:
		case <-deadline:
			Fail(fmt.Sprintf("the relay recorded %d events within %v; want %d: %v", len(r.relay.Events()), within, n, r.relay.Events()))
		}
	}
}

// frame encodes an envelope.
func frame(typ, id string, payload any) []byte {
	raw, err := proto.MustEnvelope(typ, id, payload).Encode()
	Expect(err).NotTo(HaveOccurred())
	return raw
}

func delta(run string, seq uint64) []byte {
	return frame(proto.TypeDelta, run, &proto.DeltaPayload{Delta: fmt.Sprintf("d%d", seq), Sequence: seq})
}

func status(handle string, rev uint64, state string) []byte {
	return frame(proto.TypePreparationStatus, "prepare", &proto.PreparationStatusPayload{
		ExecutorID: "executor", Handle: handle, Revision: rev, State: state})
}

// send writes frames from one end.
func send(c *script.Conn, frames ...[]byte) {
	for _, f := range frames {
		Expect(c.Write(context.Background(), f)).To(Succeed())
	}
}

// nextWithin reads the next frame at an end, waiting at most d.
func nextWithin(c *script.Conn, d time.Duration) (script.Inbound, error) {
	ctx, cancel := script.Within(context.Background(), d)
	defer cancel()
	return c.Next(ctx)
}

// next reads the next frame at an end.
func next(c *script.Conn) []byte {
	in, err := nextWithin(c, within)
	Expect(err).NotTo(HaveOccurred(), "reading the next frame")
	return in.Raw
}

// expectFrames reads len(want) frames and compares them with want, in order.
func expectFrames(c *script.Conn, want ...[]byte) {
	for i, w := range want {
		got := next(c)
		Expect(string(got)).To(Equal(string(w)), "frame %d", i+1)
	}
}

// expectClosed waits for the end's transport to close and returns how.
func expectClosed(c *script.Conn) *script.ClosedError {
	in, err := nextWithin(c, within)
	if err == nil {
		Fail(fmt.Sprintf("a frame arrived instead of the close: %s", in.Raw))
	}
	ce, ok := err.(*script.ClosedError)
	Expect(ok).To(BeTrue(), "the transport did not close within %v: %v", within, err)
	return ce
}

func envType(raw []byte) string {
	env, err := proto.DecodeEnvelope(raw)
	if err != nil {
		return ""
	}
	return env.Type
}

func containsCredential(s string) bool { return strings.Contains(s, credential) }
