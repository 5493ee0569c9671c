//go:build unix

package gateway_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"time"

	"github.com/coder/websocket"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
)

var _ = Describe("the send queue", Label("gateway"), func() {
	It("reports a Send that waits for room in the full queue to WithQueueWait, and gives it up when its context ends", func(ctx SpecContext) {
		h := newSmallBufferHarness()
		ws, s := h.dialSmall(ctx)
		_ = ws // never read: what Core writes piles up until its write blocks
		// A frame bigger than both sockets' buffers blocks the writer; 64 more fill the queue.
		big := proto.MustEnvelope(proto.TypeDeviceShutdown, "", &proto.DeviceShutdownPayload{Reason: strings.Repeat("x", 512<<10)})
		Expect(s.Send(ctx, big)).To(Succeed())
		// A Send that finds room reports nothing.
		Expect(s.Send(gateway.WithQueueWait(ctx, func(bool) { Fail("a Send that found room reported a wait") }),
			proto.MustEnvelope(proto.TypeDeviceShutdown, "", nil))).To(Succeed())
		for range proto.CoreSendQueue - 1 {
			Expect(s.Send(ctx, proto.MustEnvelope(proto.TypeDeviceShutdown, "", nil))).To(Succeed())
		}
		sendCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		var waits []bool
		err := s.Send(gateway.WithQueueWait(sendCtx, func(w bool) {
			waits = append(waits, w)
			if w {
				cancel() // the send budget runs out
			}
		}), proto.MustEnvelope(proto.TypeDeviceShutdown, "", nil))
		Expect(err).To(MatchError(gateway.ErrSendQueueFull))
		Expect(waits).To(Equal([]bool{true, false}))
	})
})

// newSmallBufferHarness is newHarness with a small send buffer on Core's sockets, so a frame of a
// few hundred KiB to a daemon that reads nothing blocks Core's writer.
func newSmallBufferHarness() *harness {
	h := &harness{clk: clock.NewFake()}
	mux := http.NewServeMux()
	h.srv = httptest.NewUnstartedServer(mux)
	lc := net.ListenConfig{Control: bufferControl(syscall.SO_SNDBUF)}
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	_ = h.srv.Listener.Close()
	h.srv.Listener = l
	h.g, err = gateway.New(gateway.Config{PublicURL: "http://core.example:8080", Auth: auth{device: secret}, Clock: h.clk})
	Expect(err).NotTo(HaveOccurred())
	h.g.Register(mux)
	h.srv.Start()
	DeferCleanup(func() {
		h.g.Close()
		h.srv.Close()
	})
	return h
}

// dialSmall is dial from a socket with a small receive buffer.
func (h *harness) dialSmall(ctx context.Context) (*websocket.Conn, *gateway.Session) {
	d := &net.Dialer{Control: bufferControl(syscall.SO_RCVBUF)}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = d.DialContext
	hdr := http.Header{"Authorization": {"Bearer " + secret}}
	ws, _, err := websocket.Dial(ctx, h.wsURL(device, proto.Version), &websocket.DialOptions{HTTPHeader: hdr, HTTPClient: &http.Client{Transport: t, Timeout: time.Minute}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = ws.CloseNow() })
	var s *gateway.Session
	Eventually(func() *gateway.Session { s = h.g.Session(device); return s }).ShouldNot(BeNil())
	return ws, s
}

func bufferControl(opt int) func(string, string, syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 16<<10) }); err != nil {
			return err
		}
		return serr
	}
}
