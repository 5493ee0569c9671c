package turn

import (
	"context"
	"errors"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// CancelDeliveryID is the delivery ID of a Run's cancellation.
func CancelDeliveryID(runID string) string { return "cancel:" + runID }

// requestCancel commits the request once; a repeated request changes nothing.
func (s *State) requestCancel() []Effect {
	if s.CancelRequested {
		return nil
	}
	s.CancelRequested = true
	return []Effect{s.commit(), note("cancellation requested in phase " + s.Phase)}
}

// cancelQueued: nothing was sent, so the Turn is cancelled at once.
func cancelQueued(s *State, _ Event) ([]Effect, error) {
	effects := s.requestCancel()
	if effects == nil {
		return nil, nil
	}
	return append(effects, s.cancelled()), nil
}

// cancelBeforeStart releases the admission; without a handle yet, it waits for a status that
// names one, never longer than the confirmation timeout.
func cancelBeforeStart(s *State, _ Event) ([]Effect, error) {
	effects := s.requestCancel()
	if effects == nil {
		return nil, nil
	}
	if s.LearnedHandle != "" {
		return append(effects, s.release(false)...), nil
	}
	return append(effects, s.arm(TimerCancelConfirmation, cancelConfirmation())), nil
}

// cancelRun sends prompt_cancel once the Run may own the admission. The receipt waiter and the
// 15-second confirmation timer exist before the frame is queued.
func cancelRun(s *State, _ Event) ([]Effect, error) {
	effects := s.requestCancel()
	if effects == nil {
		return nil, nil
	}
	if s.Phase == store.PhaseStarting && mutation.On(mutation.CAStartingCancelReleases) {
		return append(effects, s.release(false)...), nil // the old handle released after start was sent
	}
	delivery := CancelDeliveryID(s.Spec.RunID)
	effects = append(effects, Subscribe{Stream: StreamReceipt, ID: delivery},
		s.arm(TimerCancelConfirmation, cancelConfirmation()), s.moveTo(store.PhaseCancelling))
	env, err := cancelEnvelope(s.Spec.RunID, delivery)
	if err != nil {
		return append(effects, s.fail(proto.ReasonCancelUnconfirmed, "prompt_cancel could not be confirmed as sent: "+err.Error())), nil
	}
	return append(effects, Send{Envelope: env}), nil
}

// cancelledUnreleased: no status named the handle in time; no input was submitted.
func cancelledUnreleased(s *State, _ Event) ([]Effect, error) {
	return []Effect{s.cancelled()}, nil
}

func cancelTimedOut(s *State, _ Event) ([]Effect, error) {
	switch {
	case mutation.On(mutation.CancelTimeoutCancels):
		return []Effect{s.cancelled()}, nil
	case mutation.On(mutation.CancelResentOnTimeout):
		env, err := proto.NewEnvelope(proto.TypePromptCancel, s.Spec.RunID, &proto.PromptCancelPayload{DeliveryID: CancelDeliveryID(s.Spec.RunID)})
		if err == nil {
			return []Effect{Send{Envelope: env, BestEffort: true}, s.fail(proto.ReasonCancelUnconfirmed, "no cancellation confirmation within 15s")}, nil
		}
	}
	return []Effect{s.fail(proto.ReasonCancelUnconfirmed, "no cancellation confirmation within 15s")}, nil
}

// receipt decides the cancellation: applied with a snapshot is cancelled; applied without one is
// cancel_outcome_unavailable; run_inactive after done keeps done's outcome; anything else is
// cancel_unconfirmed. The receipt is kept in every case.
func receipt(s *State, ev Event) ([]Effect, error) {
	ack := ev.(Receipt).Ack
	var o *store.Outcome
	switch {
	case ack.Applied && ack.Outcome != nil && s.Seen.Done == nil && mutation.On(mutation.CAAppliedBeforeDoneIncomplete):
		o = s.merge(ack.Outcome)
		o.Status, o.Reason = proto.TurnFailed, proto.ReasonEventStreamIncomplete
		o.Error = "the cancellation was applied but the Run's stream never closed with done"
	case ack.Applied && ack.Outcome != nil:
		o = s.merge(cancelledSnapshot(s, ack.Outcome))
		o.Status, o.DoneObserved = proto.TurnCancelled, s.Seen.Done != nil
	case ack.Applied && mutation.On(mutation.ReceiptWithoutOutcomeCancels):
		o = s.merge(s.Seen.Done)
		o.Status = proto.TurnCancelled
	case ack.Applied:
		o = s.merge(s.Seen.Done)
		o.Status, o.Reason = proto.TurnFailed, proto.ReasonCancelOutcomeUnavailable
		o.Error = "the cancellation was applied without an outcome snapshot"
	case ack.ErrorCode == proto.CodeRunInactive && (s.Seen.Done != nil || mutation.On(mutation.CARunInactiveBeforeDoneCompletes)) &&
		!mutation.On(mutation.RunInactiveAfterDoneUnconfirmed):
		o = s.fromDone()
	case mutation.On(mutation.ReceiptNotAppliedCancels) && ack.ErrorCode == proto.CodeCancelFailed:
		o = s.merge(s.Seen.Done)
		o.Status = proto.TurnCancelled
	case mutation.On(mutation.CACancelTimeoutAwaited) && ack.ErrorCode == proto.CodeCancelTimeout:
		return []Effect{note("cancel_timeout: still waiting for the cancellation to settle")}, nil
	case mutation.On(mutation.CAOutputUnavailableIncomplete) && ack.ErrorCode == proto.CodeCancelOutputUnavailable:
		o = s.merge(s.Seen.Done)
		o.Status, o.Reason = proto.TurnFailed, proto.ReasonEventStreamIncomplete
		o.Error = "the cancelled Run's output was lost"
	case mutation.On(mutation.CAOutcomeUnavailableKept) && ack.ErrorCode == proto.CodeCancelOutcomeUnavailable:
		o = s.merge(s.Seen.Done)
		o.Status, o.Reason = proto.TurnFailed, proto.ReasonCancelOutcomeUnavailable
		o.Error = "the cancellation settled without an outcome snapshot"
	default:
		o = s.merge(s.Seen.Done)
		o.Status, o.Reason = proto.TurnFailed, proto.ReasonCancelUnconfirmed
		o.Error = "the cancellation was not applied: " + ack.ErrorCode
	}
	o.CancelReceipt = ack
	return []Effect{s.finish(o)}, nil
}

// receiptWaitClosed: the receipt can no longer arrive, unless Core itself stopped waiting.
func receiptWaitClosed(s *State, ev Event) ([]Effect, error) {
	err := ev.(ReceiptWaitClosed).Err
	if err == nil || errors.Is(err, context.Canceled) {
		return nil, nil
	}
	if s.Seen.Done != nil && mutation.On(mutation.CALostReceiptDoneCompletes) {
		return []Effect{s.finish(s.fromDone())}, nil // the stream had finished: taken as completed
	}
	return []Effect{s.fail(proto.ReasonCancelUnconfirmed, "the cancellation receipt can no longer arrive: "+err.Error())}, nil
}
