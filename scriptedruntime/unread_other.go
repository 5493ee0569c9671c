//go:build !linux

package scriptedruntime

import "net"

// unreadCounter is unavailable here: await_stall fails with a clear error.
func unreadCounter(net.Conn) func() (int, error) { return nil }
