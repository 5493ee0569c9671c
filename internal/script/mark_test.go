package script

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// A written frame marks the moment its write started: time the writing goroutine loses after the
// write (a loaded machine) must not open the next silence window inside the peer's answer.
func TestWriteMarksBeforeTheWrite(t *testing.T) {
	accepted := make(chan *websocket.Conn, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		accepted <- ws
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	defer peer.CloseNow()
	go func() { // the peer reads, so that the close handshake ends at once
		for {
			if _, _, err := peer.Read(ctx); err != nil {
				return
			}
		}
	}()
	c := NewConn(ws, NewRecorder(), From(proto.Runtime))
	defer c.Close(int(websocket.StatusNormalClosure), "")

	var written time.Time
	testHookWritten = func() { written = time.Now() } // the write is over; the goroutine is late
	defer func() { testHookWritten = nil }()
	if err := c.Write(ctx, []byte(`{"type":"heartbeat","payload":{}}`)); err != nil {
		t.Fatal(err)
	}
	if m := c.Mark(); !m.Before(written) {
		t.Fatalf("the mark %v is not before the write's end %v", m, written)
	}
}
