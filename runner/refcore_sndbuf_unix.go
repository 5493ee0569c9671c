//go:build unix

package runner

import "syscall"

// smallCoreSendBuffer sets the reference Core's listening socket's send buffer (inherited by the
// connections it accepts) to stalledSendBuffer, so that in a scenario whose Runtime stops reading
// a frame of a few hundred KiB blocks in Core's write instead of vanishing into the kernel's
// autotuned buffer of up to 4 MiB.
func smallCoreSendBuffer(_, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, stalledSendBuffer)
	}); err != nil {
		return err
	}
	return serr
}
