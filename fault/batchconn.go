package fault

import (
	"context"
	"net"
	"sync"
	"time"
)

// batchConn coalesces the writes of one of the relay's sockets: Write queues the bytes and
// returns, and one goroutine writes everything queued since its last write in a single syscall.
// A relay forwards frames as fast as it reads them, and the WebSocket library flushes every
// message on its own; without this, each frame would cost the relay a write syscall of its own,
// which is what made it slow (docs/performance.md). Order is kept; a receiver that does not read
// still pushes back, once maxQueued bytes wait.
type batchConn struct {
	net.Conn
	mu      sync.Mutex
	cond    sync.Cond
	queued  []byte
	spare   []byte
	err     error // the first write error, returned by every later Write
	closing bool
	writing bool            // the writer is in a write, outside mu
	idle    []chan struct{} // closed once nothing is queued or being written (waitIdle)
	done    chan struct{}   // closed when the writer has stopped
}

const maxQueued = 1 << 20

// closeFlush bounds how long Close waits for queued bytes to reach a peer that does not read.
var closeFlush = time.Second

func newBatchConn(c net.Conn) *batchConn {
	b := &batchConn{Conn: c, done: make(chan struct{})}
	b.cond.L = &b.mu
	go b.writer()
	return b
}

func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.err == nil && !b.closing && len(b.queued) >= maxQueued {
		b.cond.Wait()
	}
	switch {
	case b.err != nil:
		return 0, b.err
	case b.closing:
		return 0, net.ErrClosed
	}
	b.queued = append(b.queued, p...)
	b.cond.Broadcast()
	return len(p), nil
}

func (b *batchConn) writer() {
	defer close(b.done)
	b.mu.Lock()
	defer b.mu.Unlock()
	defer b.wakeIdleLocked() // stopped: nothing more will be written
	for {
		for len(b.queued) == 0 && !b.closing {
			b.wakeIdleLocked()
			b.cond.Wait()
		}
		if len(b.queued) == 0 {
			return // closing, and everything queued is written
		}
		batch := b.queued
		b.queued = b.spare[:0]
		b.writing = true
		b.mu.Unlock()
		_, err := b.Conn.Write(batch)
		b.mu.Lock()
		b.writing = false
		if cap(batch) <= 2*maxQueued { // do not keep a huge frame's buffer for the connection
			b.spare = batch[:0]
		}
		if err != nil {
			b.err = err
			b.queued = nil
			b.cond.Broadcast()
			return
		}
		b.cond.Broadcast()
	}
}

// waitIdle returns once everything written to b is in the kernel (nothing queued, no write in
// progress) or b has stopped writing, or ctx ends.
func (b *batchConn) waitIdle(ctx context.Context) error {
	b.mu.Lock()
	if len(b.queued) == 0 && !b.writing || b.err != nil {
		b.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	b.idle = append(b.idle, ch)
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-b.done:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (b *batchConn) wakeIdleLocked() {
	for _, ch := range b.idle {
		close(ch)
	}
	b.idle = nil
}

// Close writes what is queued (for at most closeFlush), then closes the socket: a frame the
// relay forwarded before a cut still reaches the peer.
func (b *batchConn) Close() error {
	b.mu.Lock()
	first := !b.closing
	b.closing = true
	b.cond.Broadcast()
	b.mu.Unlock()
	if first {
		_ = b.Conn.SetWriteDeadline(time.Now().Add(closeFlush))
		<-b.done
	}
	return b.Conn.Close()
}

// batchListener hands out batching connections, each known to set.
type batchListener struct {
	net.Listener
	set *batchSet
}

func (l batchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.set.add(newBatchConn(c)), nil
}

// batchDial dials with dial and hands out a batching connection known to set.
func batchDial(dial func(ctx context.Context, network, addr string) (net.Conn, error), set *batchSet) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return set.add(newBatchConn(c)), nil
	}
}

// batchSet is the relay's batching connections that have not stopped writing.
type batchSet struct {
	mu    sync.Mutex
	conns map[*batchConn]struct{}
}

func (s *batchSet) add(b *batchConn) *batchConn {
	s.mu.Lock()
	if s.conns == nil {
		s.conns = map[*batchConn]struct{}{}
	}
	s.conns[b] = struct{}{}
	s.mu.Unlock()
	go func() { // owner: the connection; ends when its writer stops
		<-b.done
		s.mu.Lock()
		delete(s.conns, b)
		s.mu.Unlock()
	}()
	return b
}

// waitIdle returns once every connection of the set has written everything queued to it.
func (s *batchSet) waitIdle(ctx context.Context) error {
	s.mu.Lock()
	conns := make([]*batchConn, 0, len(s.conns))
	for b := range s.conns {
		conns = append(conns, b)
	}
	s.mu.Unlock()
	for _, b := range conns {
		if err := b.waitIdle(ctx); err != nil {
			return err
		}
	}
	return nil
}
