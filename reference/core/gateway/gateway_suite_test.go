package gateway_test

import (
	"context"

	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
)

func TestGateway(t *testing.T) {
	RegisterFailHandler(Fail)
	// A bound, not a wait: Eventually returns as soon as what it waits for holds; a load average of 30
	// on two CPUs must not reach it.
	SetDefaultEventuallyTimeout(time.Minute)
	RunSpecs(t, "reference Core gateway")
}

var ignore goleak.Option

var _ = BeforeSuite(func() { ignore = goleak.IgnoreCurrent() })

var _ = AfterSuite(func() {
	Eventually(func() error { return goleak.Find(ignore) }).Should(Succeed())
})

const (
	device = "device-1"
	secret = "the-device-credential"
)

type auth map[string]string // device → credential

func (a auth) Authenticate(deviceID, credential string) (string, error) {
	switch want, ok := a[deviceID]; {
	case deviceID == "api-key-device":
		return "", gateway.ErrWrongRuntime
	case !ok:
		return "", gateway.ErrUnknownDevice
	case want != credential:
		return "", gateway.ErrBadCredential
	}
	return "ws-1", nil
}

// harness is a Gateway on an httptest server with a fake clock.
type harness struct {
	g   *gateway.Gateway
	srv *httptest.Server
	clk *clock.Fake
}

func newHarness() *harness {
	h := &harness{clk: clock.NewFake()}
	mux := http.NewServeMux()
	h.srv = httptest.NewUnstartedServer(mux)
	var err error
	h.g, err = gateway.New(gateway.Config{PublicURL: "http://core.example:8080", Auth: auth{device: secret, "device-2": "other"}, Clock: h.clk})
	Expect(err).NotTo(HaveOccurred())
	h.g.Register(mux)
	h.srv.Start()
	DeferCleanup(func() {
		h.g.Close()
		h.srv.Close()
	})
	return h
}

func (h *harness) url(path string) string { return h.srv.URL + path }

func (h *harness) wsURL(deviceID, version string) string {
	return "ws" + strings.TrimPrefix(h.srv.URL, "http") + proto.RouteWebSocket + "?device_id=" + url.QueryEscape(deviceID) + "&version=" + url.QueryEscape(version)
}

// dial connects as a daemon and waits until the gateway registered the connection.
func (h *harness) dial(ctx context.Context) (*websocket.Conn, *gateway.Session) {
	before := h.g.Session(device)
	hdr := http.Header{"Authorization": {"Bearer " + secret}}
	ws, _, err := websocket.Dial(ctx, h.wsURL(device, proto.Version), &websocket.DialOptions{HTTPHeader: hdr})
	Expect(err).NotTo(HaveOccurred())
	ws.SetReadLimit(proto.MaxFrameBytes + 1024)
	DeferCleanup(func() { _ = ws.CloseNow() })
	var s *gateway.Session
	Eventually(func() bool { s = h.g.Session(device); return s != nil && s != before }).Should(BeTrue())
	return ws, s
}

func send(ctx context.Context, ws *websocket.Conn, typ, id string, payload any) {
	env := proto.MustEnvelope(typ, id, payload)
	raw, err := env.Encode()
	Expect(err).NotTo(HaveOccurred())
	Expect(ws.Write(ctx, websocket.MessageText, raw)).To(Succeed())
}

func heartbeat(supported ...string) *proto.HeartbeatPayload {
	caps := proto.MustDeclareCapabilities(supported...)
	return &proto.HeartbeatPayload{TS: 1710000000, SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: &caps}}}
}

// drain reads every event of a channel until it closes.
func drain(ch <-chan gateway.Event) []gateway.Event {
	var out []gateway.Event
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, ev)
		case <-time.After(3 * time.Second):
			Fail("the subscription did not close")
			return out
		}
	}
}

func types(evs []gateway.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Envelope.Type
	}
	return out
}
