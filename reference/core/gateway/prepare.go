package gateway

import (
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
)

// ErrTransferBusy refuses a second runtime_prepare transfer while one is in progress on the
// connection (RP-17): nothing of the second one is sent.
var ErrTransferBusy = errors.New("a runtime_prepare transfer is already in progress on this connection")

// TransferWaiter receives the runtime_prepare_result frames of one transfer ID, in order, until
// it is closed or the connection ends (ErrSessionClosed). A result whose payload breaks a rule is
// delivered with Invalid set: the preparation decides what it means.
type TransferWaiter struct {
	TransferID string
	s          *stream
}

// transferReceipts bounds the receipts queued for one transfer; Core awaits one at a time, so
// more means a Runtime that answers what was not asked, and the waiter ends with overflow.
const transferReceipts = 16

// Events is closed when the waiter ends; then read Err.
func (w *TransferWaiter) Events() <-chan Event { return w.s.ch }

// Err says why Events closed: nil after Close, an observation error otherwise.
func (w *TransferWaiter) Err() error { return w.s.error() }

// Close stops waiting and frees the connection's transfer slot.
func (w *TransferWaiter) Close() { w.s.end(nil) }

// Delivered counts what the waiter has put on Events, its close included.
func (w *TransferWaiter) Delivered() uint64 { return w.s.deliveries() }

// AwaitTransfer registers the receipt route of a transfer before its begin is sent. One transfer
// at a time per connection: a second one is refused with ErrTransferBusy.
func (s *Session) AwaitTransfer(transferID string) (*TransferWaiter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	if s.transfer != nil {
		return nil, fmt.Errorf("transfer %s: %w (transfer %s)", transferID, ErrTransferBusy, s.transfer.TransferID)
	}
	w := &TransferWaiter{TransferID: transferID}
	w.s = newStream(transferReceipts, func() {
		s.mu.Lock()
		if s.transfer == w {
			s.transfer = nil
		}
		s.mu.Unlock()
	})
	s.transfer = w
	return w, nil
}

// routeTransferResult hands a runtime_prepare_result to the transfer it names; a result for no
// transfer in progress is dropped (nothing is invented for it).
func (s *Session) routeTransferResult(env proto.Envelope, frame *proto.Frame, perr error) {
	s.mu.Lock()
	w := s.transfer
	s.mu.Unlock()
	if w == nil || w.TransferID != env.ID {
		s.log.Debug("dropping a runtime_prepare_result for no transfer in progress", "id", env.ID)
		return
	}
	ev := Event{Envelope: env, Frame: frame, Invalid: perr, Seq: s.inbound}
	if perr != nil {
		ev.Frame = nil
	}
	w.s.deliver(ev, false)
}

// takeTransfer removes the transfer waiter when the connection closes. Called with s.mu held.
func (s *Session) takeTransfer() *TransferWaiter {
	w := s.transfer
	s.transfer = nil
	return w
}
