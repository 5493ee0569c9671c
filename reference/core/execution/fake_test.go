package execution_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
)

// fakeStream is a subscription the test feeds by hand.
type fakeStream struct {
	mu        sync.Mutex
	ch        chan gateway.Event
	err       error
	closed    bool
	delivered uint64
	// seq numbers what is pushed across the connection's streams, as the gateway numbers a
	// connection's inbound frames (gateway.Event.Seq).
	seq *atomic.Uint64
}

func newFakeStream(seq *atomic.Uint64) *fakeStream {
	return &fakeStream{ch: make(chan gateway.Event, 256), seq: seq}
}

func (s *fakeStream) Events() <-chan gateway.Event { return s.ch }
func (s *fakeStream) Delivered() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered
}
func (s *fakeStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
func (s *fakeStream) Close() { s.end(nil) }
func (s *fakeStream) end(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed, s.err = true, err
	close(s.ch)
	s.delivered++
}

func (s *fakeStream) push(typ, id string, payload any) {
	env := proto.MustEnvelope(typ, id, payload)
	f, err := proto.ParseEnvelope(env)
	ev := gateway.Event{Envelope: env, Frame: f, Invalid: err}
	if err != nil {
		ev.Frame = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		ev.Seq = s.seq.Add(1)
		s.ch <- ev
		s.delivered++
	}
}

// fakeConn is a daemon connection the test plays the Runtime of.
type fakeConn struct {
	mu       sync.Mutex
	hb       *proto.HeartbeatPayload
	sent     chan proto.Envelope
	sendFail map[string]error
	subFail  error
	preps    map[string]*fakeStream
	runs     map[string]*fakeStream
	acks     map[string]*fakeStream
	seq      atomic.Uint64
	// held: a Send of this frame type queues it, then waits until the channel is closed (the
	// runner is then busy while the test routes what it must find waiting).
	held map[string]chan struct{}
	// full: a Send of this frame type finds the send queue full: it reports the wait as the
	// gateway does (gateway.QueueWait) and waits until its context ends.
	full map[string]bool
}

func newFakeConn(hb *proto.HeartbeatPayload) *fakeConn {
	return &fakeConn{hb: hb, sent: make(chan proto.Envelope, 64), sendFail: map[string]error{}, full: map[string]bool{},
		preps: map[string]*fakeStream{}, runs: map[string]*fakeStream{}, acks: map[string]*fakeStream{}}
}

func (c *fakeConn) Capabilities() (*proto.HeartbeatPayload, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hb, c.hb != nil
}

func (c *fakeConn) setCapabilities(hb *proto.HeartbeatPayload) { c.mu.Lock(); c.hb = hb; c.mu.Unlock() }

func (c *fakeConn) Send(ctx context.Context, env proto.Envelope) error {
	c.mu.Lock()
	err, full := c.sendFail[env.Type], c.full[env.Type]
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if full {
		if waiting := gateway.QueueWait(ctx); waiting != nil {
			waiting(true)
			defer waiting(false)
		}
		<-ctx.Done()
		return fmt.Errorf("%w: %v", gateway.ErrSendQueueFull, ctx.Err())
	}
	c.sent <- env
	c.mu.Lock()
	hold := c.held[env.Type]
	c.mu.Unlock()
	if hold != nil {
		<-hold
	}
	return nil
}

// hold makes the next Sends of typ wait until the returned release is called.
func (c *fakeConn) hold(typ string) (release func()) {
	ch := make(chan struct{})
	c.mu.Lock()
	if c.held == nil {
		c.held = map[string]chan struct{}{}
	}
	c.held[typ] = ch
	c.mu.Unlock()
	return func() { close(ch) }
}

func (c *fakeConn) sub(m map[string]*fakeStream, id string) (execution.Stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subFail != nil {
		return nil, c.subFail
	}
	if s, ok := m[id]; ok && !s.closed {
		return nil, gateway.ErrDuplicate
	}
	s := newFakeStream(&c.seq)
	m[id] = s
	return s, nil
}

func (c *fakeConn) SubscribeDurable(id string) (execution.Stream, error) { return c.sub(c.runs, id) }
func (c *fakeConn) SubscribePreparation(id string) (execution.Stream, error) {
	return c.sub(c.preps, id)
}
func (c *fakeConn) AwaitAck(id string) (execution.Stream, error) { return c.sub(c.acks, id) }

func (c *fakeConn) stream(m map[string]*fakeStream, id string) *fakeStream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return m[id]
}

type fakeConns struct {
	mu   sync.Mutex
	conn *fakeConn
}

func (f *fakeConns) Conn(string) (execution.Conn, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn == nil {
		return nil, false
	}
	return f.conn, true
}

var errSend = errors.New("send failed")
