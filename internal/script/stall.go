package script

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A stalled reader: StopReading makes the Conn's reader goroutine stop calling Read, as a peer
// whose application stops reading its socket does. What the other side writes then piles up in
// the kernel's buffers (the reading side's receive buffer, the writer's send buffer) until the
// writer's writes block. ResumeReading reads again, first what piled up. A frame whose Read had
// already begun when StopReading was called is still delivered: the stall starts after it.

// StopReading stops reading the socket until ResumeReading.
func (c *Conn) StopReading() {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.paused == nil {
		c.paused = make(chan struct{})
		c.rec.Event("stop-reading", "the socket is no longer read")
	}
}

// ResumeReading reads the socket again.
func (c *Conn) ResumeReading() {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if c.paused != nil {
		close(c.paused)
		c.paused = nil
		c.rec.Event("resume-reading", "the socket is read again")
	}
}

// waitReading blocks while reading is stopped; false once ctx ended (the Conn closed).
func (c *Conn) waitReading(ctx context.Context) bool {
	c.pmu.Lock()
	p := c.paused
	c.pmu.Unlock()
	if p == nil {
		return true
	}
	select {
	case <-p:
		return true
	case <-ctx.Done():
		return false
	}
}

// Stopped reports whether reading is stopped.
func (c *Conn) Stopped() bool {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	return c.paused != nil
}

// SetUnread gives the Conn a way to count the bytes its socket holds unread (the kernel's receive
// queue), for AwaitStall.
func (c *Conn) SetUnread(f func() (int, error)) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	c.unreadBytes = f
}

// AwaitStall waits, while reading is stopped, until the socket holds at least min unread bytes
// and that count has not moved for steady: the receive queue is full and the peer's writes are
// blocked, not merely begun (a peer between two writes could still send a small frame ahead of
// the rest). It polls the kernel's count every millisecond (no event says "the receive queue
// grew") until ctx ends; the caller bounds it with Within, and a failure then names that bound.
// It is a guess from real time, for a peer whose own sockets nobody watches (a daemon in another
// process); the scripted Core asks an in-process Runtime's kernel instead
// (scriptedcore.SocketWatched).
func (c *Conn) AwaitStall(ctx context.Context, min int, steady time.Duration) error {
	c.pmu.Lock()
	unread, stopped := c.unreadBytes, c.paused != nil
	c.pmu.Unlock()
	switch {
	case !stopped:
		return errors.New("reading is not stopped: nothing can pile up")
	case unread == nil:
		return errors.New("this socket cannot count its unread bytes")
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	n, last, since := 0, -1, time.Now()
	for {
		var err error
		if n, err = unread(); err != nil {
			return fmt.Errorf("counting the socket's unread bytes: %w", err)
		}
		if n != last {
			last, since = n, time.Now()
		}
		if n >= min && time.Since(since) >= steady {
			c.rec.Event("stalled", fmt.Sprintf("%d bytes unread on the socket, unchanged for %v", n, steady))
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			var te *TimeoutError
			switch {
			case !errors.As(context.Cause(ctx), &te):
				return fmt.Errorf("stopped with %d unread bytes on the socket: %w", n, context.Cause(ctx))
			case n >= min:
				return fmt.Errorf("after %v the socket's unread bytes still grow (%d): the peer's writes never blocked", te.Bound, n)
			}
			return fmt.Errorf("after %v the socket holds %d unread bytes, fewer than the %d of a peer writing to it", te.Bound, n, min)
		}
	}
}

// StalledReceiveBuffer is the receive buffer of a scripted peer's socket in a scenario where it
// stops reading (the kernel doubles it and keeps a floor of its own).
const StalledReceiveBuffer = 16 << 10
