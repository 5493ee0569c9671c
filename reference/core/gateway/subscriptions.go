package gateway

import (
	"errors"
	"sync"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// Observation errors a subscription ends with. Neither says anything about native completion.
var (
	// ErrSessionClosed: the connection closed or was replaced before the subscription ended.
	ErrSessionClosed = errors.New("the daemon connection closed: the outcome is unknown")
	// ErrSubscriberOverflow: the consumer fell behind and frames were lost.
	ErrSubscriberOverflow = errors.New("the subscriber fell behind and the subscription overflowed: the outcome is unknown")
	// ErrDuplicate: a subscription or receipt waiter for this identity already exists.
	ErrDuplicate = errors.New("already subscribed")
	// ErrTooManySubscriptions: the connection's bound on preparation subscriptions is reached.
	ErrTooManySubscriptions = errors.New("too many preparation subscriptions on this connection")
	// ErrSendQueueFull: the bounded send queue is full.
	ErrSendQueueFull = errors.New("the send queue is full")
)

// Event is one frame delivered to a subscriber. Invalid holds the rule a frame broke when its
// envelope routed but its payload did not validate (Frame is then nil); the subscriber decides
// what an undecodable result means.
type Event struct {
	Envelope proto.Envelope
	Frame    *proto.Frame
	Invalid  error
	// Seq is the frame's place among its connection's inbound frames (1, 2, …). The reader routes
	// each frame before reading the next, so a consumer of several subscriptions of one
	// connection can put what it took back in wire order (execution's intake). 0: not numbered.
	Seq uint64
}

// stream is the common part of a subscription: a bounded channel that closes once, with an error
// saying why (nil after a terminal frame).
type stream struct {
	mu        sync.Mutex
	ch        chan Event
	closed    bool
	err       error
	delivered uint64 // events put on ch, and its close
	remove    func()
}

func newStream(buf int, remove func()) *stream {
	return &stream{ch: make(chan Event, buf), remove: remove}
}

// deliver queues ev; a full buffer closes the stream with ErrSubscriberOverflow. last closes the
// stream cleanly after ev.
func (s *stream) deliver(ev Event, last bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	select {
	case s.ch <- ev:
		s.delivered++
		s.mu.Unlock()
		if last {
			s.end(nil)
		}
	default:
		s.mu.Unlock()
		s.end(ErrSubscriberOverflow)
	}
}

func (s *stream) end(err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed, s.err = true, err
	close(s.ch)
	s.delivered++
	s.mu.Unlock()
	if s.remove != nil {
		s.remove()
	}
}

// deliveries counts the events put on the channel, its close included: a consumer that counts
// what it took knows whether something is still on its way to it (see execution's Quiesce).
func (s *stream) deliveries() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered
}

func (s *stream) error() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// RunSubscription observes one Run: every frame the Runtime sends with that Run ID, in order,
// until done (then Err is nil) or an observation error.
type RunSubscription struct {
	RunID string
	s     *stream
}

// Events is closed when the subscription ends; then read Err.
func (r *RunSubscription) Events() <-chan Event { return r.s.ch }

// Err says why Events closed: nil after done, ErrSessionClosed or ErrSubscriberOverflow otherwise.
func (r *RunSubscription) Err() error { return r.s.error() }

// Close ends the subscription (the Run's route is removed).
func (r *RunSubscription) Close() { r.s.end(nil) }

// Delivered counts what the subscription has put on Events, its close included.
func (r *RunSubscription) Delivered() uint64 { return r.s.deliveries() }

// PreparationSubscription observes one preparation request ID under the revision rules of
// protocol-facts.md §4.3: for every state but rejected, a frame with an empty handle, revision 0,
// a handle other than the first one seen, or a revision not above the last delivered is dropped;
// started, released, expired and failed close it. A rejected frame answers one control operation
// and is delivered without revision checks.
type PreparationSubscription struct {
	RequestID string
	s         *stream
	mu        sync.Mutex
	handle    string
	revision  uint64
}

// Events is closed when the subscription ends; then read Err.
func (p *PreparationSubscription) Events() <-chan Event { return p.s.ch }

// Err says why Events closed: nil after a terminal state, or an observation error.
func (p *PreparationSubscription) Err() error { return p.s.error() }

// Close ends the subscription.
func (p *PreparationSubscription) Close() { p.s.end(nil) }

// Delivered counts what the subscription has put on Events, its close included.
func (p *PreparationSubscription) Delivered() uint64 { return p.s.deliveries() }

// offer applies the revision rules; it reports whether the frame was delivered.
func (p *PreparationSubscription) offer(ev Event) bool {
	st, ok := ev.Frame.Payload.(*proto.PreparationStatusPayload)
	if !ok {
		return false
	}
	if p.overflowDropped() {
		return false
	}
	if st.State == proto.StateRejected && !mutation.On(mutation.RejectedRevisionChecked) {
		p.s.deliver(ev, mutation.On(mutation.ADCoreRejectedCloses))
		return true
	}
	p.mu.Lock()
	switch {
	case st.Handle == "" && !mutation.On(mutation.ADCoreEmptyHandleDelivered) || st.Revision == 0 && !mutation.On(mutation.ADCoreRevisionZeroDelivered):
		p.mu.Unlock()
		return false
	case p.revision > 0 && st.Revision > p.revision+1 && mutation.On(mutation.ADCoreSkippedRevisionDropped):
		p.mu.Unlock()
		return false
	case p.handle != "" && st.Handle != p.handle && !mutation.On(mutation.ADCoreOtherHandleDelivered):
		p.mu.Unlock()
		return false
	case st.Revision <= p.revision && !mutation.On(mutation.StaleRevisionDelivered) &&
		!(st.Revision < p.revision && mutation.On(mutation.ADCoreOlderRevisionDelivered)):
		p.mu.Unlock()
		return false
	}
	p.handle, p.revision = st.Handle, st.Revision
	p.mu.Unlock()
	p.s.deliver(ev, proto.TerminalPreparationState(st.State) && !terminalKeptOpen(st.State))
	return true
}

// AckWaiter waits for the interaction_decision_ack of one delivery ID. Receipts are routed by
// delivery ID only.
type AckWaiter struct {
	DeliveryID string
	s          *stream
}

// Receipt delivers the receipt once, then closes; if it closes empty, read Err.
func (a *AckWaiter) Receipt() <-chan Event { return a.s.ch }

// Err says why the waiter closed without a receipt.
func (a *AckWaiter) Err() error { return a.s.error() }

// Close stops waiting.
func (a *AckWaiter) Close() { a.s.end(nil) }

// Delivered counts what the waiter has put on Receipt, its close included.
func (a *AckWaiter) Delivered() uint64 { return a.s.deliveries() }
