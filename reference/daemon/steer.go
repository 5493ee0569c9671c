package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/input"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// runInputs is a Run's active input: the pure machine (package input) under its own lock, and
// what the daemon needs to carry out its effects.
type runInputs struct {
	mu      sync.Mutex
	m       input.Run
	pending map[string]proto.MessageInput // input of the StartWrite effects not yet carried out
	drained chan struct{}                 // closed by ReleaseDone: done may go out
	once    sync.Once
}

func newRunInputs() *runInputs {
	return &runInputs{pending: map[string]proto.MessageInput{}, drained: make(chan struct{})}
}

// applyInput feeds the machine one event under the lock. A refused event is a bug of the daemon's
// wiring, logged; it changes nothing.
func (r *router) applyInput(rn *run, ev input.Event) []input.Effect {
	rn.inputs.mu.Lock()
	defer rn.inputs.mu.Unlock()
	effects, err := rn.inputs.m.Apply(ev)
	if err != nil {
		r.d.log.Error("active input event refused", "run", rn.id, "err", err)
	}
	return effects
}

// promptSteer answers one prompt_steer (protocol-facts §4.11).
func (r *router) promptSteer(env proto.Envelope) {
	p, err := proto.Decode[proto.PromptSteerPayload](env)
	if err != nil {
		if loose := looseSteer(env); loose != nil {
			p, err = loose, nil
		}
	}
	if err != nil {
		// invalid_input needs somewhere to go: the Run ID and an input ID to name.
		id := rawInputID(env.Payload)
		if env.ID == "" || id == "" {
			r.d.log.Warn("dropping a prompt_steer that names no Run or no input", "err", err)
			return
		}
		receipt := proto.PromptSteerAckPayload{InputID: id, ErrorCode: proto.CodeInvalidInput, Error: err.Error()}
		if mutateRefusedSteer(env, &receipt) {
			return
		}
		r.steerAck(env.ID, receipt)
		r.recordRefusedSteer(env, id)
		return
	}
	if len(p.InputID) == proto.InputIDMaxBytes && mutation.On(mutation.InIDAtLimitRefused) {
		r.steerAck(env.ID, proto.PromptSteerAckPayload{InputID: p.InputID, ErrorCode: proto.CodeInvalidInput})
		return
	}
	r.mu.Lock()
	rn := r.runs[env.ID]
	if rn == nil && len(r.runs) == 1 && mutation.On(mutation.InSteerRoutedToOnlyRun) {
		for _, only := range r.runs {
			rn = only // the Runtime's one Run takes the input, whatever Run it names
		}
	}
	closing := r.closing
	if closing && !mutation.On(mutation.InClosingRouterTaken) {
		rn = nil
	}
	r.mu.Unlock()
	if r.doneOutNotReady(env.ID) {
		r.steerAck(env.ID, proto.PromptSteerAckPayload{InputID: p.InputID, ErrorCode: proto.CodeNotReady})
		return
	}
	if rn == nil {
		r.steerAck(env.ID, proto.PromptSteerAckPayload{InputID: p.InputID, ErrorCode: r.inactiveCode(env.ID, closing)})
		return
	}
	content, _ := json.Marshal(p.Input)
	sum := sha256.Sum256(content)
	steer := input.Steer{InputID: p.InputID, Hash: hex.EncodeToString(sum[:]), Durable: p.DurableReceipt,
		Ready: rn.hasTurn(), Steering: rn.exec.caps.Steering.Supported(), DurableReceipts: rn.exec.caps.DurableInputReceipts.Supported()}
	if !steer.Ready {
		if code := r.notReadyCode(rn); code != proto.CodeNotReady {
			r.steerAck(rn.id, proto.PromptSteerAckPayload{InputID: p.InputID, ErrorCode: code})
			return
		}
	}
	rn.inputs.mu.Lock()
	mutateSteer(&rn.inputs.m, &steer)
	effects, err := rn.inputs.m.Apply(steer)
	for _, eff := range effects {
		if w, ok := eff.(input.StartWrite); ok {
			rn.inputs.pending[w.InputID] = p.Input
		}
	}
	rn.inputs.mu.Unlock()
	if err != nil {
		r.d.log.Error("prompt_steer refused by the input machine", "run", rn.id, "err", err)
	}
	r.inputEffects(rn, effects)
	r.repeatWrittenAgain(rn, p.InputID, p.Input, effects)
}

// rawInputID reads input_id from a payload that did not decode, if it is a non-blank string.
func rawInputID(payload json.RawMessage) string {
	var m struct {
		InputID string `json:"input_id"`
	}
	if json.Unmarshal(payload, &m) != nil || strings.TrimSpace(m.InputID) == "" {
		return ""
	}
	return m.InputID
}

// hasTurn reports whether the Run has its native Turn (it is no longer starting).
func (rn *run) hasTurn() bool {
	select {
	case <-rn.started:
		return rn.turn != nil
	default:
		return false
	}
}

// inputEffects carries out the machine's effects in order.
func (r *router) inputEffects(rn *run, effects []input.Effect) {
	for _, eff := range effects {
		switch eff := eff.(type) {
		case input.Ack:
			r.steerAck(rn.id, eff.Receipt)
		case input.StartWrite:
			rn.inputs.mu.Lock()
			in := rn.inputs.pending[eff.InputID]
			delete(rn.inputs.pending, eff.InputID)
			rn.inputs.mu.Unlock()
			// The write arms its bound and the native write's timers in its goroutine: the
			// clock waits for them (clock.Hold).
			hold := clock.HoldFor(r.d.cfg.Clock)
			r.goOwned(func() {
				defer hold.Release()
				r.writeInput(clock.WithHold(r.ctx, hold), rn, eff.InputID, in)
			})
		case input.ReleaseDone:
			rn.inputs.once.Do(func() { close(rn.inputs.drained) })
		case input.HoldDone:
			// awaitInputs holds done; nothing to start here.
		}
	}
}

// writeInput writes one input natively within the 10 s bound (IN-17), then follows the adapter's
// verdict to the input's last receipt. Each phase's receipt goes out before the next is decided.
// writeInput writes one input to the native Turn; parent is the router's context, carrying the
// clock's Hold for the write's timers.
func (r *router) writeInput(parent context.Context, rn *run, id string, in proto.MessageInput) {
	steerable, ok := rn.turn.(harness.Steerable)
	if !ok {
		r.inputEffects(rn, r.applyInput(rn, input.WriteEnded{InputID: id, Outcome: input.WriteUnimplemented}))
		return
	}
	bound := proto.NativeWriteTimeout
	if mutation.On(mutation.InWriteBoundEarly) {
		bound /= 2
	}
	ctx, cancel := clock.WithTimeout(parent, r.d.cfg.Clock, bound)
	if mutation.On(mutation.NativeWriteUnbounded) {
		ctx, cancel = context.WithCancel(parent)
	}
	early := r.writtenBeforeWrite(rn, id)
	verdict, err := steerable.WriteInput(ctx, id, in)
	timedOut, stopping := ctx.Err() != nil && r.ctx.Err() == nil, r.ctx.Err() != nil
	if !mutation.On(mutation.InWriteBoundCoversAcceptance) {
		cancel() // the write's timer stops once it is written
	} else {
		defer cancel()
	}
	outcome := input.WriteDone
	switch {
	case err == nil:
	case errors.Is(err, harness.ErrInputNotReady):
		outcome = input.WriteNotReady
	case errors.Is(err, harness.ErrInputRejected):
		outcome = input.WriteRejected
		r.writtenBeforeRejection(rn, id)
	case errors.Is(err, harness.ErrInputUnimplemented):
		outcome = input.WriteUnimplemented
	default:
		outcome = input.WriteUnknown // timed out or broken after the input may have been taken
		if mutatedWriteFailure(timedOut, stopping) {
			outcome = input.WriteRejected
		}
	}
	effects := r.applyInput(rn, input.WriteEnded{InputID: id, Outcome: outcome})
	if early {
		effects = withoutWrittenAck(effects)
	}
	r.inputEffects(rn, effects)
	if outcome == input.WriteUnknown && mutation.On(mutation.InUnknownWriteRetried) {
		r.writeAgain(rn, id, in) // the Runtime retries an uncertain write on its own
	}
	if outcome != input.WriteDone {
		return
	}
	v := input.Consumed
	switch err := awaitVerdict(ctx, verdict); {
	case err == nil:
	case errors.Is(err, harness.ErrInputRejected):
		v = input.Refused
	default:
		v = input.NotConsumed
	}
	r.inputEffects(rn, r.applyInput(rn, input.Settled{InputID: id, Verdict: v}))
}

// awaitInputs holds a settled Turn's done for at most 15 s while an input is in flight (IN-19).
func (r *router) awaitInputs(rn *run) {
	effects := r.applyInput(rn, input.TurnSettled{})
	holdDone := slices.ContainsFunc(effects, func(e input.Effect) bool { _, hold := e.(input.HoldDone); return hold }) &&
		!mutation.On(mutation.DoneBeforeInputSettles)
	var expired <-chan time.Time
	if holdDone {
		wait := proto.InFlightInputWait
		if mutation.On(mutation.InDoneWaitShort) {
			wait /= 3
		}
		t := r.d.cfg.Clock.NewTimer(wait)
		defer t.Stop()
		expired = t.C()
	}
	// The Run's inputs know of the end and its wait is armed: the advance that woke the Turn into
	// its end goes on, before anything here waits on Core (the receipts' sends).
	rn.ended.Release()
	r.inputEffects(rn, effects)
	if !holdDone {
		return // nothing in flight: no timer, so a virtual clock sees none
	}
	select {
	case <-rn.inputs.drained:
	case <-expired:
		r.inputEffects(rn, r.applyInput(rn, input.WaitExpired{}))
	}
}

// steerAck sends a prompt_steer_ack within its 5 s send budget (IN-18): a send that cannot
// complete in time is abandoned, never retried.
func (r *router) steerAck(runID string, receipt proto.PromptSteerAckPayload) {
	mutateReceipt(&receipt)
	env := mutateReceiptEnvelope(proto.MustEnvelope(proto.TypePromptSteerAck, runID, &receipt), receipt)
	if err := sendWithin(r.d.cfg.Clock, r.out.enqueue(env), proto.ReceiptSendBudget); err != nil {
		r.d.log.Warn("an input receipt could not be sent", "run", runID, "input", receipt.InputID, "err", err)
	}
}

// errSendBudget: a receipt's send did not complete within its budget.
var errSendBudget = errors.New("the receipt send budget ran out")

// sendWithin waits for a queued frame's write, at most budget on the daemon's clock.
func sendWithin(c clock.Clock, result <-chan error, budget time.Duration) error {
	return awaitWithin(result, c.NewTimer(budget))
}

// awaitWithin waits for a queued frame's write until the budget timer t fires, and stops t.
func awaitWithin(result <-chan error, t clock.Timer) error {
	defer t.Stop()
	select {
	case err := <-result:
		return err
	case <-t.C():
		return errSendBudget
	}
}
