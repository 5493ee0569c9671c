package script

import "context"

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
