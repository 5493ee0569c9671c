package execution

import (
	"context"
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// apply carries out one effect. It returns the answer to a query, or the failure that ends the
// step (stepped next, with the phase the durable record is in). A commit or a journal event joins
// the batch of writes (writes.go); any other effect but the outcome, which takes the batch into its
// own transaction, is carried out only once the batch is durable.
func (r *runner) apply(eff turn.Effect) (answer, failure turn.Event) {
	switch eff.(type) {
	case turn.Commit, turn.Journal:
	case turn.Finish:
		if failure := r.await(); failure != nil {
			return nil, failure
		}
	default:
		if failure := r.flush(); failure != nil {
			return nil, failure
		}
	}
	switch e := eff.(type) {
	case turn.CheckDevice:
		return r.checkDevice(), nil
	case turn.NewPrepareID:
		return turn.PrepareIDIssued{ID: NewID()}, nil
	case turn.Subscribe:
		return nil, r.subscribe(e)
	case turn.Close:
		r.closeStream(e.Stream)
	case turn.Commit:
		r.commit(e)
	case turn.Journal:
		r.hold(e.Event)
	case turn.Send:
		failure := r.send(e)
		if _, ok := failure.(turn.SendFailed); ok && e.Reported {
			return failure, nil // the step stands; its failure is stepped next
		}
		return nil, failure
	case turn.Arm:
		r.setTimer(e.Timer, r.e.cfg.Clock.NewTimer(e.After), r.e.cfg.Clock.Now().Add(e.After))
	case turn.Disarm:
		r.setTimer(e.Timer, nil, time.Time{})
	case turn.Finish:
		r.finish(e)
	default:
		r.log.Error("an effect the runner does not know", "effect", eff.String())
	}
	return nil, nil
}

// checkDevice reads what the final admission check needs: the device's live connection (kept for
// the claim) and its capability snapshot.
func (r *runner) checkDevice() turn.Event {
	conn, ok := r.e.cfg.Conns.Conn(r.rec.DeviceID)
	if !ok {
		return turn.DeviceChecked{}
	}
	r.conn = conn
	hb, known := conn.Capabilities()
	if ok, state := r.e.preparedOn(r.rec.DeviceID, conn); !ok {
		return turn.DeviceChecked{Online: true, Heartbeat: hb, Known: known, Unprepared: true, Preparation: state}
	}
	return turn.DeviceChecked{Online: true, Heartbeat: hb, Known: known, PrepareID: NewID()}
}

func (r *runner) subscribe(e turn.Subscribe) turn.Event {
	var s Stream
	var err error
	switch e.Stream {
	case turn.StreamPreparation:
		s, err = r.conn.SubscribePreparation(e.ID)
	case turn.StreamRun:
		s, err = r.conn.SubscribeDurable(e.ID)
	case turn.StreamReceipt, turn.StreamDecision:
		s, err = r.conn.AwaitAck(e.ID)
	}
	if err != nil {
		return turn.SubscribeFailed{Stream: e.Stream, ID: e.ID, Err: err, Committed: r.rec.Phase}
	}
	r.setStream(e.Stream, s)
	return nil
}

// commit adds a record change to the batch; a phase move is journalled with it.
func (r *runner) commit(c turn.Commit) {
	r.holding()
	r.w.apply = append(r.w.apply, c.Record.ApplyTo)
	r.w.changed = true
	if c.Moves() {
		r.hold(c.Transition())
	}
}

// send queues a frame within Core's per-send timeout and journals it, or that it failed.
func (r *runner) send(s turn.Send) turn.Event {
	env := r.trace.stamp(s.Envelope)
	err := r.queue(env)
	r.trace.sent(env, err)
	if err != nil {
		r.hold(store.Event{Kind: store.EventNote, Type: env.Type, ID: env.ID, Note: "send failed: " + err.Error()})
		if s.BestEffort {
			return nil
		}
		return turn.SendFailed{Type: env.Type, ID: env.ID, Err: err, Committed: r.rec.Phase}
	}
	payload := env.Payload
	if env.Type == proto.TypeExecutionPrepare {
		payload = redactPrepare(payload)
	}
	r.hold(store.Event{Kind: store.EventSent, Type: env.Type, ID: env.ID, Payload: payload})
	return nil
}

// queue hands the frame to the connection, bounded by Core's send timeout on the injected clock.
func (r *runner) queue(env proto.Envelope) error {
	return r.e.sendWithinFrom(gateway.WithQueueWait(r.e.ctx, r.waitingRoom), r.conn.Send, env, proto.CoreSendTimeout)
}

// sendWithin hands env to send, cancelling it once budget has passed on the injected clock (the
// engine's end cancels it too): every frame Core sends has a bounded send.
func (e *Engine) sendWithin(send func(context.Context, proto.Envelope) error, env proto.Envelope, budget time.Duration) error {
	return e.sendWithinFrom(e.ctx, send, env, budget)
}

// sendWithinFrom is sendWithin from parent, a context of the engine's that may carry what the
// send reports (gateway.WithQueueWait).
func (e *Engine) sendWithinFrom(parent context.Context, send func(context.Context, proto.Envelope) error, env proto.Envelope, budget time.Duration) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	t := e.cfg.Clock.NewTimer(budget)
	defer t.Stop()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-t.C():
			cancel()
		case <-stop:
		}
	}()
	return send(ctx, env)
}

// redactPrepare removes MCP bearer tokens from a journalled execution_prepare.
func redactPrepare(raw json.RawMessage) json.RawMessage {
	var p proto.ExecutionPreparePayload
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	p.Configuration = store.RedactConfiguration(p.Configuration)
	out, _ := json.Marshal(p)
	return out
}

// finish records the outcome once, in one transaction with the batch of writes, and stops the
// runner; if the store refuses it, the committed phase stays for the next Reconcile.
func (r *runner) finish(f turn.Finish) {
	r.finished = true
	w := r.w
	r.w = writes{}
	if f.Record != nil {
		w.apply = append(w.apply, f.Record.ApplyTo)
	}
	apply := func(t *store.Turn) {
		for _, a := range w.apply {
			a(t)
		}
	}
	t, err := r.e.cfg.Store.FinishWith(r.rec.ID, apply, f.Outcome, append(w.events, f.Transition())...)
	if err != nil {
		r.log.Error("recording the outcome failed", "error", err)
		return
	}
	r.rec = t
	r.announce(w)
	r.log.Info("turn finished", "status", f.Outcome.Status, "reason", f.Outcome.Reason)
	r.e.cfg.OnChange(r.rec.ID)
}
