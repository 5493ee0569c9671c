package transport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// core is the smallest Core: transport.Rules in front of bootstrap and the upgrade. It keeps every
// request it saw. answer, when set, replaces the bootstrap answer.
type core struct {
	srv    *httptest.Server
	rules  transport.Rules
	answer string
	wsURL  string // default: the server's own ws route

	mu   sync.Mutex
	seen []*http.Request
}

func newCore(t *testing.T) *core {
	c := &core{rules: transport.Rules{Auth: auth{}}}
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, func(w http.ResponseWriter, r *http.Request) {
		c.saw(r)
		dev, rej := c.rules.CheckBootstrap(r)
		if rej != nil {
			rej.Write(w)
			return
		}
		if c.answer != "" {
			_, _ = w.Write([]byte(c.answer))
			return
		}
		ws := c.wsURL
		if ws == "" {
			ws = "ws" + strings.TrimPrefix(c.srv.URL, "http") + proto.RouteWebSocket
		}
		transport.WriteJSON(w, proto.BootstrapResponse{DeviceID: dev.ID, WorkspaceID: dev.WorkspaceID, WSURL: ws,
			HeartbeatSeconds: 15, ProtocolVersion: proto.Version})
	})
	mux.HandleFunc(proto.RouteWebSocket, func(w http.ResponseWriter, r *http.Request) {
		c.saw(r)
		if _, rej := c.rules.CheckUpgrade(r); rej != nil {
			rej.Write(w)
			return
		}
		ws, err := transport.Accept(w, r)
		if err != nil {
			return
		}
		_ = ws.Close(websocket.StatusNormalClosure, "")
	})
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c
}

func (c *core) saw(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen = append(c.seen, r)
}

func (c *core) last() *http.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[len(c.seen)-1]
}

func (c *core) base() string { return c.srv.URL + proto.APIPrefix }

var runtimeID = transport.Identity{DeviceID: device, Credential: secret, Version: proto.Version}

func TestClientBootstrapsAndDials(t *testing.T) {
	c := newCore(t)
	ctx := context.Background()
	client := transport.Client{UserAgent: "test-runtime/1"}
	boot, err := client.Bootstrap(ctx, c.base()+"/", runtimeID)
	if err != nil {
		t.Fatal(err)
	}
	r := c.last()
	if r.Method != http.MethodPost || r.URL.Path != proto.RouteBootstrap || r.Header.Get("Authorization") != bearer ||
		r.Header.Get("Content-Type") != "application/json" || r.Header.Get("User-Agent") != "test-runtime/1" || r.URL.RawQuery != "" {
		t.Errorf("bootstrap request: %s %s %v", r.Method, r.URL, r.Header)
	}
	if boot.DeviceID != device || boot.WorkspaceID != "ws-1" || transport.HeartbeatInterval(boot).Seconds() != 15 {
		t.Errorf("answer %+v", boot)
	}
	ws, err := client.Dial(ctx, boot.WSURL+"?token=legacy&keep=1", runtimeID)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	q := c.last().URL.Query()
	if q.Get(proto.QueryDeviceID) != device || q.Get(proto.QueryVersion) != proto.Version || q.Has("token") || q.Get("keep") != "1" {
		t.Errorf("dial query %v: device_id and version set, the legacy token dropped, the rest kept", q)
	}
	if c.last().Header.Get("Authorization") != bearer {
		t.Errorf("dial header %v", c.last().Header)
	}
}

func TestClientRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		id           transport.Identity
		stage        transport.Stage
		status       int
		code         string
		permanent    bool
		incompatible bool
	}{
		{"no credential sends no header", transport.Identity{DeviceID: device, Version: proto.Version}, transport.StageBootstrap, 401, proto.HTTPMissingBearer, true, false},
		{"unknown device", transport.Identity{DeviceID: "nope", Credential: secret, Version: proto.Version}, transport.StageBootstrap, 401, proto.HTTPUnknownDevice, true, false},
		{"wrong runtime type", transport.Identity{DeviceID: "api-key-device", Credential: secret, Version: proto.Version}, transport.StageBootstrap, 403, proto.HTTPWrongRuntimeType, true, false},
		{"the Authenticator fails", transport.Identity{DeviceID: "broken-device", Credential: secret, Version: proto.Version}, transport.StageBootstrap, 500, proto.HTTPInternal, false, false},
		{"version sent as it is", transport.Identity{DeviceID: device, Credential: secret, Version: "0.7.0"}, transport.StageDial, 426, proto.HTTPIncompatibleVersion, true, true},
		{"an empty version is sent", transport.Identity{DeviceID: device, Credential: secret}, transport.StageDial, 426, proto.HTTPIncompatibleVersion, true, true},
		{"credential in the query on purpose", transport.Identity{DeviceID: device, Credential: secret, Version: proto.Version, CredentialInQuery: true}, transport.StageDial, 401, proto.HTTPBadCredential, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(t)
			err := connect(ctx, transport.Client{}, c.base(), tc.id)
			var ref *transport.Refusal
			if !errors.As(err, &ref) {
				t.Fatalf("err %v, want a *Refusal", err)
			}
			if ref.Stage != tc.stage || ref.Status != tc.status || ref.Code != tc.code || ref.Detail == "" {
				t.Fatalf("refusal %+v", ref)
			}
			if errors.Is(err, transport.ErrPermanent) != tc.permanent || errors.Is(err, transport.ErrIncompatibleVersion) != tc.incompatible {
				t.Fatalf("%v: permanent %v incompatible %v", err, errors.Is(err, transport.ErrPermanent), errors.Is(err, transport.ErrIncompatibleVersion))
			}
			if want := string(tc.stage) + " refused: "; !strings.HasPrefix(ref.Error(), want) {
				t.Fatalf("error %q, want the prefix %q", ref.Error(), want)
			}
		})
	}
}

func connect(ctx context.Context, client transport.Client, base string, id transport.Identity) error {
	boot, err := client.Bootstrap(ctx, base, id)
	if err != nil {
		return err
	}
	ws, err := client.Dial(ctx, boot.WSURL, id)
	if err != nil {
		return err
	}
	return ws.CloseNow()
}

func TestClientRejectsAnInvalidBootstrapAnswer(t *testing.T) {
	for name, answer := range map[string]string{
		"not JSON":        "<html>",
		"empty device_id": `{"device_id":"","ws_url":"ws://x/"}`,
		"http ws_url":     `{"device_id":"d","ws_url":"http://x/"}`,
	} {
		t.Run(name, func(t *testing.T) {
			c := newCore(t)
			c.answer = answer
			_, err := transport.Client{}.Bootstrap(context.Background(), c.base(), runtimeID)
			var ref *transport.Refusal
			if err == nil || errors.As(err, &ref) || !strings.HasPrefix(err.Error(), "bootstrap response: ") {
				t.Fatalf("err %v", err)
			}
		})
	}
}

func TestClientUnreachable(t *testing.T) {
	c := newCore(t)
	c.srv.Close()
	_, err := transport.Client{}.Bootstrap(context.Background(), c.base(), runtimeID)
	var ref *transport.Refusal
	if err == nil || errors.As(err, &ref) || errors.Is(err, transport.ErrPermanent) {
		t.Fatalf("a network failure is transient: %v", err)
	}
	if _, err := (transport.Client{}).Dial(context.Background(), "://bad", runtimeID); err == nil || !strings.HasPrefix(err.Error(), "ws_url: ") {
		t.Fatalf("a bad ws_url: %v", err)
	}
}

// Upgrade keeps a refused answer as it came, and Forward hands it on unchanged.
func TestUpgradeKeepsTheRefusedAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("upstream down"))
	}))
	defer srv.Close()
	_, err := transport.Upgrade(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	var ref *transport.Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("err %v", err)
	}
	if ref.Stage != transport.StageDial || ref.Status != http.StatusBadGateway || ref.Code != "" || string(ref.Body) != "upstream down" || ref.ContentType != "text/plain" {
		t.Fatalf("refusal %+v", ref)
	}
	if errors.Is(err, transport.ErrPermanent) {
		t.Fatal("502 is transient")
	}
	w := httptest.NewRecorder()
	ref.Forward(w)
	if w.Code != http.StatusBadGateway || w.Body.String() != "upstream down" || w.Header().Get("Content-Type") != "text/plain" {
		t.Fatalf("forwarded %d %q %v", w.Code, w.Body, w.Header())
	}
}

// Accept sets the protocol's read limit and makes no Origin check.
func TestAcceptWithoutOriginCheck(t *testing.T) {
	c := newCore(t)
	h := http.Header{"Authorization": {bearer}, "Origin": {"http://elsewhere.example"}}
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(c.srv.URL, "http")+proto.RouteWebSocket+"?"+wsQuery,
		&websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("an Origin header is not a reason to refuse: %v", err)
	}
	_ = ws.CloseNow()
}

func TestHeartbeatInterval(t *testing.T) {
	for secs, want := range map[int]string{15: "15s", 1: "1s", 0: "15s", -3: "15s", 1 << 62: "15s"} {
		if got := transport.HeartbeatInterval(&proto.BootstrapResponse{HeartbeatSeconds: secs}).String(); got != want {
			t.Errorf("%d: %s, want %s", secs, got, want)
		}
	}
}
