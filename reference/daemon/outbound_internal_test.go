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

// TestOutboundWriteDeadlineRunsOnTheTransportClock: a write to a peer that never reads fails once
// the transport clock passes the 10 s per-frame write timeout (CN-42), and every frame queued
// behind it fails too: a failed write closes the session.
func TestOutboundWriteDeadlineRunsOnTheTransportClock(t *testing.T) {
	ws := stalledConn(t)
	tc := clock.NewFake()
	o := newOutbound(ws, tc)
	defer o.close()
	env := proto.MustEnvelope(proto.TypeDelta, "run", &proto.DeltaPayload{Delta: strings.Repeat("x", 1<<20), Sequence: 1})
	const frames = 64 // 64 MiB: far past any kernel's socket buffers
	results := make([]<-chan error, frames)
	for i := range results {
		results[i] = o.enqueue(env)
	}
	if !tc.WaitDue(proto.WriteTimeout, 5*time.Second) {
		t.Fatal("no write armed a deadline on the transport clock")
	}
	tc.Advance(proto.WriteTimeout)
	failedAt := -1
	for i, res := range results {
		select {
		case err := <-res:
			if err != nil && failedAt < 0 {
				failedAt = i
			}
			if err == nil && failedAt >= 0 {
				t.Fatalf("frame %d was written after frame %d failed: a failed write must close the session", i, failedAt)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("frame %d got no result after the transport clock passed the write timeout", i)
		}
	}
	if failedAt < 0 {
		t.Fatal("every frame was written to a peer that never reads")
	}
}

// stalledConn returns the client end of a WebSocket on loopback whose server end never reads.
func stalledConn(t *testing.T) *websocket.Conn {
	t.Helper()
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		<-quit
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(quit) })
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.CloseNow() })
	return ws
}
