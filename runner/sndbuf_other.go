//go:build !unix

package runner

import "syscall"

// smallSendBufferControl: socket options are not set here; the kernel's default buffer stays.
var smallSendBufferControl func(network, address string, c syscall.RawConn) error
