//go:build linux

package script

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// UnreadCounter counts the bytes a TCP connection's receive queue holds unread (SIOCINQ); nil
// where the connection offers no file descriptor.
func UnreadCounter(c net.Conn) func() (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() (int, error) {
		var n int
		var ierr error
		if err := raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }); err != nil {
			return 0, err
		}
		return n, ierr
	}
}
