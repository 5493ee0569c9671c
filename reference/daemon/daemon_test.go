package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// core is a minimal Core for transport tests: a scripted answer per bootstrap attempt, and a
// WebSocket that records what it receives.
type core struct {
	srv       *httptest.Server
	mu        sync.Mutex
	bootstrap []int // status to answer per attempt; 200 once exhausted
	attempts  int
	interval  int
	urls      []string
	frames    chan proto.Envelope
}

func newCore(t *testing.T, statuses ...int) *core {
	c := &core{bootstrap: statuses, frames: make(chan proto.Envelope, 64)}
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.attempts++
		status := http.StatusOK
		if len(c.bootstrap) > 0 {
			status, c.bootstrap = c.bootstrap[0], c.bootstrap[1:]
		}
		c.mu.Unlock()
		if status != http.StatusOK {
			w.WriteHeader(status)
			_ = json.NewEncoder(w).Encode(proto.HTTPError{Error: "refused", Detail: "scripted"})
			return
		}
		_ = json.NewEncoder(w).Encode(proto.BootstrapResponse{DeviceID: "d", WorkspaceID: "w",
			WSURL: "ws" + strings.TrimPrefix(c.srv.URL, "http") + proto.RouteWebSocket + "?token=legacy-secret", HeartbeatSeconds: c.interval, ProtocolVersion: proto.Version})
	})
	mux.HandleFunc(proto.RouteWebSocket, func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.urls = append(c.urls, r.URL.String())
		c.mu.Unlock()
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for {
			_, data, err := ws.Read(r.Context())
			if err != nil {
				return
			}
			env, _ := proto.DecodeEnvelope(data)
			c.frames <- env
		}
	})
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c
}

func newDaemon(t *testing.T, c *core, fake *clock.Fake, cred string) *daemon.Daemon {
	t.Helper()
	d, err := daemon.New(daemon.Config{ServerURL: c.srv.URL + proto.APIPrefix, DeviceID: "d", Credential: cred, Clock: fake,
		Harnesses: []harness.Harness{contract.New(fake, daemon.ContractCapabilities())}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// 401, 403 and 426 need operator correction: the daemon stops after exactly one attempt.
func TestPermanentRefusalStopsAfterOneAttempt(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		c := newCore(t, status, status)
		err := newDaemon(t, c, clock.NewFake(), "cred").Run(context.Background())
		if !errors.Is(err, daemon.ErrPermanent) || c.attempts != 1 {
			t.Errorf("status %d: err %v after %d attempts; want a permanent error after 1", status, err, c.attempts)
		}
	}
}

// Transient failures reconnect with backoff on the injected clock.
func TestTransientRefusalBacksOffOnTheClock(t *testing.T) {
	c := newCore(t, http.StatusInternalServerError, http.StatusBadGateway)
	fake := clock.NewFake()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newDaemon(t, c, fake, "cred").Run(ctx) }()
	fake.AdvanceWhenDue(time.Second, 5*time.Second) // first backoff: 1 s
	fake.AdvanceWhenDue(2*time.Second, 5*time.Second)
	select {
	case env := <-c.frames:
		if env.Type != proto.TypeHeartbeat {
			t.Fatalf("first frame %s, want heartbeat", env.Type)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no heartbeat after two backoffs")
	}
	c.mu.Lock()
	attempts, url := c.attempts, c.urls[0]
	c.mu.Unlock()
	if attempts != 3 {
		t.Errorf("%d bootstrap attempts, want 3", attempts)
	}
	// The credential travels only in the header; a legacy token in ws_url is stripped.
	if strings.Contains(url, "token") || strings.Contains(url, "cred") || !strings.Contains(url, "version="+proto.Version) {
		t.Errorf("dial URL %q", url)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
}

// A heartbeat goes out at once, then at the bootstrap interval, or every 15 s when bootstrap gives
// none; each carries the complete declaration.
func TestHeartbeatAtOnceThenAtTheFallbackInterval(t *testing.T) {
	c := newCore(t)
	c.interval = 0
	fake := clock.NewFake()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- newDaemon(t, c, fake, "cred").Run(ctx) }()
	first := <-c.frames
	hb, err := proto.Decode[proto.HeartbeatPayload](first)
	if err != nil || hb.Kind("contract") == nil || hb.Kind("contract").Capabilities.Validate() != nil {
		t.Fatalf("first heartbeat %v: %v", first, err)
	}
	if !fake.WaitDue(proto.DefaultHeartbeatInterval, 5*time.Second) {
		t.Fatal("the daemon armed no heartbeat timer")
	}
	fake.Advance(proto.DefaultHeartbeatInterval - time.Second)
	select {
	case env := <-c.frames:
		t.Fatalf("a second heartbeat before 15 s: %v", env.Type)
	default:
	}
	fake.AdvanceWhenDue(time.Second, 5*time.Second)
	select {
	case env := <-c.frames:
		if env.Type != proto.TypeHeartbeat {
			t.Fatalf("got %s", env.Type)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no heartbeat at 15 s")
	}
	cancel()
	<-done
}

// An incomplete Harness declaration is refused at registration, before anything connects.
func TestIncompleteDeclarationIsRefusedAtRegistration(t *testing.T) {
	_, err := daemon.New(daemon.Config{ServerURL: "http://x/api/v1", DeviceID: "d",
		Harnesses: []harness.Harness{contract.New(clock.NewFake(), proto.AgentKindCapabilities{Streaming: proto.Supported})}})
	if err == nil || !strings.Contains(err.Error(), "subagent_observations: is unspecified") {
		t.Fatalf("err = %v", err)
	}
}
