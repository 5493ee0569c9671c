//go:build unix

package runner

import (
	"net"
	"net/http"
	"syscall"
)

// stalledSendBuffer is the in-process daemon's socket send buffer in a scenario that waits for a
// stall (await_stall): small enough that a megabyte frame to a Core that stopped reading blocks
// in its write, so what the daemon sends next is queued behind it.
const stalledSendBuffer = 32 << 10

// smallSendBufferClient is an HTTP client (bootstrap and upgrade) whose connections have a fixed
// small send buffer instead of the kernel's autotuned one of up to 4 MiB.
func smallSendBufferClient() *http.Client {
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, stalledSendBuffer)
		}); err != nil {
			return err
		}
		return serr
	}}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = d.DialContext
	t.DisableKeepAlives = true
	return &http.Client{Transport: t}
}
