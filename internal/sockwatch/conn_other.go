//go:build !linux

package sockwatch

import (
	"errors"
	"fmt"
	"net"
)

const supported = false

var errUnsupported = fmt.Errorf("sockwatch: watching a socket in the kernel: %w", errors.ErrUnsupported)

// Conn is never made here: Wrap returns the connection as it is.
type Conn struct {
	writeBlocked, readWaiting, readEnded bool
	reads                                uint64
}

func (c *Conn) unread() (int, error) { return 0, errUnsupported }

func (c *Conn) unsent() (int, error) { return 0, errUnsupported }

// Wrap returns c as it is: this platform cannot watch a socket.
func (w *Watcher) Wrap(c net.Conn) net.Conn { return c }
