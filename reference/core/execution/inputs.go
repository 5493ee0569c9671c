package execution

import (
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Every frame received for the Turn is journalled before the machine sees it, in the batch of
// writes its step's effects join (writes.go); in-process observers see it once it is durable.
func (r *runner) received(ev gateway.Event) {
	r.hold(store.Event{Kind: store.EventReceived, Type: ev.Envelope.Type, ID: ev.Envelope.ID, Payload: ev.Envelope.Payload})
	r.w.received = append(r.w.received, r.w.events[len(r.w.events)-1])
}

// onStatus handles a preparation status that passed the subscription's revision rules.
func (r *runner) onStatus(ev gateway.Event) {
	r.received(ev)
	st, ok := ev.Frame.Payload.(*proto.PreparationStatusPayload)
	if !ok {
		r.log.Error("a preparation subscription delivered another frame", "type", ev.Envelope.Type)
		return
	}
	r.step(turn.StatusEvent(st))
}

func (r *runner) onRunEvent(ev gateway.Event) {
	r.received(ev)
	if ev.Envelope.Type == proto.TypePermissionCancel {
		// routed to the Run by the request's route; its id is the request_id
		r.step(turn.PermissionCancel{RequestID: ev.Envelope.ID})
		return
	}
	var payload any
	if ev.Frame != nil {
		payload = ev.Frame.Payload
	}
	payload, invalid := laxFunctionCall(ev.Envelope, payload, ev.Invalid)
	tev := turn.RunFrame(ev.Envelope.Type, ev.Envelope.Payload, payload, invalid)
	if d, ok := tev.(turn.Done); ok && gateway.ShutdownSent(r.deviceID) {
		d.AfterShutdown = true
		tev = d
	}
	r.step(tev)
}

func (r *runner) onReceipt(ev gateway.Event) {
	r.received(ev)
	ack, ok := ev.Frame.Payload.(*proto.InteractionDecisionAckPayload)
	if !ok {
		r.log.Error("a receipt waiter delivered another frame", "type", ev.Envelope.Type)
		return
	}
	r.step(turn.Receipt{Ack: ack})
}

func (r *runner) prepClosed() {
	err := r.prep.Err()
	r.setStream(turn.StreamPreparation, nil)
	r.step(turn.PreparationClosed{Err: err})
}

func (r *runner) runClosed() {
	err := r.run.Err()
	r.setStream(turn.StreamRun, nil)
	r.step(turn.RunClosed{Err: err, AfterShutdown: err != nil && gateway.ShutdownSent(r.deviceID), Cause: lossCause(r.conn, err)})
}

func (r *runner) onDecisionAck(ev gateway.Event) {
	r.received(ev)
	ack, ok := ev.Frame.Payload.(*proto.InteractionDecisionAckPayload)
	if !ok {
		r.log.Error("a decision waiter delivered another frame", "type", ev.Envelope.Type)
		return
	}
	r.step(turn.DecisionAck{Ack: ack})
}

func (r *runner) decClosed() {
	err := r.dec.Err()
	r.setStream(turn.StreamDecision, nil)
	r.step(turn.DecisionWaitClosed{Err: err})
}

func (r *runner) ackClosed() {
	err := r.ack.Err()
	r.setStream(turn.StreamReceipt, nil)
	r.step(turn.ReceiptWaitClosed{Err: err})
}

// lossCause is, for the stream-loss mutants only, who ended the connection a Run stream was lost
// with (turn.ClosedBy…), read from the Session's close reason; "" otherwise.
func lossCause(c Conn, err error) string {
	if err == nil || !(mutation.On(mutation.StreamLossCompletes) || mutation.On(mutation.StreamLossDeviceDisconnected) ||
		mutation.On(mutation.PJCoreCloseDeviceDisconnected) || mutation.On(mutation.PJReplacedDeviceDisconnected)) {
		return ""
	}
	sess, ok := c.(interface {
		Err() error
		Done() <-chan struct{}
	})
	if !ok {
		return ""
	}
	select { // the Session ends its streams, then marks itself done
	case <-sess.Done():
	case <-time.After(time.Second):
		return ""
	}
	why := sess.Err().Error()
	switch {
	case strings.Contains(why, "preempted by newer connection"):
		return turn.ClosedReplaced
	case strings.Contains(why, "core closed it"), strings.Contains(why, "a write failed"), strings.Contains(why, "no frame within"),
		strings.Contains(why, "read limited"), strings.Contains(why, "malformed frame"), strings.Contains(why, "invalid heartbeat"):
		return turn.ClosedByCore
	}
	return turn.ClosedByRuntime
}
