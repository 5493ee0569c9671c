// Package script is the engine the two scripted peers share: a WebSocket connection whose frames
// arrive on a channel (so every wait is bounded without tearing the socket down), a transcript
// recorder, and the step mechanics that are the same from both ends: send a frame, expect frames,
// expect silence.
package script

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// Inbound is one frame read from the peer.
type Inbound struct {
	Raw []byte
	At  time.Time
}

// ErrTimeout is returned when nothing arrived within the bound a wait was given (Within).
var ErrTimeout = errors.New("timed out")

// TimeoutError is the cause of a context made by Within once its bound has passed. It names the
// bound, so a failure can say how long it waited; it is ErrTimeout to errors.Is. A wait that ends
// for another reason (the run stopped, the scenario's own bound) ends with that context's cause
// instead, and is never reported as this wait running out.
type TimeoutError struct{ Bound time.Duration }

func (e *TimeoutError) Error() string        { return ErrTimeout.Error() }
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// Within bounds a wait by d of wall time from now: the context ends with the cause
// &TimeoutError{d} (context.Cause), or earlier with ctx's own. Every step bound of a play is one.
func Within(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &TimeoutError{Bound: d})
}

// ClosedError says the transport closed; Code is the close code the peer sent (-1: none, the
// socket dropped).
type ClosedError struct {
	Code   int
	Reason string
	Err    error
}

func (e *ClosedError) Error() string {
	if e.Code < 0 {
		return fmt.Sprintf("the connection dropped (%v)", e.Err)
	}
	return fmt.Sprintf("the connection closed with %d %q", e.Code, e.Reason)
}

// Conn is one WebSocket connection. A reader goroutine, owned by the Conn and stopped by Close or
// by the peer, pushes every frame onto a channel.
type Conn struct {
	ws     *websocket.Conn
	frames chan Inbound
	done   chan struct{} // closed when the reader stops
	closed *ClosedError
	rec    *Recorder
	inDir  Direction
	wmu    sync.Mutex
	once   sync.Once
	cancel context.CancelFunc

	pmu         sync.Mutex
	paused      chan struct{}       // non-nil while reading is stopped (StopReading); closed to resume
	unreadBytes func() (int, error) // bytes the kernel holds unread on the socket (SetUnread); nil: unknown
	unsentBytes func() (int, error) // bytes written the peer's kernel has not acknowledged (SetUnsent); nil: unknown

	// Read only by the peer's own goroutine (the one walking the steps).
	unread []Inbound // frames put back by Unread, returned before the channel's
	mu     sync.Mutex
	mark   time.Time // the latest wire event the peer took part in: a write, or a frame it consumed
}

// NewConn starts reading ws. inDir is the direction of frames read from it.
func NewConn(ws *websocket.Conn, rec *Recorder, inDir Direction) *Conn {
	ws.SetReadLimit(proto.MaxFrameBytes)
	ctx, cancel := context.WithCancel(context.Background())
	c := &Conn{ws: ws, frames: make(chan Inbound, 1024), done: make(chan struct{}), rec: rec, inDir: inDir, cancel: cancel}
	go c.read(ctx)
	return c
}

func (c *Conn) read(ctx context.Context) {
	defer close(c.done)
	defer close(c.frames)
	for {
		if !c.waitReading(ctx) {
			c.closed = &ClosedError{Code: -1, Err: ctx.Err()}
			c.rec.Event("closed", "closed while not reading")
			return
		}
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			ce := &ClosedError{Code: -1, Err: err}
			var cerr websocket.CloseError
			if errors.As(err, &cerr) {
				ce.Code, ce.Reason = int(cerr.Code), cerr.Reason
			}
			c.closed = ce
			c.rec.Event("closed", ce.Error())
			return
		}
		c.rec.Frame(c.inDir, data)
		c.frames <- Inbound{Raw: data, At: time.Now()}
	}
}

// Next returns the next frame, waiting until ctx ends; then it returns ctx's cause (a
// *TimeoutError when the bound Within made ran out). After the transport closed it returns a
// *ClosedError once the buffered frames are drained.
func (c *Conn) Next(ctx context.Context) (Inbound, error) {
	if len(c.unread) > 0 {
		in := c.unread[0]
		c.unread = c.unread[1:]
		c.setMark(in.At)
		return in, nil
	}
	select {
	case in, ok := <-c.frames:
		if !ok {
			return Inbound{}, c.closed
		}
		c.setMark(in.At)
		return in, nil
	case <-ctx.Done():
		return Inbound{}, context.Cause(ctx)
	}
}

// Unread puts a frame back: the next Next returns it, before anything newer.
func (c *Conn) Unread(in Inbound) { c.unread = append([]Inbound{in}, c.unread...) }

// Mark is the moment of the latest wire event the peer took part in: when its last frame was
// written, or when the last frame it consumed was read off the socket, whichever came later.
// A silence window opens there, not whenever the harness gets round to watching.
func (c *Conn) Mark() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mark
}

func (c *Conn) setMark(at time.Time) {
	c.mu.Lock()
	if at.After(c.mark) {
		c.mark = at
	}
	c.mu.Unlock()
}

// Frames exposes the frame channel for selects that also wait on other events.
func (c *Conn) Frames() <-chan Inbound { return c.frames }

// ClosedErr returns why the transport closed (nil while open).
func (c *Conn) ClosedErr() *ClosedError {
	select {
	case <-c.done:
		return c.closed
	default:
		return nil
	}
}

// Done is closed when the transport has closed and the reader stopped.
func (c *Conn) Done() <-chan struct{} { return c.done }

// testHookWritten, when set by a test, runs after a write completed and before Write marks it:
// where a starved goroutine would lose time.
var testHookWritten func()

// Write sends one text frame with the protocol's per-frame write deadline.
func (c *Conn) Write(ctx context.Context, data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, proto.WriteTimeout)
	defer cancel()
	// Recorded before it is written: the peer's answer, which the reader records as it arrives,
	// can come back before Write returns, and the transcript (the journal) keeps cause before effect.
	c.rec.Frame(c.inDir.Reverse(), data)
	// The mark is taken before the write: the peer may hold the frame from the moment the write
	// starts, and a goroutine starved between the write and a later reading of the clock would
	// open the next silence window late, inside the peer's answer (a cancelled Turn's done, 100 ms
	// after the prompt_cancel, read as breaking a 50 ms window at a load average of 17). Too
	// early a mark only shortens a window: a broken peer may pass, a correct one never fails.
	sent := time.Now()
	if err := c.ws.Write(ctx, websocket.MessageText, data); err != nil {
		c.rec.Event("write failed", "the frame above was not written: "+err.Error())
		return err
	}
	if testHookWritten != nil {
		testHookWritten()
	}
	c.setMark(sent)
	return nil
}

// Close closes the transport with a close frame and waits for the reader to stop.
func (c *Conn) Close(code int, reason string) {
	c.once.Do(func() {
		c.rec.Event("close", fmt.Sprintf("sent close %d %q", code, reason))
		_ = c.ws.Close(websocket.StatusCode(code), reason)
		c.cancel()
	})
	<-c.done
}

// Drop tears the socket down without a close frame, as a network failure would.
func (c *Conn) Drop() {
	c.once.Do(func() {
		c.rec.Event("drop", "socket dropped without a close frame")
		_ = c.ws.CloseNow()
		c.cancel()
	})
	<-c.done
}
