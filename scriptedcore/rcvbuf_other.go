//go:build !unix

package scriptedcore

import "syscall"

// smallReceiveBuffer leaves the buffer as it is where the socket option is not portable: a stalled
// Core then needs more bytes from the Runtime before its writes block.
func smallReceiveBuffer(_, _ string, _ syscall.RawConn) error { return nil }
