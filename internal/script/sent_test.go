//go:build linux

package script

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/internal/sockwatch"
)

// tcpPair is a loopback TCP connection: the dialled end and the accepted end.
func tcpPair(t *testing.T) (dialled, accepted net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close(); _ = a.Close() })
	return d, a
}

// AwaitSent returns once the peer's kernel holds every byte written (the peer need not read
// them), and waits while bytes the peer has no room for are undelivered.
func TestAwaitSent(t *testing.T) {
	c := &Conn{}
	if err := c.AwaitSent(context.Background()); !errors.Is(err, ErrCannotCount) {
		t.Fatalf("AwaitSent without a counter: %v; want ErrCannotCount", err)
	}

	w, peer := tcpPair(t)
	// A small receive buffer the kernel does not grow: what it cannot hold stays undelivered
	// however long the machine takes, where an autotuned one grew to take a slow writer's all.
	if err := peer.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	c.SetUnsent(sockwatch.UnsentCounter(w))
	if _, err := w.Write([]byte("a frame the peer does not read")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.AwaitSent(ctx); err != nil {
		t.Fatalf("AwaitSent after a small write: %v", err)
	}

	// More than the peer's receive buffer holds: the rest stays undelivered while it reads nothing.
	if err := w.SetWriteDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, 64<<20)); err == nil {
		t.Fatal("a 64 MiB write to a peer that reads nothing completed")
	}
	if n, err := sockwatch.UnsentCounter(w)(); err != nil || n == 0 {
		t.Fatalf("nothing undelivered after a write the peer has no room for (%d, %v)", n, err)
	}
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.AwaitSent(short); err == nil || !strings.Contains(err.Error(), "still undelivered") {
		t.Fatalf("AwaitSent with bytes the peer has no room for: %v; want it to give up naming them", err)
	}
}
