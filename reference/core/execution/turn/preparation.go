package turn

import (
	"encoding/json"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// learn keeps the handle and Executor a status names: release needs them before start commits
// them.
func (s *State) learn(st Status) { s.LearnedHandle, s.LearnedExecutor = st.Handle, st.ExecutorID }

// preparing: the Runtime owns the preparation. A cancellation waiting for the handle releases it
// now.
func preparing(s *State, ev Event) ([]Effect, error) {
	s.learn(ev.(Status))
	if s.CancelRequested {
		return s.release(false), nil
	}
	return nil, nil
}

// ready: the reservation is ready; Core starts the Run unless it was asked to cancel.
func ready(s *State, ev Event) ([]Effect, error) {
	s.learn(ev.(Status))
	if s.CancelRequested && mutation.On(mutation.CAAbandonedAdmissionStarted) {
		return append(s.start(), s.release(true)...), nil // the start was built before the cancellation was looked at
	}
	if s.CancelRequested {
		return s.release(true), nil
	}
	return s.start(), nil
}

// readyIgnored: a start is already under way.
func readyIgnored(s *State, _ Event) ([]Effect, error) {
	return []Effect{note("ready ignored in phase " + s.Phase)}, nil
}

// started confirms the admission passed to the Run; an input delivered while starting goes out
// now.
func started(s *State, _ Event) ([]Effect, error) {
	effects := []Effect{s.moveTo(store.PhaseRunning)}
	if mutation.On(mutation.RunSubscribedAtStarted) {
		effects = append([]Effect{Subscribe{Stream: StreamRun, ID: s.Spec.RunID}}, effects...)
	}
	return append(effects, s.deliverNext()...), nil
}

// preparationEnded handles failed, expired and released before the Run owns the admission.
func preparationEnded(s *State, ev Event) ([]Effect, error) {
	st := ev.(Status)
	if s.CancelRequested && !store.Dispatched(s.Phase) {
		return []Effect{s.cancelled()}, nil
	}
	if st.State == proto.StateFailed && s.Phase == store.PhasePreparing && mutation.On(mutation.ADCoreFailedPreparationReplayed) {
		return []Effect{Close{Stream: StreamPreparation}, s.moveTo(store.PhaseQueued), s.scheduleRetry()}, nil
	}
	if st.State == proto.StateFailed && s.Phase == store.PhaseStarting && mutation.On(mutation.PJStartFailureLeftToRun) {
		return []Effect{note("failed after execution_start: left to the Run stream")}, nil
	}
	reason := proto.ReasonPreparationStartFailed
	if st.State == proto.StateFailed && s.Phase == store.PhasePreparing && mutation.On(mutation.PJFailedPreparationInterrupted) {
		reason = proto.ReasonPreparationInterrupted
	}
	o := &store.Outcome{Status: proto.TurnFailed, Reason: reason,
		PreparationErrorCode: st.ErrorCode, Error: "preparation " + st.State,
		EffectUnknown: store.Dispatched(s.Phase)}
	if st.ErrorCode != "" {
		o.Error += ": " + st.ErrorCode
	}
	return []Effect{s.finish(o)}, nil
}

// prepareRejected: a definite preparation_capacity rejection leaves the Turn unclaimed for a
// retry (RETRY); any other rejection authorizes no replay.
func prepareRejected(s *State, ev Event) ([]Effect, error) {
	st := ev.(Status)
	d := s.Spec.policy().Preparation(st.ErrorCode)
	effects := []Effect{Journal{Event: store.Event{Kind: store.EventAdmission, Note: d.String()}}}
	if d.Verdict == policy.Retry && !mutation.On(mutation.CapacityRejectionFinal) ||
		d.Verdict != policy.Retry && mutation.On(mutation.PJRejectionRetried) {
		return append(effects, Close{Stream: StreamPreparation}, s.moveTo(store.PhaseQueued), s.scheduleRetry()), nil
	}
	return append(effects, s.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonPreparationStartFailed,
		PreparationErrorCode: st.ErrorCode, Error: "execution_prepare rejected: " + st.ErrorCode})), nil
}

// startRejected: after executor_unavailable no input was submitted and the old Executor was
// closed, so Core retries once with a fresh preparation request for the same Run.
func startRejected(s *State, ev Event) ([]Effect, error) {
	st := ev.(Status)
	recoverable := st.ErrorCode == proto.CodeExecutorUnavailable || mutation.On(mutation.PJStartRejectionRecovered) ||
		st.ErrorCode == proto.CodeStartCancelled && mutation.On(mutation.ADCoreCancelledStartRecovered)
	if !recoverable || mutation.On(mutation.ExecutorUnavailableNotRecovered) {
		code := st.ErrorCode
		if mutation.On(mutation.StartRejectionCodeDropped) {
			code = ""
		}
		return []Effect{s.finish(&store.Outcome{Status: proto.TurnFailed, Reason: proto.ReasonPreparationStartFailed,
			PreparationErrorCode: code, Error: "execution_start rejected: " + st.ErrorCode})}, nil
	}
	if s.Recovered && !mutation.On(mutation.RecoveryRepeated) {
		reason := proto.ReasonExecutorRecoveryFailed
		if mutation.On(mutation.PJRecoveryFailureAsStartFailed) {
			reason = proto.ReasonPreparationStartFailed
		}
		if mutation.On(mutation.ADCoreRecoveryFailureAsCode) {
			reason = st.ErrorCode
		}
		return []Effect{s.finish(&store.Outcome{Status: proto.TurnFailed, Reason: reason,
			PreparationErrorCode: st.ErrorCode, Error: "the single recovery after executor_unavailable failed"})}, nil
	}
	s.Recovered = true
	s.Asked = AskedPrepareID
	return []Effect{Close{Stream: StreamPreparation}, Close{Stream: StreamRun}, s.commit(), NewPrepareID{}}, nil
}

// preparationInterrupted: the status stream ended before started.
func preparationInterrupted(s *State, ev Event) ([]Effect, error) {
	err := ev.(PreparationClosed).Err
	if err == nil {
		return nil, nil
	}
	effects := []Effect{note("preparation subscription closed: " + err.Error())}
	if s.CancelRequested {
		return append(effects, s.cancelled()), nil
	}
	reason := proto.ReasonPreparationInterrupted
	if mutation.On(mutation.PreparationLossIncomplete) {
		reason = proto.ReasonEventStreamIncomplete
	}
	if mutation.On(mutation.CNLostPreparationFailed) {
		reason = proto.ReasonPreparationStartFailed
	}
	return append(effects, s.fail(reason, "the preparation status stream ended before started: "+err.Error())), nil
}

// preparationClosedAfterStart: from starting on, the Run subscription decides.
func preparationClosedAfterStart(_ *State, ev Event) ([]Effect, error) {
	if err := ev.(PreparationClosed).Err; err != nil {
		return []Effect{note("preparation subscription closed: " + err.Error())}, nil
	}
	return nil, nil
}

// start subscribes to the Run (output can race started), commits ready then starting, and sends
// execution_start with the handle, the Run ID and the input.
func (s *State) start() []Effect {
	// The Run's subscription exists before execution_start goes out: its output may race the
	// started status (AD-49).
	effects := []Effect{Subscribe{Stream: StreamRun, ID: s.Spec.RunID}}
	if mutation.On(mutation.RunSubscribedAtStarted) {
		effects = nil
	}
	s.Handle, s.ExecutorID = s.LearnedHandle, s.LearnedExecutor
	effects = append(effects, s.moveTo(store.PhaseReady), s.moveTo(store.PhaseStarting))
	env, err := proto.NewEnvelope(proto.TypeExecutionStart, s.PrepareID, &proto.ExecutionStartPayload{
		ExecutorID: s.ExecutorID, Handle: s.Handle, RunID: s.Spec.RunID, Input: startInput(s.Spec.Input)})
	if err != nil {
		return append(effects, s.fail(proto.ReasonInvalidInput, err.Error()))
	}
	return append(effects, Send{Envelope: s.startMutants(env)})
}

// release abandons the admission before start; no input was submitted, so the Turn is cancelled
// whether or not the release could be sent. atReady: the admission turned ready after the
// cancellation was requested.
func (s *State) release(atReady bool) []Effect {
	effects := abandonedCancel(s)
	env, err := proto.NewEnvelope(proto.TypeExecutionRelease, s.PrepareID, &proto.ExecutionReleasePayload{Handle: s.LearnedHandle})
	env = s.releaseMutants(env)
	if mutation.On(mutation.ReleaseHandleOmitted) {
		env.Payload = json.RawMessage(`{}`) // the request ID alone names the admission
	}
	withheld := mutation.On(mutation.CancelBeforeStartNoRelease) && !atReady || mutation.On(mutation.CAReadyCancelWithoutRelease) && atReady
	if err == nil && !withheld {
		effects = append(effects, Send{Envelope: env, BestEffort: true})
	}
	return append(effects, s.cancelled())
}
