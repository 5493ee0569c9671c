package script

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A Conn that stops reading is a stalled TCP peer: the other side's writes pile up in the kernel's
// buffers until one blocks (here it runs into its write deadline, which costs the writer its
// connection, as a per-frame write timeout does). Resumed, the Conn first reads what piled up.
// Nothing waits on a timer of its own: the writer's deadline bounds each blocked write.
func TestStoppedReaderBlocksThePeersWrites(t *testing.T) {
	accepted := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			t.Error(err)
			return
		}
		accepted <- ws
	}))
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
		_, err := reader.Next(5 * time.Second)
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
