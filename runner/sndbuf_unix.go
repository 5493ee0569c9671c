//go:build unix

package runner

import "syscall"

// stalledSendBuffer is the send buffer of an in-process side's sockets in a scenario that waits
// for a stall (await_stall): small enough that a frame of a few hundred KiB to a peer that stopped
// reading blocks in its write, so what the side sends next is queued behind it.
const stalledSendBuffer = 32 << 10

// smallSendBufferControl is a net.Dialer or net.ListenConfig Control that gives a socket a fixed
// small send buffer instead of the kernel's autotuned one of up to 4 MiB.
func smallSendBufferControl(_, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, stalledSendBuffer)
	}); err != nil {
		return err
	}
	return serr
}
