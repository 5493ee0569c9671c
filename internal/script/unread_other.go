//go:build !linux

package script

import "net"

// UnreadCounter is unavailable here: await_stall fails with a clear error.
func UnreadCounter(net.Conn) func() (int, error) { return nil }
