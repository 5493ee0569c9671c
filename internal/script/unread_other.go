//go:build !linux

package script

import "net"

// UnreadCounter is unavailable here: await_stall fails with a clear error.
func UnreadCounter(net.Conn) func() (int, error) { return nil }

// UnsentCounter is unavailable here: advance does not wait for Core's frames to arrive.
func UnsentCounter(net.Conn) func() (int, error) { return nil }
