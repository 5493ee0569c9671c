//go:build unix

package script

import "syscall"

// SmallReceiveBuffer is a net.Dialer or net.ListenConfig Control that sets the socket's receive
// buffer to StalledReceiveBuffer (a listener's connections inherit it): a peer that stops reading
// then blocks the other side's writes after as few bytes as that side's send buffer allows.
func SmallReceiveBuffer(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, StalledReceiveBuffer)
	})
	if err != nil {
		return err
	}
	return serr
}
