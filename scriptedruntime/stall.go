package scriptedruntime

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/internal/sockwatch"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/transport"
)

// stallReading plays stop_reading, resume_reading and await_stall on the Runtime's side: the
// scripted Runtime stops or resumes reading its socket, so Core's writes pile up until they block
// (Core's per-frame write timeout, CN-42), and await_stall waits until they have. A core frame step
// played in between made Core send its frame, which resume_reading then reads, in step order,
// before any later step. Those that name Core are the scripted Core's to play.
func (r *run) stallReading(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	p := r.p
	if st.From != proto.Runtime {
		return nil
	}
	if p.Conn == nil {
		return p.Failf(st, "the transport is closed; there is no socket to stall")
	}
	switch st.Kind {
	case scenarios.StepAwaitStall:
		// Core first builds and journals what it then writes (a frame of megabytes): bounded like
		// a start-up, not like one frame's wait.
		bound := max(r.cfg.Timeout, stallBound)
		if sw, ok := r.cfg.Driver.(SocketWatched); ok && p.Conn.Stopped() {
			ctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			switch err := sw.AwaitBlockedWrite(ctx); {
			case err == nil:
				p.Rec.Event("stalled", "a write of Core is blocked: its kernel's send buffer is full and takes nothing more")
				return nil
			case !errors.Is(err, errors.ErrUnsupported):
				return p.Failf(st, "Core's output did not pile up on the stalled socket: no write of it blocked within %v (%v)", bound, err)
			}
		}
		ctx, cancel := script.Within(ctx, bound)
		defer cancel()
		if err := p.Conn.AwaitStall(ctx, stallUnread, stallSteady); err != nil {
			return p.Failf(st, "Core's output did not pile up on the stalled socket: %v", err)
		}
	case scenarios.StepStopReading:
		p.Conn.StopReading()
		r.stalling.pause()
	default:
		r.stalling.resume()
		p.Conn.ResumeReading()
		unread := r.stalledReads
		r.stalledReads = nil
		for _, st := range unread {
			if _, f := p.Expect(ctx, st); f != nil {
				return f
			}
		}
	}
	return nil
}

// SocketWatched is implemented by a CoreDriver whose Core's own sockets the harness watches in
// the kernel (the reference Core in process, package sockwatch): await_stall then waits for what
// the kernel states, a write of Core refused more bytes (EAGAIN) and given none since, instead of
// guessing from a quiet period of real time. errors.ErrUnsupported (a platform that cannot watch)
// leaves it to the guess.
type SocketWatched interface {
	AwaitBlockedWrite(ctx context.Context) error
}

// ReadWatched is implemented by a CoreDriver whose Core's sockets the harness watches in the kernel
// (the reference Core in process): an advance waits until Core's readers have taken every byte the
// Runtime sent, so the frames are routed (and the driver's own Advance waits until they are
// handled) before the clock moves. Without it, a frame still in Core's receive queue is handled
// after the advance, and a timer it arms falls due a step late.
type ReadWatched interface {
	AwaitReadAll(ctx context.Context) error
}

// awaitTaken waits, before an advance, until Core's readers have taken what the Runtime sent.
func (r *run) awaitTaken(ctx context.Context) {
	if rw, ok := r.cfg.Driver.(ReadWatched); ok {
		r.p.AwaitTaken(ctx, rw.AwaitReadAll)
	}
}

// stallUnread is how many unread bytes on the Runtime's socket show that Core is writing to it:
// more than a frame header, less than the receive buffer.
const stallUnread = 4 << 10

// stallSteady is how long the unread count must hold still before the Runtime takes Core's
// writes as blocked: long beside a write of what the buffers hold (microseconds), so that a Core
// slowed by a loaded machine between two writes is not taken for a blocked one. It is a guess
// from real time, kept for a Core whose sockets cannot be watched (SocketWatched).
const stallSteady = 200 * time.Millisecond

// stallBound is the least await_stall waits for Core's output to pile up.
const stallBound = 10 * time.Second

// stopsReading reports whether a scenario has the scripted Runtime stop reading its socket.
func stopsReading(sc *scenarios.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepStopReading && st.From == proto.Runtime {
			return true
		}
	}
	return false
}

// stallingClient is a transport client whose connections have a small receive buffer and stop
// pulling bytes off the socket while paused. It keeps the last connection it dialed (the
// upgrade's: bootstrap and upgrade each dial one). The pause works under the WebSocket reader: a
// read the Conn's reader has already begun blocks too, so no frame Core sends after stop_reading
// is read before resume_reading, whatever the reader goroutine was doing.
type stallingClient struct {
	transport.Client
	mu   sync.Mutex
	last *pausableConn
}

func newStallingClient() *stallingClient {
	c := &stallingClient{}
	d := &net.Dialer{Control: script.SmallReceiveBuffer}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		pc := &pausableConn{Conn: nc, closed: make(chan struct{})}
		c.mu.Lock()
		c.last = pc
		c.mu.Unlock()
		return pc, nil
	}
	c.Client = transport.Client{HTTP: &http.Client{Transport: t}, UserAgent: client.UserAgent, Strict: true}
	return c
}

// unread counts what the last dialed connection holds unread; nil if none or not countable.
func (c *stallingClient) unread() func() (int, error) {
	if pc := c.conn(); pc != nil {
		return sockwatch.UnreadCounter(pc.Conn)
	}
	return nil
}

func (c *stallingClient) conn() *pausableConn {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

func (c *stallingClient) pause() {
	if pc := c.conn(); pc != nil {
		pc.pause()
	}
}

func (c *stallingClient) resume() {
	if pc := c.conn(); pc != nil {
		pc.resume()
	}
}

// pausableConn is a socket whose Read waits while it is paused (until resumed or closed).
type pausableConn struct {
	net.Conn
	mu        sync.Mutex
	paused    chan struct{} // nil: reading
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *pausableConn) Read(b []byte) (int, error) {
	c.mu.Lock()
	p := c.paused
	c.mu.Unlock()
	if p != nil {
		select {
		case <-p:
		case <-c.closed:
			return 0, net.ErrClosed
		}
	}
	return c.Conn.Read(b)
}

func (c *pausableConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

func (c *pausableConn) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == nil {
		c.paused = make(chan struct{})
	}
}

func (c *pausableConn) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused != nil {
		close(c.paused)
		c.paused = nil
	}
}

// TransportClocked is implemented by a CoreDriver whose Core runs its per-frame write deadline on
// a virtual clock of its own (in process). Advance steps move it only while the scripted Runtime
// has stopped reading: only then can a write be blocked rather than merely in flight, so an
// ordinary advance never cuts a write that would have completed (CN-42).
type TransportClocked interface{ AdvanceTransport(d time.Duration) }

// advanceTransport moves Core's transport clock with an advance step while the Runtime is not
// reading.
func (r *run) advanceTransport(st *scenarios.Step) {
	tc, ok := r.cfg.Driver.(TransportClocked)
	if !ok || r.p.Conn == nil || !r.p.Conn.Stopped() {
		return
	}
	r.p.Rec.Event("advance", "Core's transport clock "+st.Advance.String()+" (the Runtime is not reading)")
	tc.AdvanceTransport(st.Advance)
}
