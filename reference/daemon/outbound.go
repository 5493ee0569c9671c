package daemon

import (
	"context"
	"errors"
	"sync"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
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
	queue  chan outFrame
	stop   chan struct{}
	done   chan struct{}
}

type outFrame struct {
	data   []byte
	result chan error
}

func newOutbound(ws *websocket.Conn) *outbound {
	o := &outbound{ws: ws, queue: make(chan outFrame, proto.RuntimeChannelFrames), stop: make(chan struct{}), done: make(chan struct{})}
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
			// The per-frame write deadline guards the socket, not the protocol: it runs on the wall
			// clock, so a scenario that advances the virtual clock by minutes cannot cancel (and so
			// close) a write that is simply in flight.
			ctx, cancel := context.WithTimeout(context.Background(), proto.WriteTimeout)
			err := o.ws.Write(ctx, websocket.MessageText, f.data)
			cancel()
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

// enqueue queues a frame and returns where its result arrives. Frames queued by one goroutine are
// written in that order.
func (o *outbound) enqueue(env proto.Envelope) <-chan error {
	res := make(chan error, 1)
	data, err := env.Encode()
	if err != nil {
		res <- err
		return res
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
