package script

import (
	"context"
	"errors"

	"github.com/wirecheck/wirecheck/internal/sockwatch"
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

// AwaitSent waits until every byte written on the Conn has reached the peer's kernel
// (sockwatch.AwaitDelivered): the peer can then read all of it, and whether it has is the peer's
// to say.
func (c *Conn) AwaitSent(ctx context.Context) error {
	c.pmu.Lock()
	unsent := c.unsentBytes
	c.pmu.Unlock()
	if unsent == nil {
		return ErrCannotCount
	}
	return sockwatch.AwaitDelivered(ctx, unsent)
}
