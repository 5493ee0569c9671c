package script

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// acceptingServer is a WebSocket server on loopback that hands over each connection it accepts.
func acceptingServer(t *testing.T) (*httptest.Server, <-chan *websocket.Conn) {
	accepted := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		accepted <- ws
	}))
	return srv, accepted
}

// A Conn that stops reading is a stalled TCP peer: the other side's writes pile up in the kernel's
// buffers until one blocks (here it runs into its write deadline, which costs the writer its
// connection, as a per-frame write timeout does). Resumed, the Conn first reads what piled up.
// Nothing waits on a timer of its own: the writer's deadline bounds each blocked write.
func TestStoppedReaderBlocksThePeersWrites(t *testing.T) {
	srv, accepted := acceptingServer(t)
	defer srv.Close()
	ctx := context.Background()
	writer, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.CloseNow()
	reader := NewConn(<-accepted, NewRecorder(), From("runtime"))
	defer reader.Drop()

	reader.StopReading()
	frame := []byte(strings.Repeat("x", 1<<20))
	const most = 256 // 256 MiB: far past any kernel's socket buffers
	written, blocked := 0, false
	for written < most {
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := writer.Write(wctx, websocket.MessageText, frame)
		cancel()
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Logf("the blocked write ended with %v", err)
			}
			blocked = true
			break
		}
		written++
	}
	if !blocked {
		t.Fatalf("%d MiB were written to a peer that stopped reading without a write blocking", written)
	}
	// A Read already under way when reading stopped may still deliver its frame; no more.
	if n := len(reader.Frames()); n > 1 {
		t.Fatalf("%d frames were read while reading was stopped", n)
	}
	reader.ResumeReading()
	got := 0
	for {
		ctx, cancel := Within(t.Context(), 5*time.Second)
		_, err := reader.Next(ctx)
		cancel()
		if err != nil {
			var closed *ClosedError
			if !errors.As(err, &closed) {
				t.Fatalf("after %d frames: %v", got, err)
			}
			break
		}
		got++
	}
	if got == 0 || got > written {
		t.Fatalf("resumed, the reader got %d frames; %d were written before a write blocked", got, written)
	}
	t.Logf("%d MiB written before a write blocked; %d frames read once resumed", written, got)
}

// AwaitStall waits only while reading is stopped, and returns once the socket's unread bytes
// reach the bound and stop growing; one whose count keeps growing fails naming it; a socket that never fills fails it within its bound, naming what it holds.
func TestAwaitStall(t *testing.T) {
	srv, accepted := acceptingServer(t)
	defer srv.Close()
	writer, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.CloseNow()
	reader := NewConn(<-accepted, NewRecorder(), From("runtime"))
	defer reader.Drop()

	if err := awaitStall(t, reader, 1, 0, time.Second); err == nil || !strings.Contains(err.Error(), "not stopped") {
		t.Fatalf("AwaitStall while reading: %v; want an error saying reading is not stopped", err)
	}
	reader.StopReading()
	if err := awaitStall(t, reader, 1, 0, time.Second); err == nil || !strings.Contains(err.Error(), "cannot count") {
		t.Fatalf("AwaitStall without a counter: %v; want an error saying it cannot count", err)
	}
	var unread atomic.Int64
	reader.SetUnread(func() (int, error) { return int(unread.Load()), nil })
	if err := awaitStall(t, reader, 4096, 0, 10*time.Millisecond); err == nil || !strings.Contains(err.Error(), "holds 0 unread bytes") {
		t.Fatalf("AwaitStall on an empty socket: %v; want it to give up naming the 0 bytes", err)
	}
	unread.Store(8192)
	if err := awaitStall(t, reader, 4096, 5*time.Millisecond, time.Second); err != nil {
		t.Fatalf("AwaitStall with 8192 unread bytes: %v", err)
	}
	growing := func() (int, error) { return int(unread.Add(1)), nil } // a peer still writing
	reader.SetUnread(growing)
	if err := awaitStall(t, reader, 4096, 5*time.Millisecond, 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "still grow") {
		t.Fatalf("AwaitStall while the unread bytes grow: %v; want it to give up saying they still grow", err)
	}
}

// awaitStall is AwaitStall bounded by within, as a step bounds it.
func awaitStall(t *testing.T, c *Conn, min int, steady, within time.Duration) error {
	ctx, cancel := Within(t.Context(), within)
	defer cancel()
	return c.AwaitStall(ctx, min, steady)
}
