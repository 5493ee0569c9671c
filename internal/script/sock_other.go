//go:build !unix

package script

import "syscall"

// SmallReceiveBuffer leaves the buffer as it is where the socket option is not portable: a
// stalled peer then needs more bytes from the other side before its writes block.
func SmallReceiveBuffer(_, _ string, _ syscall.RawConn) error { return nil }
