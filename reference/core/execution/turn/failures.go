package turn

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// A failed effect reaches the machine in the state from before its step; the event says which
// phase the durable record was left in, and the outcome is recorded from there.

func (s *State) failedAt(committed string) {
	if committed != "" {
		s.Phase = committed
	}
}

func preparationUnsubscribed(s *State, ev Event) ([]Effect, error) {
	f := ev.(SubscribeFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonDeviceDisconnected, "could not subscribe to preparation status: "+f.Err.Error())}, nil
}

func recoveryUnsubscribed(s *State, ev Event) ([]Effect, error) {
	f := ev.(SubscribeFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonExecutorRecoveryFailed, "could not subscribe for the recovery: "+f.Err.Error())}, nil
}

func runUnsubscribed(s *State, ev Event) ([]Effect, error) {
	f := ev.(SubscribeFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonDeviceDisconnected, "could not subscribe to the Run: "+f.Err.Error())}, nil
}

func receiptUnawaited(s *State, ev Event) ([]Effect, error) {
	f := ev.(SubscribeFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonCancelUnconfirmed, "could not wait for the cancellation receipt: "+f.Err.Error())}, nil
}

func prepareUndelivered(s *State, ev Event) ([]Effect, error) {
	f := ev.(SendFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonDeliveryUnknown, "execution_prepare could not be confirmed as sent: "+f.Err.Error())}, nil
}

func recoveryUndelivered(s *State, ev Event) ([]Effect, error) {
	f := ev.(SendFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonExecutorRecoveryFailed, "the recovery's execution_prepare could not be confirmed as sent: "+f.Err.Error())}, nil
}

func startUndelivered(s *State, ev Event) ([]Effect, error) {
	f := ev.(SendFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonDeliveryUnknown, "execution_start could not be confirmed as sent: "+f.Err.Error())}, nil
}

func cancelUndelivered(s *State, ev Event) ([]Effect, error) {
	f := ev.(SendFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonCancelUnconfirmed, "prompt_cancel could not be confirmed as sent: "+f.Err.Error())}, nil
}

// persistenceFailed: Core could not keep what it observed or decided.
func persistenceFailed(s *State, ev Event) ([]Effect, error) {
	f := ev.(PersistFailed)
	s.failedAt(f.Committed)
	return []Effect{s.fail(proto.ReasonEventPersistenceFailed, f.Err.Error())}, nil
}

// interrupted is what a restarted Core records for a Turn it finds in flight: failed with
// execution_interrupted, its effect unknown if input may have been dispatched. It never
// completes a Turn and never dispatches one again.
func interrupted(s *State, _ Event) ([]Effect, error) {
	o := &store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonExecutionInterrupted}
	o.Error = InterruptedError(s.Phase)
	return []Effect{s.finish(o)}, nil
}

// InterruptedError is the error of a Turn a restart found in a phase.
func InterruptedError(phase string) string {
	if store.Dispatched(phase) {
		return "Core restarted while the Turn was in phase " + phase + ": input may have been submitted; the outcome is unknown"
	}
	return "Core restarted while the Turn was in phase " + phase + ": no input was submitted"
}
