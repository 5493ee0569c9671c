package script

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// SetUnsent gives the Conn a way to count the bytes it wrote that the peer's kernel has not yet
// acknowledged (SIOCOUTQ), for AwaitSent.
func (c *Conn) SetUnsent(f func() (int, error)) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	c.unsentBytes = f
}

// ErrCannotCount: the Conn's socket cannot count what it has not yet delivered.
var ErrCannotCount = errors.New("this socket cannot count its undelivered bytes")

// AwaitSent waits until every byte written on the Conn has reached the peer's kernel: the peer
// can then read all of it, and whether it has is the peer's to say. A returned Write only means
// the local kernel took the bytes; on a loaded machine their delivery, even on loopback, can lag.
// It polls the kernel's count every millisecond (no event says "acknowledged") until ctx ends.
func (c *Conn) AwaitSent(ctx context.Context) error {
	c.pmu.Lock()
	unsent := c.unsentBytes
	c.pmu.Unlock()
	if unsent == nil {
		return ErrCannotCount
	}
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
