//go:build linux

package sockwatch

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// UnreadCounter counts the bytes a TCP connection's receive queue holds unread (SIOCINQ); nil
// where the connection offers no file descriptor or the platform cannot count.
func UnreadCounter(c net.Conn) func() (int, error) { return counter(c, unix.SIOCINQ) }

// UnsentCounter counts the bytes a TCP connection has written that the other end's kernel has not
// yet acknowledged (SIOCOUTQ): 0 once everything written sits in the other end's receive queue or
// was read. nil where the connection offers no file descriptor or the platform cannot count.
func UnsentCounter(c net.Conn) func() (int, error) { return counter(c, unix.SIOCOUTQ) }

func counter(c net.Conn, req uint) func() (int, error) {
	raw := rawConn(c)
	if raw == nil {
		return nil
	}
	return func() (int, error) { return queued(raw, req) }
}

// rawConn is c's socket, or nil when c has no file descriptor.
func rawConn(c net.Conn) syscall.RawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// queued asks the kernel for one of a socket's queue lengths (SIOCINQ, SIOCOUTQ).
func queued(raw syscall.RawConn, req uint) (int, error) {
	var n int
	var ierr error
	if err := raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), req) }); err != nil {
		return 0, err
	}
	return n, ierr
}
