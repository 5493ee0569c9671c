//go:build !linux

package sockwatch

import "net"

// UnreadCounter is unavailable here (nil): await_stall fails with a clear error.
func UnreadCounter(net.Conn) func() (int, error) { return nil }

// UnsentCounter is unavailable here (nil): advance does not wait for Core's frames to arrive.
func UnsentCounter(net.Conn) func() (int, error) { return nil }
