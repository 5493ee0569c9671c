package daemon

import (
	"context"
	"errors"
	"sync"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// errTransportClosed is returned for a frame that can no longer be written.
var errTransportClosed = errors.New("transport closed")

// outbound writes frames in the order they were queued, one at a time, each within the per-frame
// write deadline. A send returns once the WebSocket write completed locally: the only thing a
// Runtime's successful send proves.
type outbound struct {
	mu     sync.Mutex // guards closed against enqueue, so nothing is queued after the drain
	closed bool
	ws     *websocket.Conn
	clock  clock.Clock // runs the per-frame write deadline
	queue  chan outFrame
	stop   chan struct{}
	done   chan struct{}
	// carry, set only in the mutants build (mutants_replay.go), sees every frame queued or
	// refused, the frames owed after the transport ended included.
	carry func(env proto.Envelope, data []byte)
}

type outFrame struct {
	data   []byte
	result chan error
}

func newOutbound(ws *websocket.Conn, c clock.Clock) *outbound {
	o := &outbound{ws: ws, clock: c, queue: make(chan outFrame, proto.RuntimeChannelFrames), stop: make(chan struct{}), done: make(chan struct{})}
	go o.loop()
	return o
}

func (o *outbound) loop() {
	defer close(o.done)
	broken := false
	for {
		select {
		case f := <-o.queue:
			if broken {
				f.result <- errTransportClosed
				continue
			}
			err := o.write(f.data)
			if err != nil {
				broken = true
				_ = o.ws.CloseNow()
			}
			f.result <- err
		case <-o.stop:
			for {
				select {
				case f := <-o.queue:
					f.result <- errTransportClosed
				default:
					return
				}
			}
		}
	}
}

// write writes one frame within the per-frame write deadline (CN-42); a write that runs out of it
// fails, and a failed write closes the session. The deadline runs on the transport clock (the wall
// clock unless the daemon is given another), not on the protocol clock: an advance of the protocol
// clock must not cut a write that is simply in flight.
func (o *outbound) write(data []byte) error {
	ctx, timeout := context.Background(), proto.WriteTimeout
	if mutation.On(mutation.StallWriteDeadlineDoubled) {
		timeout *= 2
	}
	if mutation.On(mutation.StallWriteDeadlineHalved) {
		timeout /= 2
	}
	if !mutation.On(mutation.StallWriteUnbounded) {
		var cancel context.CancelFunc
		ctx, cancel = clock.WithTimeout(ctx, o.clock, timeout)
		defer cancel()
	}
	return o.ws.Write(ctx, websocket.MessageText, data)
}

// enqueue queues a frame and returns where its result arrives. Frames queued by one goroutine are
// written in that order.
func (o *outbound) enqueue(env proto.Envelope) <-chan error {
	res := make(chan error, 1)
	data, err := env.Encode()
	if err != nil {
		res <- err
		return res
	}
	if o.carry != nil {
		o.carry(env, data)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		res <- errTransportClosed
		return res
	}
	o.queue <- outFrame{data: data, result: res} // the loop keeps draining until close
	return res
}

func (o *outbound) close() {
	o.mu.Lock()
	o.closed = true
	close(o.stop)
	o.mu.Unlock()
	<-o.done
}
