//go:build linux

package sockwatch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pair is a loopback TCP connection: the dialled end watched by w, the accepted end plain. Both
// sockets get small buffers, so a write of a few hundred KiB blocks when the accepted end does
// not read.
func pair(t *testing.T, w *Watcher) (watched net.Conn, peer *net.TCPConn) {
	t.Helper()
	small := func(opt int) func(_, _ string, c syscall.RawConn) error {
		return func(_, _ string, c syscall.RawConn) error {
			var serr error
			if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 16<<10) }); err != nil {
				return err
			}
			return serr
		}
	}
	lc := net.ListenConfig{Control: small(syscall.SO_RCVBUF)}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := &net.Dialer{Control: small(syscall.SO_SNDBUF)}
	c, err := w.DialContext(d)(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	a, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = a.Close() })
	return c, a.(*net.TCPConn)
}

// arrived waits until the kernel has delivered everything c sent (SIOCOUTQ 0): AwaitReadAll
// knows nothing of bytes still on their way.
func arrived(t *testing.T, c *net.TCPConn) {
	t.Helper()
	if err := AwaitDelivered(bounded(t), UnsentCounter(c)); err != nil {
		t.Fatal(err)
	}
}

func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A write of more than both buffers hold, to a peer that does not read, is reported blocked; it
// completes, byte for byte, once the peer reads, and is then no longer blocked.
func TestAwaitBlockedWrite(t *testing.T) {
	w := New()
	c, peer := pair(t, w)
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	wrote := make(chan error, 1)
	go func() {
		n, err := c.Write(data)
		if err == nil && n != len(data) {
			err = io.ErrShortWrite
		}
		wrote <- err
	}()
	if err := w.AwaitBlockedWrite(bounded(t)); err != nil {
		t.Fatalf("AwaitBlockedWrite: %v", err)
	}
	select {
	case err := <-wrote:
		t.Fatalf("the write returned (%v) while the peer read nothing", err)
	default:
	}
	got, err := io.ReadAll(io.LimitReader(peer, int64(len(data))))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the peer read %d bytes (%v); want the %d written", len(got), err, len(data))
	}
	if err := <-wrote; err != nil {
		t.Fatalf("Write: %v", err)
	}
	w.mu.Lock()
	blocked := c.(*Conn).writeBlocked
	w.mu.Unlock()
	if blocked {
		t.Fatal("the write completed and is still marked blocked")
	}
}

// AwaitSent waits for what was written to reach the other end's kernel: not while a blocked
// write's bytes sit in this side's send queue, and at once when the peer has read them.
func TestAwaitSent(t *testing.T) {
	w := New()
	c, peer := pair(t, w)
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	wrote := make(chan error, 1)
	go func() { _, err := c.Write(data); wrote <- err }()
	if err := w.AwaitBlockedWrite(bounded(t)); err != nil {
		t.Fatalf("AwaitBlockedWrite: %v", err)
	}
	over, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.AwaitSent(over); err == nil || !strings.Contains(err.Error(), "still undelivered") {
		t.Fatalf("AwaitSent with bytes queued behind a peer that reads nothing: %v", err)
	}
	if _, err := io.ReadFull(peer, make([]byte, len(data))); err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("Write: %v", err)
	}
	if err := w.AwaitSent(bounded(t)); err != nil {
		t.Fatalf("AwaitSent once the peer read everything: %v", err)
	}
}

// AwaitReadAll returns only while the reader waits on an empty queue: not while it is away
// (between two reads), and not before it took what arrived; or once the stream has ended.
func TestAwaitReadAll(t *testing.T) {
	w := New()
	c, peer := pair(t, w)
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	if err := w.AwaitReadAll(short()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitReadAll with no read pending: %v; want it to wait until its context ends", err)
	}

	got := make(chan []byte)
	go func() {
		defer close(got)
		for {
			b := make([]byte, 64)
			n, err := c.Read(b)
			if err != nil {
				return
			}
			got <- b[:n]
		}
	}()
	if err := w.AwaitReadAll(bounded(t)); err != nil {
		t.Fatalf("AwaitReadAll with a reader waiting: %v", err)
	}
	if _, err := peer.Write([]byte("frame")); err != nil {
		t.Fatal(err)
	}
	arrived(t, peer)
	// The reader took the bytes and hands them over: it is away until got is read, so
	// AwaitReadAll must not return.
	if err := w.AwaitReadAll(short()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitReadAll with the reader away: %v; want it to wait", err)
	}
	if b := <-got; string(b) != "frame" {
		t.Fatalf("read %q; want %q", b, "frame")
	}
	if err := w.AwaitReadAll(bounded(t)); err != nil {
		t.Fatalf("AwaitReadAll once the reader waits again: %v", err)
	}
	_ = peer.Close()
	if _, ok := <-got; ok {
		t.Fatal("the reader read past the peer's close")
	}
	// Its read met the end of the stream: nothing more arrives, though the socket is still open
	// and no read is pending.
	if err := w.AwaitReadAll(bounded(t)); err != nil {
		t.Fatalf("AwaitReadAll after the end of the stream: %v", err)
	}
}

// A reader woken from its wait that has taken the bytes but not yet returned is not waiting: the
// queue it just emptied must not make AwaitReadAll return.
func TestAwaitReadAllWhileAReadTakesBytes(t *testing.T) {
	w := New()
	c, peer := pair(t, w)
	took, release := make(chan struct{}), make(chan struct{})
	let := sync.OnceFunc(func() { close(release) })
	testHookRead = func() { close(took); <-release }
	// Before the pair's cleanup: Close waits for the read the hook holds.
	t.Cleanup(func() { let(); testHookRead = nil })

	read := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 64))
		read <- err
	}()
	if err := w.AwaitReadAll(bounded(t)); err != nil {
		t.Fatalf("AwaitReadAll with a reader waiting: %v", err)
	}
	if _, err := peer.Write([]byte("frame")); err != nil {
		t.Fatal(err)
	}
	<-took
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := w.AwaitReadAll(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitReadAll while the woken reader holds the bytes: %v; want it to wait", err)
	}
	let()
	if err := <-read; err != nil {
		t.Fatal(err)
	}
}

// Deadlines and Close end a waiting read or write with the errors the wrapped socket gives, and
// a closed connection is no longer watched.
func TestDeadlinesAndClose(t *testing.T) {
	w := New()
	c, _ := pair(t, w)
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past its deadline: %v; want os.ErrDeadlineExceeded", err)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := c.Write(make([]byte, 1<<20))
		wrote <- err
	}()
	if err := w.AwaitBlockedWrite(bounded(t)); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	if err := <-wrote; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a blocked Write when the connection closes: %v; want net.ErrClosed", err)
	}
	w.mu.Lock()
	n := len(w.conns)
	w.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d connections watched after Close; want 0", n)
	}
	if err := w.AwaitReadAll(bounded(t)); err != nil {
		t.Fatalf("AwaitReadAll with no connection: %v", err)
	}
}

// A watched listener watches what it accepts: a server's blocked write is seen as a client's is.
func TestListenWatchesWhatItAccepts(t *testing.T) {
	w := New()
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 16<<10) }); err != nil {
			return err
		}
		return serr
	}}
	plain, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := w.Listen(plain)
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := server.(*Conn); !ok {
		t.Fatalf("Accept returned a %T; want the watched *Conn", server)
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := server.Write(make([]byte, 8<<20))
		wrote <- err
	}()
	if err := w.AwaitBlockedWrite(bounded(t)); err != nil {
		t.Fatalf("AwaitBlockedWrite with the client reading nothing: %v", err)
	}
	_ = server.Close()
	if err := <-wrote; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("the blocked Write when the server closes: %v; want net.ErrClosed", err)
	}
}
