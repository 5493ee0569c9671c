package daemon

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
)

// TestOutboundAnswersEveryFrameQueuedAfterClose: a frame queued after the outbound loop stopped must
// get its result (errTransportClosed) at once. enqueue selects between a send on the buffered queue
// and <-o.stop; once stop is closed both are ready, so about half of the late frames land in the
// buffer, where nobody will ever answer them, and their sender waits forever. In the daemon this is
// the heartbeat goroutine when the transport ends before its first heartbeat is queued (serve then
// blocks on <-hbDone), or any goroutine the router waits for in shutdown (wg.Wait) that sends after
// r.out.close(). Seen as `wirecheck runtime` ignoring SIGTERM: it receives it within a millisecond
// of reconnecting and never exits.
func TestOutboundAnswersEveryFrameQueuedAfterClose(t *testing.T) {
	ws := loopbackConn(t)
	o := newOutbound(ws, clock.Real())
	o.close()
	env := proto.MustEnvelope(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{})
	for i := range proto.RuntimeChannelFrames {
		select {
		case err := <-o.enqueue(env):
			if err == nil {
				t.Fatalf("frame %d queued after close was reported written", i)
			}
		case <-time.After(time.Second):
			t.Fatalf("frame %d queued after close got no result within 1s: its sender would wait forever", i)
		}
	}
}

// loopbackConn returns the client end of a WebSocket on loopback whose server end only reads.
func loopbackConn(t *testing.T) *websocket.Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		for {
			if _, _, err := c.Read(context.Background()); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}
