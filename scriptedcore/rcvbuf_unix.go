//go:build unix

package scriptedcore

import (
	"syscall"
)

// smallReceiveBuffer sets a listening socket's receive buffer (inherited by the connections it
// accepts) to stalledReceiveBuffer, so a scenario whose Core stops reading blocks the Runtime's
// writes after as few bytes as the Runtime's own send buffer allows.
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
