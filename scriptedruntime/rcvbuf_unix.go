//go:build unix

package scriptedruntime

import (
	"syscall"
)

// smallReceiveBuffer sets a dialing socket's receive buffer to stalledReceiveBuffer before it
// connects, so a scenario whose Runtime stops reading blocks Core's writes after as few bytes as
// Core's own send buffer allows.
func smallReceiveBuffer(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, stalledReceiveBuffer)
	})
	if err != nil {
		return err
	}
	return serr
}
