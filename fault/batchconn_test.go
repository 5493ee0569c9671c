package fault

import (
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// Writes keep their order, a peer that does not read pushes back once maxQueued bytes wait, and
// Close delivers what was queued.
func TestBatchConnOrderBackpressureAndClose(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	c := newBatchConn(a)
	const chunk = 64 << 10
	var want bytes.Buffer
	accepted := make(chan int, 64)
	go func() {
		defer close(accepted)
		for i := 0; i < 48; i++ { // 3 MiB
			p := bytes.Repeat([]byte{byte(i)}, chunk)
			if _, err := c.Write(p); err != nil {
				return
			}
			accepted <- len(p)
		}
	}()
	for i := 0; i < 48; i++ {
		want.Write(bytes.Repeat([]byte{byte(i)}, chunk))
	}
	// Nobody reads: the writer must stop once about maxQueued bytes wait (plus the batch the
	// writer goroutine holds in the pipe).
	total := 0
	stalled := time.NewTimer(200 * time.Millisecond)
	defer stalled.Stop()
wait:
	for {
		select {
		case n, ok := <-accepted:
			if !ok {
				t.Fatalf("every write was accepted without a reader: no backpressure")
			}
			total += n
		case <-stalled.C:
			break wait
		}
	}
	if total > 2*maxQueued+chunk {
		t.Fatalf("%d bytes accepted without a reader; the queue is bounded at %d", total, maxQueued)
	}
	got := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(b)
		got <- data
	}()
	for range accepted {
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if data := <-got; !bytes.Equal(data, want.Bytes()) {
		t.Fatalf("the peer read %d bytes, not the %d written in order", len(data), want.Len())
	}
	if _, err := c.Write([]byte("late")); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}

// Close gives up on a peer that never reads after closeFlush.
func TestBatchConnCloseIsBounded(t *testing.T) {
	defer func(d time.Duration) { closeFlush = d }(closeFlush)
	closeFlush = 20 * time.Millisecond
	a, b := net.Pipe()
	defer b.Close()
	c := newBatchConn(a)
	if _, err := c.Write([]byte("never read")); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	select {
	case <-closed:
	case <-time.After(3 * time.Second):
		t.Fatal("Close waited for a peer that never reads")
	}
}

// A batching connection is idle only once what was written to it is out of its hands: while the
// peer has not taken the bytes (a pipe hands them over only as they are read) waitIdle says no,
// and once they are read it says yes. A set waits for all its connections and forgets one that
// stopped.
func TestBatchConnIsIdleOnlyOnceWritten(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	var set batchSet
	c := set.add(newBatchConn(a))
	if err := set.waitIdle(context.Background()); err != nil {
		t.Fatalf("a connection nothing was written to is not idle: %v", err)
	}
	msg := []byte("frame for the peer")
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := set.waitIdle(cancelled); err == nil {
		t.Fatal("idle while the peer has not taken the bytes")
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(b, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("the peer read %q, %v", got, err)
	}
	if err := set.waitIdle(context.Background()); err != nil {
		t.Fatalf("not idle once the peer took everything: %v", err)
	}
	_ = c.Close()
	if err := set.waitIdle(cancelled); err != nil {
		t.Fatalf("a closed connection keeps its set busy: %v", err)
	}
}
