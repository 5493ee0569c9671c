package scriptedcore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// awaitClose is a disconnect the Runtime makes on its own (awaited), or on its way out once its
// launcher stops it (stopped): Core causes nothing, drains what came before, and requires the
// close with the code and reason written. A socket dropped without a close frame fails it.
func (r *run) awaitClose(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	p, c := r.p, st.Close
	if c.Stopped {
		r.p.Rec.Event("stop", "the launcher stops the Runtime")
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), stopBound)
			defer cancel()
			_ = r.rt.Stop(ctx)
		}()
	}
	bound := r.cfg.Timeout
	if c.Code == 1009 || c.AnyClose {
		// CN-41: the Runtime refuses a frame over 4 MiB only once it has read 4 MiB of it, which a
		// loaded machine makes take longer than one frame's wait: bounded like its start-up, as
		// await_stall is, not like one frame's wait.
		bound = max(r.cfg.Timeout, r.cfg.StartTimeout)
	}
	ctx, cancel := script.Within(ctx, bound)
	defer cancel()
	discarded := 0
	defer func() {
		if discarded > 0 {
			p.Rec.Event("discard", fmt.Sprintf("%d frames read before the drop", discarded))
		}
	}()
	for {
		in, err := p.Conn.Next(ctx)
		var closed *script.ClosedError
		switch {
		case errors.As(err, &closed):
			p.Conn = nil
			r.srv.mu.Lock()
			r.srv.online = false
			r.srv.mu.Unlock()
			if c.Dropped || c.AnyClose {
				return nil // a drop, or a close with any code: how the transport ends is not said
			}
			if closed.Code != c.Code || (c.Reason != "" && closed.Reason != c.Reason) {
				what := fmt.Sprintf("closed with %d %q", closed.Code, closed.Reason)
				if closed.Code < 0 {
					what = "dropped the socket without a close frame"
				}
				return p.Failf(st, "the Runtime %s; expected a close with %d %q (%s)", what, c.Code, c.Reason, closeRule(c))
			}
			return nil
		case errors.Is(err, script.ErrTimeout):
			return p.Failf(st, "the Runtime did not close the transport within %v; expected a close with %d %q (%s)", bound, c.Code, c.Reason, closeRule(c))
		case err != nil:
			return p.Failf(st, "%v before the step completed", err)
		case c.Dropped:
			discarded++ // what piled up while Core was not reading
		case isHeartbeatFrame(in.Raw):
			// A heartbeat may fall due before the close: it is neither the close nor a violation.
		default:
			return p.Failf(st, "the Runtime sent %s instead of closing the transport (%s)", in.Raw, closeRule(c))
		}
	}
}

func closeRule(c *scenarios.CloseSpec) string {
	if c.Stopped {
		return "CN-20: a daemon that stops closes with 1000 \"client closing\""
	}
	if c.Dropped {
		return "CN-42: a write that runs out of the 10 s per-frame write timeout fails, and a failed write closes the session"
	}
	if c.Code == 1009 || c.AnyClose {
		return "CN-41: a frame over 4 MiB costs the connection"
	}
	return "the scenario's close"
}

func isHeartbeatFrame(raw []byte) bool {
	f, err := proto.ParseFrame(raw)
	return err == nil && f.Type == proto.TypeHeartbeat
}

// stalledUpgrade is one upgrade the scripted Core read and never answered.
type stalledUpgrade struct {
	abandoned <-chan struct{} // closed once the daemon gave the request up (its connection closed)
}

// stall holds an upgrade unanswered until the daemon abandons it or the scenario ends. It
// reports whether it took the request (false: no stall left, answer as usual).
func (s *server) stall(w http.ResponseWriter, r *http.Request) bool {
	s.hmu.Lock()
	n := s.stalls
	s.stalls++
	s.hmu.Unlock()
	if n >= s.answer.StalledUpgrades {
		return false
	}
	s.rec.Event("stall", "the upgrade is read and never answered")
	// The handler's request context ends when the daemon closes the connection (the server
	// watches the idle connection while the handler runs) or when the server closes.
	select {
	case s.stalled <- stalledUpgrade{abandoned: r.Context().Done()}:
	default:
	}
	select {
	case <-r.Context().Done():
		s.rec.Event("abandoned", "the daemon gave the unanswered upgrade up")
	case <-s.quit:
	}
	return true
}

// stallGrace is how long before the handshake timeout the daemon must still be waiting: a
// daemon on the wall clock arms its timer a moment before its upgrade arrives.
const stallGrace = time.Second

// stallQuiet is how long a daemon that has not yet reached its handshake timeout is watched for
// giving the upgrade up early, after the clock moved to just short of it.
const stallQuiet = 200 * time.Millisecond

// awaitStalledUpgrades plays each stalled upgrade: the daemon must wait for the answer until its
// handshake timeout (CN-21) and then give it up. The clock moves to stallGrace short of the
// timeout (a wait against a Runtime on the wall clock), the daemon must still be waiting, then
// past it, and the daemon must abandon the request within the step bound.
func (r *run) awaitStalledUpgrades(n int) *scenarios.Failure {
	p := r.p
	for i := 0; i < n; i++ {
		var up stalledUpgrade
		t := time.NewTimer(r.cfg.StartTimeout)
		select {
		case up = <-r.srv.stalled:
			t.Stop()
		case rej := <-r.srv.rejects: // an upgrade, refused before it could stall: say so at once
			t.Stop()
			return r.refused(nil, rej)
		case <-r.rt.Done():
			t.Stop()
			return r.exited(nil, "before its upgrade could stall")
		case <-t.C:
			return p.Failf(nil, "the Runtime made no upgrade within %v (the scenario stalls upgrade %d)", r.cfg.StartTimeout, i+1)
		}
		ctx := context.Background()
		if err := clock.AdvanceContext(ctx, r.cfg.Clock, proto.HandshakeTimeout-stallGrace); err != nil {
			return p.Failf(nil, "moving the clock: %v", err)
		}
		quiet := time.NewTimer(stallQuiet)
		select {
		case <-up.abandoned:
			quiet.Stop()
			return p.Failf(nil, "the Runtime gave its unanswered upgrade up before %v had passed (CN-21: the daemon's handshake timeout is 10 s)", proto.HandshakeTimeout-stallGrace)
		case <-quiet.C:
		}
		if err := clock.AdvanceContext(ctx, r.cfg.Clock, stallGrace); err != nil {
			return p.Failf(nil, "moving the clock: %v", err)
		}
		bound := time.NewTimer(r.cfg.Timeout + stallGrace)
		select {
		case <-up.abandoned:
			bound.Stop()
		case <-bound.C:
			return p.Failf(nil, "the Runtime still waited for its unanswered upgrade %v after %v had passed (CN-21: the daemon's handshake timeout is 10 s)", r.cfg.Timeout+stallGrace, proto.HandshakeTimeout)
		}
		p.Rec.Event("handshake-timeout", fmt.Sprintf("stalled upgrade %d abandoned after the handshake timeout", i+1))
	}
	if n > 0 {
		// The daemon reconnects after a backoff on its clock: once a timer of it falls due within a
		// minute, that minute passes.
		defer r.moveBackoffClock()()
		return r.awaitConnection(nil)
	}
	return nil
}

// netConnKey keys an accepted connection's socket in its requests' contexts.
type netConnKey struct{}

// stallUnread is how many unread bytes on Core's socket show that the Runtime is writing to it:
// more than the first frame the reader may already hold, less than the receive buffer.
const stallUnread = 4 << 10

// stallSteady is how long the unread count must hold still before Core takes the Runtime's
// writes as blocked: long beside a write of what the buffers hold (microseconds), so that a
// Runtime slowed by a loaded machine between two writes is not taken for a blocked one. It is a
// guess from a quiet period of real time, kept only for a Runtime whose sockets cannot be watched
// (SocketWatched): a daemon in another process.
const stallSteady = 200 * time.Millisecond

// SocketWatched is implemented by a launched Runtime whose own sockets the harness watches in the
// kernel (the reference daemon in process, package sockwatch). await_stall and advance then wait
// for what the kernel states instead of guessing from real time; a method that answers
// errors.ErrUnsupported (a platform that cannot watch) leaves them to the guesses.
type SocketWatched interface {
	// AwaitBlockedWrite returns once a write of the Runtime is blocked: its kernel refused it more
	// bytes (EAGAIN) and has taken none since.
	AwaitBlockedWrite(ctx context.Context) error
	// AwaitReadAll returns once every socket of the Runtime has a read waiting on an empty
	// receive queue: it has taken and handled every frame that arrived.
	AwaitReadAll(ctx context.Context) error
}

// awaitStall plays await_stall: Core waits until the Runtime's output fills its socket.
func (r *run) awaitStall(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	if r.p.Conn == nil {
		return r.p.Failf(st, "the transport is closed; there is no socket to watch")
	}
	// The Runtime first reads and runs a frame of megabytes: bounded like its start-up, not
	// like one frame's wait.
	bound := max(r.cfg.Timeout, r.cfg.StartTimeout)
	if sw, ok := r.rt.(SocketWatched); ok && r.p.Conn.Stopped() {
		ctx, cancel := context.WithTimeout(ctx, bound)
		defer cancel()
		switch err := sw.AwaitBlockedWrite(ctx); {
		case err == nil:
			r.p.Rec.Event("stalled", "a write of the Runtime is blocked: its kernel's send buffer is full and takes nothing more")
			return nil
		case !errors.Is(err, errors.ErrUnsupported):
			return r.p.Failf(st, "the Runtime's output did not pile up on the stalled socket: no write of it blocked within %v (%v)", bound, err)
		}
	}
	ctx, cancel := script.Within(ctx, bound)
	defer cancel()
	if err := r.p.Conn.AwaitStall(ctx, stallUnread, stallSteady); err != nil {
		return r.p.Failf(st, "the Runtime's output did not pile up on the stalled socket: %v", err)
	}
	return nil
}

// awaitTaken is what an advance against a watched Runtime (SocketWatched) waits for first: every
// frame Core sent has reached the Runtime's kernel (Core's SIOCOUTQ is 0), and the Runtime has
// read and handled all of them (its reads wait on empty queues). A Runtime that decides in its
// receive loop, as the reference does, has then armed every timer those frames start, so the
// clock cannot move before one of them. The wait is bounded by the step bound: a Runtime whose
// receive loop never gets back to reading (stuck behind its own full send queue, say) is noted
// in the transcript and the clock moves anyway, as it would against a Runtime nobody watches.
func (r *run) awaitTaken(ctx context.Context) {
	if sw, ok := r.rt.(SocketWatched); ok {
		r.p.AwaitTaken(ctx, sw.AwaitReadAll)
	}
}

// stopsReading reports whether a scenario has the scripted Core stop reading its socket.
func stopsReading(sc *scenarios.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepStopReading && st.From == proto.Core {
			return true
		}
	}
	return false
}

// reading plays stop_reading and resume_reading: the scripted Core stops or resumes reading its
// socket; one that names the Runtime is the scripted Runtime's to play (a Runtime under test
// cannot be made to stall).
func (r *run) reading(st *scenarios.Step) *scenarios.Failure {
	if st.From != proto.Core {
		return nil
	}
	if r.p.Conn == nil {
		return r.p.Failf(st, "the transport is closed; there is no socket to stop or resume reading")
	}
	if st.Kind == scenarios.StepStopReading {
		r.p.Conn.StopReading()
	} else {
		r.p.Conn.ResumeReading()
	}
	return nil
}

// TransportClocked is implemented by a launched Runtime whose per-frame write deadline runs on a
// virtual clock of its own (in process). Advance steps move it only while the scripted Core has
// stopped reading: only then can a write be blocked rather than merely in flight, so an ordinary
// advance never cuts a write that would have completed (CN-42).
type TransportClocked interface{ TransportClock() clock.Advancer }

// advanceTransport moves the Runtime's transport clock with an advance step while Core is not
// reading.
func (r *run) advanceTransport(st *scenarios.Step) {
	tc, ok := r.rt.(TransportClocked)
	if !ok || r.p.Conn == nil || !r.p.Conn.Stopped() {
		return
	}
	r.p.Rec.Event("advance", "the Runtime's transport clock "+st.Advance.String()+" (Core is not reading)")
	tc.TransportClock().Advance(st.Advance)
}
