//go:build linux

package sockwatch

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

const supported = true

var errUnsupported error // never returned where the platform supports watching

// Conn is a watched connection. Its Read and Write make the system calls themselves, through the
// socket's RawConn, so that the kernel's EAGAIN is seen; deadlines and Close work as on the
// connection it wraps (the RawConn honours them). Only the net.Conn methods are promoted: a
// ReadFrom or WriteTo of the wrapped socket would bypass the watch.
type Conn struct {
	net.Conn
	w   *Watcher
	raw syscall.RawConn

	// Guarded by w.mu.
	writeBlocked bool   // the current Write got EAGAIN and the kernel has taken nothing since
	readWaiting  bool   // the current Read got EAGAIN and has not returned since
	readEnded    bool   // a Read met the end of the stream or a broken socket: nothing more arrives
	reads        uint64 // Reads that returned, and waiting Reads woken: any change to what a reader took
}

// Wrap watches c if it is a socket with a file descriptor, else returns it as it is.
func (w *Watcher) Wrap(c net.Conn) net.Conn {
	raw := rawConn(c)
	if raw == nil {
		return c
	}
	wc := &Conn{Conn: c, w: w, raw: raw}
	w.mu.Lock()
	w.conns[wc] = struct{}{}
	w.changedLocked()
	w.mu.Unlock()
	return wc
}

// testHookRead, when set by a test, runs after a read took bytes and before Read returns.
var testHookRead func()

func (c *Conn) set(f func()) {
	c.w.mu.Lock()
	f()
	c.w.changedLocked()
	c.w.mu.Unlock()
}

// Write writes all of b, waiting for room in the send buffer as a net.Conn does.
func (c *Conn) Write(b []byte) (int, error) {
	written := 0
	var serr error
	err := c.raw.Write(func(fd uintptr) bool {
		for written < len(b) {
			n, err := syscall.Write(int(fd), b[written:])
			if n > 0 {
				written += n
				if c.writeBlockedNow() {
					c.set(func() { c.writeBlocked = false })
				}
			}
			switch {
			case err == syscall.EINTR:
			case err == syscall.EAGAIN:
				if !c.writeBlockedNow() {
					c.set(func() { c.writeBlocked = true })
				}
				return false // wait until the socket is writable, then call again
			case err != nil:
				serr = os.NewSyscallError("write", err)
				return true
			case n == 0:
				serr = io.ErrUnexpectedEOF
				return true
			}
		}
		return true
	})
	if c.writeBlockedNow() {
		c.set(func() { c.writeBlocked = false })
	}
	if err == nil {
		err = serr
	}
	if err != nil {
		return written, c.opError("write", err)
	}
	return written, nil
}

func (c *Conn) writeBlockedNow() bool {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	return c.writeBlocked
}

// Read reads what the receive queue holds, waiting for data as a net.Conn does.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var serr error
	waited := false
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			if waited {
				// Woken: no longer waiting, and counted as a return, before the read takes
				// anything. Marked after the read, a queue AwaitReadAll finds empty could be
				// one this reader just emptied while it still looked asleep.
				waited = false
				c.set(func() { c.readWaiting = false; c.reads++ })
			}
			var err error
			n, err = syscall.Read(int(fd), b)
			if testHookRead != nil && err == nil && n > 0 {
				testHookRead()
			}
			switch {
			case err == syscall.EINTR:
				continue
			case err == syscall.EAGAIN:
				if !waited {
					waited = true
					c.set(func() { c.readWaiting = true })
				}
				n = 0
				return false
			case err != nil:
				n, serr = 0, os.NewSyscallError("read", err)
			case n == 0:
				serr = io.EOF
			}
			return true
		}
	})
	if err == nil {
		err = serr
	}
	ended := err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
	c.set(func() { c.readWaiting, c.readEnded = false, c.readEnded || ended; c.reads++ })
	switch {
	case err == io.EOF:
		return 0, io.EOF
	case err != nil:
		return n, c.opError("read", err)
	}
	return n, nil
}

// Close closes the socket and stops watching it.
func (c *Conn) Close() error {
	c.w.mu.Lock()
	delete(c.w.conns, c)
	c.w.changedLocked()
	c.w.mu.Unlock()
	return c.Conn.Close()
}

// unsent is the number of bytes written that the other end's kernel has not acknowledged
// (SIOCOUTQ).
func (c *Conn) unsent() (int, error) { return queued(c.raw, unix.SIOCOUTQ) }

// unread is the number of bytes the socket's receive queue holds (SIOCINQ).
func (c *Conn) unread() (int, error) { return queued(c.raw, unix.SIOCINQ) }

// opError reports err as the wrapped connection would: a *net.OpError whose Err is the cause (a
// closed connection stays net.ErrClosed, a passed deadline os.ErrDeadlineExceeded).
func (c *Conn) opError(op string, err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
