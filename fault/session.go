package fault

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/coder/websocket"
)

// session is one relayed connection: the Runtime's socket (accepted) and Core's (dialled), and a
// pump per direction, each reading in its own goroutine for the connection's lifetime.
type session struct {
	r      *Relay
	n      int
	rt     *websocket.Conn
	core   *websocket.Conn
	ctx    context.Context // ends when the session ends; stops timers and pending writes
	cancel context.CancelFunc
	timers sync.WaitGroup

	mu      sync.Mutex
	ending  bool               // the first end (or a cut or close by a rule) has been handled
	stopped map[Direction]bool // half-open: these directions are no longer forwarded
}

func (r *Relay) newSession(rt, core *websocket.Conn) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		_ = rt.CloseNow()
		_ = core.CloseNow()
		return nil
	}
	r.conns++
	s := &session{r: r, n: r.conns, rt: rt, core: core, stopped: map[Direction]bool{}}
	s.ctx, s.cancel = context.WithCancel(r.ctx)
	r.sessions[s] = struct{}{}
	return s
}

// run pumps both directions until both sockets are gone.
func (s *session) run() {
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() { defer pumps.Done(); s.pump(CoreToRuntime) }()
	go func() { defer pumps.Done(); s.pump(RuntimeToCore) }()
	pumps.Wait()
	s.cancel()
	_ = s.rt.CloseNow()
	_ = s.core.CloseNow()
	s.timers.Wait()
	s.r.mu.Lock()
	delete(s.r.sessions, s)
	s.r.mu.Unlock()
}

// legs returns the socket a direction reads from and the one it writes to.
func (s *session) legs(dir Direction) (src, dst *websocket.Conn) {
	if dir == CoreToRuntime {
		return s.core, s.rt
	}
	return s.rt, s.core
}

// outFrame is a frame on its way out, with what must happen once it is sent.
type outFrame struct {
	dir      Direction
	typ      websocket.MessageType
	data     []byte
	copies   int
	cut      bool
	closes   []firedClose
	events   []Event
	env      frameID // for the events about it
	holdRule string  // the reorder rule holding it
}

func (s *session) pump(dir Direction) {
	src, _ := s.legs(dir)
	var held *outFrame // a frame held for reorder
	var buf bytes.Buffer
	for {
		// Reads and writes take no context: cancelling one would close the socket. The session
		// ends them by closing the sockets.
		typ, rd, err := src.Reader(context.Background())
		if err == nil {
			if buf.Cap() > 1<<20 {
				buf = bytes.Buffer{} // do not keep a huge frame's buffer for the session
			}
			buf.Reset()
			_, err = buf.ReadFrom(rd)
		}
		if err != nil {
			if held != nil {
				s.r.recordLocked(Event{Conn: s.n, Direction: dir, Type: held.env.Type, ID: held.env.ID, Rule: held.holdRule,
					Action: ActReorder, Detail: "lost: the connection ended before a next frame"})
			}
			s.ended(dir, err)
			return
		}
		if s.isStopped(dir) {
			continue // half-open: nothing gets through
		}
		data := buf.Bytes() // valid until the next read: a frame that waits is copied
		p := s.r.decide(s.n, dir, data, held != nil)
		if p == nil {
			s.write(dir, typ, data)
		} else {
			f := &outFrame{dir: dir, typ: typ, data: p.data, copies: p.copies, cut: p.cut, closes: p.closes, events: p.events,
				env: p.env, holdRule: p.holdRule}
			switch {
			case p.drop:
				s.after(f)
			case p.delay > 0 && p.block:
				t := s.r.clk.NewTimer(p.delay)
				select {
				case <-t.C():
					s.forward(f)
				case <-s.ctx.Done():
					t.Stop()
				}
			case p.delay > 0:
				f.data = bytes.Clone(f.data)
				s.timers.Add(1)
				go func() {
					defer s.timers.Done()
					t := s.r.clk.NewTimer(p.delay)
					select {
					case <-t.C():
						s.forward(f)
					case <-s.ctx.Done():
						t.Stop()
						s.r.recordLocked(Event{Conn: s.n, Direction: dir, Type: f.env.Type, ID: f.env.ID, Rule: f.events[0].Rule,
							Action: ActDelay, Detail: "lost: the connection ended before its release"})
					}
				}()
			case p.reorder:
				f.data = bytes.Clone(f.data)
				held = f
				continue
			default:
				s.forward(f)
			}
		}
		if held != nil {
			held.events = append(held.events, Event{Conn: s.n, Direction: dir, Type: held.env.Type, ID: held.env.ID,
				Rule: held.holdRule, Action: ActReorder, Detail: "released after the next frame"})
			s.forward(held)
			held = nil
		}
	}
}

func (s *session) write(dir Direction, typ websocket.MessageType, data []byte) bool {
	if s.isStopped(dir) {
		return false
	}
	_, dst := s.legs(dir)
	if s.r.tap != nil {
		s.r.tap.Frame(s.n, dir.sender(), data) // before the write: a reply cannot come back first
	}
	// The write is bounded by the connection, not by a timer: a receiver that does not read
	// pushes back on its sender, as it would without the relay.
	return dst.Write(context.Background(), typ, data) == nil
}

// forward sends a frame (and its copies), then does what its rules asked for afterwards.
func (s *session) forward(f *outFrame) {
	for i := 0; i < f.copies; i++ {
		if !s.write(f.dir, f.typ, f.data) {
			break
		}
	}
	if len(f.events) > 0 {
		s.r.mu.Lock()
		for _, e := range f.events {
			s.r.record(e)
		}
		s.r.mu.Unlock()
	}
	s.after(f)
}

// after applies the actions that follow a frame: a cut, delayed closes, a half-open.
func (s *session) after(f *outFrame) {
	if f.cut {
		s.drop()
	}
	for _, c := range f.closes {
		s.timers.Add(1)
		go func() {
			defer s.timers.Done()
			if c.act.After > 0 {
				t := s.r.clk.NewTimer(c.act.After)
				select {
				case <-t.C():
				case <-s.ctx.Done():
					t.Stop()
					return
				}
			}
			s.close(f.dir, c)
		}()
	}
}

func (s *session) isStopped(dir Direction) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped[dir]
}

// claimEnd marks the session as ending and reports whether this caller is the first to.
func (s *session) claimEnd() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.ending
	s.ending = true
	return first
}

// drop tears both sockets down without a close frame: what a network failure looks like.
func (s *session) drop() {
	s.claimEnd()
	_ = s.rt.CloseNow()
	_ = s.core.CloseNow()
}

// abort is the relay closing.
func (s *session) abort() { s.drop() }

// close applies a fired close action.
func (s *session) close(dir Direction, c firedClose) {
	ev := Event{Conn: s.n, Direction: dir, Rule: c.rule, Action: ActClose}
	if c.act.HalfOpen {
		stop := stopOf(c.act, dir)
		s.mu.Lock()
		for _, d := range []Direction{CoreToRuntime, RuntimeToCore} {
			if stop.covers(d) {
				s.stopped[d] = true
			}
		}
		s.mu.Unlock()
		ev.Detail = fmt.Sprintf("half-open: %s no longer forwarded; both sockets stay open", stop)
		s.r.recordLocked(ev)
		return
	}
	if !s.claimEnd() {
		return
	}
	ev.Detail = fmt.Sprintf("closed both sockets with %d %q", c.act.Code, c.act.Reason)
	s.r.recordLocked(ev)
	var wg sync.WaitGroup
	for _, conn := range []*websocket.Conn{s.rt, s.core} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = conn.Close(websocket.StatusCode(c.act.Code), c.act.Reason)
		}()
	}
	wg.Wait()
}

// ended handles the end of one socket (read failed on the direction's source): the first end is
// passed on to the other peer as it happened: the same close code and reason, or a drop. A
// half-open direction passes nothing on.
func (s *session) ended(dir Direction, err error) {
	if s.isStopped(dir) || !s.claimEnd() {
		return
	}
	_, dst := s.legs(dir)
	code := websocket.CloseStatus(err)
	if code == -1 {
		_ = dst.CloseNow()
		return
	}
	var reason string
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		reason = ce.Reason
	}
	if code != websocket.StatusNoStatusRcvd && !sendableCloseCode(int(code)) {
		_ = dst.CloseNow()
		return
	}
	_ = dst.Close(code, reason)
}
