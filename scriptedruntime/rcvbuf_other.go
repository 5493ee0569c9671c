//go:build !unix

package scriptedruntime

import "syscall"

// smallReceiveBuffer leaves the buffer as it is where the socket option is not portable: a stalled
// Runtime then needs more bytes from Core before Core's writes block.
func smallReceiveBuffer(_, _ string, _ syscall.RawConn) error { return nil }
