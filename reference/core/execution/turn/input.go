package turn

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Active input (protocol-facts §4.11, rules IN-20 … IN-23). Core delivers one input at a time per
// Run, as prompt_steer with durable_receipt true and input_id its decimal sequence number, and
// waits for its receipt before the next:
//   - written proves the native write, not consumption: the input stays current (the cursor does
//     not move) and Core waits, under the Turn's lifetime, for accepted;
//   - accepted moves the cursor and the next input goes out;
//   - not_ready or busy before written: the same input is resent InputResendInterval later, for as
//     long as its 30 s written bound allows; in_flight: keep waiting;
//   - any other code fails the Turn with input_<code>, and 30 s without written (or accepted) from
//     the input's first delivery, a send that cannot be confirmed, or an input still awaiting its
//     receipt when the Turn ends fail it with input_outcome_unknown;
//   - once prompt_cancel is sent its receipt owns the outcome: receipts still update the inputs,
//     but none of them fails the Turn, and nothing is sent or resent any more.
//
// An input whose outcome became unknown is never resent, not after a reconnect either.

// InputResendInterval is how long Core waits before resending an input answered not_ready or busy.
// The spec says "resend later" without an interval; one second keeps the resends well inside the
// 30 s written bound, which ends them.
const InputResendInterval = time.Second

// Codes of an InputRefused.
const (
	RefusedConflict    = "input_conflict" // the key was used for other content
	RefusedLimit       = "input_limit"    // the Run already has MaxSteeringInputs inputs
	RefusedUnsupported = "unsupported"    // the Turn's declaration lacks durable_input_receipts
)

// InputRefused is an input the Turn does not take; the state is unchanged.
type InputRefused struct {
	Code string
	Why  string
}

func (e *InputRefused) Error() string { return "input refused (" + e.Code + "): " + e.Why }

// withInput returns a copy of the inputs with Inputs[i] replaced: committed Records keep theirs.
func (s *State) withInput(i int, in store.Input) {
	ins := append([]store.Input(nil), s.Inputs...)
	ins[i] = in
	s.Inputs = ins
}

// InputByKey returns the input delivered under a caller's key.
func (s *State) InputByKey(key string) (store.Input, bool) {
	for _, in := range s.Inputs {
		if in.Key == key {
			return in, true
		}
	}
	return store.Input{}, false
}

// current is the index of the input being delivered, or -1 when every input was accepted.
func (s *State) current() int {
	if s.InputCursor < len(s.Inputs) {
		return s.InputCursor
	}
	return -1
}

// awaiting is the index of the input whose receipt is awaited (sent or written), or -1.
func (s *State) awaiting() int {
	i := s.current()
	if i >= 0 && (s.Inputs[i].State == store.InputSent || s.Inputs[i].State == store.InputWritten) {
		return i
	}
	return -1
}

// inputRequested records a new input and delivers it if nothing else awaits its receipt. The same
// key with the same content is the same input (nothing happens); with other content it is refused.
func inputRequested(s *State, ev Event) ([]Effect, error) {
	req := ev.(InputRequested)
	if in, ok := s.InputByKey(req.Key); ok {
		if !sameInput(in.Input, req.Input) {
			return nil, &InputRefused{Code: RefusedConflict, Why: "key " + strconv.Quote(req.Key) + " was used for input " + in.ID + " with other content"}
		}
		return nil, nil
	}
	if s.Admitted != nil {
		if v, ok := s.Admitted.Get("durable_input_receipts"); !ok || !v.Supported() {
			return nil, &InputRefused{Code: RefusedUnsupported, Why: "the Turn was admitted without durable_input_receipts: Core delivers input only with durable receipts"}
		}
	}
	if len(s.Inputs) >= proto.MaxSteeringInputs {
		return nil, &InputRefused{Code: RefusedLimit, Why: fmt.Sprintf("the Run already has %d inputs", proto.MaxSteeringInputs)}
	}
	in := store.Input{ID: strconv.Itoa(len(s.Inputs) + 1), Key: req.Key, Input: req.Input, State: store.InputPending}
	s.Inputs = append(append([]store.Input(nil), s.Inputs...), in)
	effects := []Effect{s.commit(), note("input " + in.ID + " requested under key " + strconv.Quote(req.Key))}
	return append(effects, s.deliverNext()...), nil
}

// sameInput compares two inputs as JSON (struct fields marshal in a fixed order).
func sameInput(a, b proto.MessageInput) bool {
	ra, errA := json.Marshal(a)
	rb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ra) == string(rb)
}

// deliverNext sends the current input when the Run is running, nothing awaits a receipt and no
// resend is scheduled.
func (s *State) deliverNext() []Effect {
	if s.Phase != store.PhaseRunning || s.Timers.Has(TimerInputResend) {
		return nil
	}
	i := s.current()
	if i < 0 {
		return nil
	}
	var effects []Effect
	if s.Inputs[i].State == store.InputPending {
		s.lastFirst(i)
		effects = s.send(i)
	}
	if mutation.On(mutation.InputNotSerialized) {
		// the mutant: every queued input goes out without waiting for the receipts before it
		for j := i + 1; j < len(s.Inputs); j++ {
			if s.Inputs[j].State == store.InputPending {
				effects = append(effects, s.send(j)...)
			}
		}
	}
	return effects
}

// send delivers Inputs[i]; the written bound is armed at its first delivery only.
func (s *State) send(i int) []Effect {
	in := s.Inputs[i]
	first := in.Sends == 0
	in.State, in.Sends = store.InputSent, in.Sends+1
	s.withInput(i, in)
	env, err := steerEnvelope(s.Spec.RunID, in, first)
	if err != nil {
		return s.inputUnknown(i, "input "+in.ID+" could not be encoded: "+err.Error(), false)
	}
	effects := []Effect{s.commit(), note(fmt.Sprintf("input %s sent (attempt %d)", in.ID, in.Sends))}
	if first && !mutation.On(mutation.InputWrittenUnbounded) {
		bound := proto.WrittenWait
		if mutation.On(mutation.InWrittenBoundEarly) {
			bound /= 2
		}
		effects = append(effects, s.arm(TimerInputWritten, bound))
	}
	return append(effects, Send{Envelope: env, Reported: true})
}

// steerAck applies a receipt to the input awaiting it.
func steerAck(s *State, ev Event) ([]Effect, error) {
	ack := ev.(SteerAck).Ack
	i := s.current()
	if i < 0 || (s.Inputs[i].ID != ack.InputID && !mutation.On(mutation.InAckInputIDUnchecked)) || s.Inputs[i].State == store.InputPending && s.Inputs[i].Sends == 0 {
		return []Effect{note("ignoring a prompt_steer_ack for input " + ack.InputID + ": no such input awaits a receipt")}, nil
	}
	in := s.Inputs[i]
	if effects, ok := s.mutatedSteerCode(i, ack.ErrorCode); ok {
		return effects, nil
	}
	switch {
	case ack.Accepted:
		return s.inputAccepted(i), nil
	case ack.Written:
		if in.State != store.InputSent {
			return []Effect{note("input " + in.ID + ": written again, ignored")}, nil
		}
		in.State, in.Code = store.InputWritten, ""
		s.withInput(i, in)
		effects := s.disarm(TimerInputWritten)
		if len(effects) > 0 && mutation.On(mutation.InWrittenKeepsBound) {
			// the 30 s bound goes on running after written: its timer stays armed, in the
			// machine as in the runner, so its firing is taken
			s.Timers, effects = s.Timers.With(TimerInputWritten), nil
		}
		if mutation.On(mutation.WrittenAdvancesCursor) {
			s.InputCursor++
			return append(append(effects, s.commit(), note("input "+in.ID+" written")), s.deliverNext()...), nil
		}
		return append(effects, s.commit(), note("input "+in.ID+" written: the native write completed, not acceptance; the cursor stays at "+strconv.Itoa(s.InputCursor))), nil
	case ack.ErrorCode == proto.CodeInFlight && !mutation.On(mutation.InFlightFails):
		return []Effect{note("input " + in.ID + " is in flight: keep waiting")}, nil
	case ack.ErrorCode == proto.CodeContractViolation && mutation.On(mutation.CNContractViolationUnknown):
		return s.inputFailed(i, proto.CodeOutcomeUnknown), nil
	case ack.ErrorCode == proto.CodeContractViolation && in.State == store.InputSent && mutation.On(mutation.ContractViolationRetried):
		return s.inputRetry(i, ack.ErrorCode), nil
	case ack.ErrorCode == proto.CodeNotReady && mutation.On(mutation.NotReadyFinal):
	case proto.RetryableSteerCode(ack.ErrorCode) && in.State == store.InputSent:
		return s.inputRetry(i, ack.ErrorCode), nil
	case proto.RetryableSteerCode(ack.ErrorCode):
		// After written the write happened: resending could deliver the input twice.
		return []Effect{note("input " + in.ID + ": " + ack.ErrorCode + " after written: not resent, keep waiting for accepted")}, nil
	}
	return s.inputFailed(i, ack.ErrorCode), nil
}

func (s *State) inputAccepted(i int) []Effect {
	in := s.Inputs[i]
	in.State, in.Code = store.InputAccepted, ""
	s.withInput(i, in)
	s.InputCursor = i + 1
	effects := append(s.disarm(TimerInputWritten), s.commit(),
		note("input "+in.ID+" accepted: the cursor moves to "+strconv.Itoa(s.InputCursor)))
	if s.current() >= 0 && !s.Timers.Has(TimerInputResend) && mutation.On(mutation.InNextInputDelayed) {
		return append(effects, s.arm(TimerInputResend, InputResendInterval))
	}
	return append(effects, s.deliverNext()...)
}

// inputRetry: not_ready or busy before written; the input was not taken and goes out again later,
// unless cancellation was sent.
func (s *State) inputRetry(i int, code string) []Effect {
	in := s.Inputs[i]
	in.State, in.Code = store.InputPending, code
	s.withInput(i, in)
	effects := []Effect{s.commit()}
	if s.CancelRequested {
		return append(append(effects, s.disarm(TimerInputWritten)...), note("input "+in.ID+": "+code+"; cancellation was sent, so it is not resent"))
	}
	if mutation.On(mutation.RetryResentAtOnce) {
		return append(effects, s.deliverNext()...)
	}
	return append(effects, note("input "+in.ID+": "+code+" before written; resent in "+InputResendInterval.String()),
		s.arm(TimerInputResend, InputResendInterval))
}

// inputFailed: a definite code; the Turn fails with input_<code> unless cancellation was sent.
func (s *State) inputFailed(i int, code string) []Effect {
	in := s.Inputs[i]
	in.State, in.Code = store.InputFailed, code
	s.withInput(i, in)
	effects := append(s.disarm(TimerInputWritten), s.commit(), note("input "+in.ID+" failed: "+code))
	if s.CancelRequested && !mutation.On(mutation.RejectionAfterCancelFails) {
		return append(effects, note("cancellation was sent: its receipt owns the outcome"))
	}
	return append(effects, s.fail(proto.ReasonInputPrefix+code, "input "+in.ID+" was refused: "+code))
}

// inputUnknown: the input's outcome can no longer be known; the Turn fails with
// input_outcome_unknown unless cancellation was sent. The input is never resent.
// failsAfterCancel: a mutant fails the Turn even though cancellation was sent (CA-21).
func (s *State) inputUnknown(i int, why string, failsAfterCancel bool) []Effect {
	in := s.Inputs[i]
	in.State = store.InputUnknown
	s.withInput(i, in)
	effects := append(append(s.disarm(TimerInputWritten), s.disarm(TimerInputResend)...), s.commit(), note(why))
	if s.CancelRequested && !failsAfterCancel {
		return append(effects, note("cancellation was sent: its receipt owns the outcome"))
	}
	return append(effects, s.fail(proto.ReasonInputOutcomeUnknown, why))
}

// writtenTimedOut: 30 s from the input's first delivery without written or accepted.
func writtenTimedOut(s *State, _ Event) ([]Effect, error) {
	i := s.current()
	if i < 0 {
		return []Effect{note("the written bound fired with no input awaiting a receipt")}, nil
	}
	resend := s.resendGivenUp(i)
	return append(resend, s.inputUnknown(i, "input "+s.Inputs[i].ID+" was not written within "+proto.WrittenWait.String()+": its outcome is unknown",
		mutation.On(mutation.UnknownInputAfterCancelFails))...), nil
}

// resendDue sends the input again, unless cancellation was sent meanwhile.
func resendDue(s *State, _ Event) ([]Effect, error) {
	if s.CancelRequested {
		return []Effect{note("cancellation was sent: the input is not resent")}, nil
	}
	return s.deliverNext(), nil
}

// steerUndelivered: prompt_steer could not be confirmed as queued; it may have gone out.
func steerUndelivered(s *State, ev Event) ([]Effect, error) {
	f := ev.(SendFailed)
	i := s.awaiting()
	if i < 0 {
		return []Effect{note("prompt_steer could not be confirmed as sent: " + f.Err.Error())}, nil
	}
	if mutation.On(mutation.InFailedSendAdvances) {
		return s.skipInput(i, store.InputUnknown, ""), nil
	}
	return s.inputUnknown(i, "prompt_steer for input "+s.Inputs[i].ID+" could not be confirmed as sent: "+f.Err.Error(),
		mutation.On(mutation.CASteerFailureAfterCancelFails)), nil
}

// disarm stops a timer if it is armed; nothing otherwise.
func (s *State) disarm(t Timer) []Effect {
	if !s.Timers.Has(t) {
		return nil
	}
	s.Timers = s.Timers.Without(t)
	return []Effect{Disarm{Timer: t}}
}

// pendingAtEnd reports whether an input is still undelivered or awaiting its receipt.
func (s *State) pendingAtEnd() bool { return s.current() >= 0 }

// unsettled marks the inputs awaiting a receipt as unknown, for the record the Turn ends with.
func (s *State) unsettled() *Record {
	changed := s.unsettledInteractions()
	if i := s.awaiting(); i >= 0 {
		in := s.Inputs[i]
		in.State = store.InputUnknown
		s.withInput(i, in)
		changed = true
	}
	if !changed {
		return nil
	}
	rec := s.Record
	return &rec
}
