//go:build !unix

package runner

import "syscall"

// smallCoreSendBuffer leaves the buffer as it is where the socket option is not portable: a stalled
// Runtime then needs more bytes from Core before Core's writes block.
func smallCoreSendBuffer(_, _ string, _ syscall.RawConn) error { return nil }
