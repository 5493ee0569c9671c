// Package sockwatch lets a harness await what the kernel states about the TCP sockets of a peer
// running in its own process: that a write is blocked (the send buffer is full and the kernel has
// taken no byte of it since), or that every socket's reader has taken all the kernel holds and
// waits for more. These are facts, where watching the other end of the socket from outside can
// only guess from a quiet period of real time. A peer in another process cannot be watched so:
// there the guesses stay.
//
// A Watcher wraps each connection its peer dials or accepts (Wrap, DialContext, Listen):
// the wrapper does the peer's reads and writes itself through the socket's syscall.RawConn, so it
// sees every EAGAIN the kernel answers, and asks the kernel for its queues' lengths (SIOCINQ,
// SIOCOUTQ). Only Linux supports it; elsewhere Wrap returns the connection as it is and every wait
// fails with errors.ErrUnsupported.
package sockwatch

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// Watcher tracks the live connections it wrapped.
type Watcher struct {
	mu      sync.Mutex
	conns   map[*Conn]struct{}
	changed chan struct{} // closed and replaced on every change of any connection's state
}

// New returns a Watcher with no connection.
func New() *Watcher {
	return &Watcher{conns: map[*Conn]struct{}{}, changed: make(chan struct{})}
}

// DialContext dials with d and wraps the connection: what an http.Transport's DialContext is set
// to.
func (w *Watcher) DialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return w.Wrap(c), nil
	}
}

// Listen wraps every connection ln accepts: what a server in process is served on.
func (w *Watcher) Listen(ln net.Listener) net.Listener { return listener{ln, w} }

type listener struct {
	net.Listener
	w *Watcher
}

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return l.w.Wrap(c), nil
}

// changedLocked wakes every waiter; the caller holds w.mu.
func (w *Watcher) changedLocked() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// await waits until cond, checked under w.mu whenever a connection's state changes, holds, or
// ctx ends.
func (w *Watcher) await(ctx context.Context, cond func() bool) error {
	for {
		w.mu.Lock()
		ok, changed := cond(), w.changed
		w.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// AwaitSent waits until every byte written on every live connection has reached the other end's
// kernel (SIOCOUTQ 0): the other end can read all of it, and whether it has is for its own
// watcher to say. A socket already closed has nothing left to deliver.
func (w *Watcher) AwaitSent(ctx context.Context) error {
	if !supported {
		return errUnsupported
	}
	return AwaitDelivered(ctx, func() (int, error) {
		w.mu.Lock()
		conns := make([]*Conn, 0, len(w.conns))
		for c := range w.conns {
			conns = append(conns, c)
		}
		w.mu.Unlock()
		pending := 0
		for _, c := range conns {
			if n, err := c.unsent(); err == nil {
				pending += n
			}
		}
		return pending, nil
	})
}

// AwaitDelivered waits until unsent, a count of bytes written that the other end's kernel has not
// acknowledged (UnsentCounter), reads 0. A returned write only means this kernel took the bytes;
// on a loaded machine their delivery, even on loopback, can lag. No event says "acknowledged", so
// it polls every millisecond until ctx ends.
func AwaitDelivered(ctx context.Context, unsent func() (int, error)) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		n, err := unsent()
		if err != nil {
			return fmt.Errorf("counting the socket's undelivered bytes: %w", err)
		}
		if n == 0 {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return fmt.Errorf("%d bytes written are still undelivered: %w", n, context.Cause(ctx))
		}
	}
}

// AwaitBlockedWrite waits until a write on some live connection is blocked: the kernel answered
// EAGAIN (the send buffer is full) and has taken no byte of it since. A write of more bytes than
// the peer's receive buffer and this side's send buffer hold together cannot complete while the
// peer reads nothing, so whatever is written after it on that connection waits behind it.
func (w *Watcher) AwaitBlockedWrite(ctx context.Context) error {
	if !supported {
		return errUnsupported
	}
	return w.await(ctx, func() bool {
		for c := range w.conns {
			if c.writeBlocked {
				return true
			}
		}
		return false
	})
}

// AwaitReadAll waits until every live connection has a read waiting on an empty receive queue:
// its reader has taken everything that arrived (a reader that buffers calls Read only once its
// buffer is used up) and asks for more. A connection whose read met the end of the stream (or a
// broken socket) counts as read: nothing more arrives on it, even while its owner still holds it
// open (a daemon settling its native work after a disconnect). It does not know what is still on
// its way from the other end: the caller first makes sure the other end's sent bytes have
// arrived (SIOCOUTQ there is 0).
func (w *Watcher) AwaitReadAll(ctx context.Context) error {
	if !supported {
		return errUnsupported
	}
	for {
		// Which readers wait, then whether their queues are empty, then that no read returned in
		// between: the kernel's count and the readers' state are not read at one instant.
		var waiting map[*Conn]uint64
		if err := w.await(ctx, func() bool {
			waiting = make(map[*Conn]uint64, len(w.conns))
			for c := range w.conns {
				switch {
				case c.readEnded:
				case !c.readWaiting:
					return false
				default:
					waiting[c] = c.reads
				}
			}
			return true
		}); err != nil {
			return err
		}
		empty := true
		for c := range waiting {
			if n, err := c.unread(); err != nil || n > 0 {
				empty = false // the reader is about to be woken: its read returns, a change
				break
			}
		}
		w.mu.Lock()
		same := true
		for c := range w.conns {
			if _, ok := waiting[c]; !ok && !c.readEnded {
				same = false // a connection dialled in between
			}
		}
		for c, reads := range waiting {
			_, live := w.conns[c]
			same = same && live && c.readWaiting && c.reads == reads
		}
		changed := w.changed
		w.mu.Unlock()
		if empty && same {
			return nil
		}
		if !empty && same {
			select { // wait for the woken reader's read to return
			case <-changed:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
	}
}
