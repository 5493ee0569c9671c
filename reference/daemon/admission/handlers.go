package admission

import (
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

const (
	codeStatusDeliveryFailed = proto.CodeStatusDeliveryFailed
	codeConnectionClosed     = proto.CodeConnectionClosed
)

// advance moves the record to state at the next revision: the only way a handler changes what
// Core observes.
func advance(rec Record, state State, code string) Record {
	rec.State, rec.ErrorCode = state, code
	rec.Revision++
	return rec
}

func publish(rec Record) Effect { return Publish{Status: rec.Status()} }

func reject(rec Record, operation, code string) Effect {
	return Reject{Status: rec.rejection(operation, code)}
}

// grant creates the record: preparing while native setup runs, or ready at once on a reused
// Executor. The deadline is fixed here, in whole milliseconds as the wire carries it.
func grant(_ Record, ev PrepareAccepted) (Record, []Effect, error) {
	if ev.Expiry <= 0 || ev.Expiry > proto.AdmissionExpiry {
		return Record{}, nil, fmt.Errorf("expiry %s is outside (0, %s]", ev.Expiry, proto.AdmissionExpiry)
	}
	if ev.Reused && ev.ReadOnly {
		return Record{}, nil, fmt.Errorf("a read-only preparation never reuses an Executor")
	}
	rec := Record{Handle: ev.Handle, ExecutorID: ev.ExecutorID, Reused: ev.Reused, ReadOnly: ev.ReadOnly,
		ExpiresAt: ev.Now.Add(ev.Expiry).Truncate(time.Millisecond), PrepareHash: ev.Hash}
	arm := ArmExpiry{At: rec.ExpiresAt}
	if ev.Reused {
		rec = advance(rec, Ready, "")
		return rec, []Effect{arm, HoldExecutor{}, publish(rec)}, nil
	}
	rec = advance(rec, Preparing, "")
	return rec, []Effect{arm, publish(rec), BeginSetup{}}, nil
}

// repeatPrepare: an identical execution_prepare re-publishes the current status and allocates
// nothing; a different one under the same request ID is a conflict.
func repeatPrepare(rec Record, ev PrepareRepeated) (Record, []Effect, error) {
	if ev.Hash != rec.PrepareHash {
		return rec, []Effect{Reject{Status: proto.PreparationStatusPayload{State: proto.StateRejected,
			Operation: proto.OperationPrepare, ErrorCode: proto.CodeRequestConflict}}}, nil
	}
	return rec, []Effect{publish(rec)}, nil
}

// forget: a retired request ID allocates a fresh handle; the old handle never starts it.
func forget(rec Record, _ Event) (Record, []Effect, error) { return rec, []Effect{Forget{}}, nil }

func becomeReady(rec Record, _ Event) (Record, []Effect, error) {
	rec = advance(rec, Ready, "")
	return rec, []Effect{HoldExecutor{}, publish(rec)}, nil
}

// failSetup publishes preparation_failed first; the Executor is closed after, and a failed close
// is reported at the next revision.
func failSetup(rec Record, _ Event) (Record, []Effect, error) {
	rec = advance(rec, Failed, proto.CodePreparationFailed)
	return rec, []Effect{StopExpiry{}, publish(rec), CloseExecutor{ReportFailure: true}}, nil
}

func reportCleanupUnconfirmed(rec Record, _ Event) (Record, []Effect, error) {
	if rec.ErrorCode != proto.CodePreparationFailed {
		return rec, nil, fmt.Errorf("only the cleanup after preparation_failed is reported, not after %s", rec.ErrorCode)
	}
	rec = advance(rec, Failed, proto.CodeExecutorCleanupUnconfirmed)
	return rec, []Effect{publish(rec)}, nil
}

// closeLateExecutor: native setup returned after the admission ended; nobody wants its Executor.
func closeLateExecutor(rec Record, _ Event) (Record, []Effect, error) {
	return rec, []Effect{CloseExecutor{}}, nil
}

// refuseStart applies the start rules that come before the state in §4.3's order.
func refuseStart(rec Record, ev StartRequested) (Effect, bool) {
	switch {
	case rec.ReadOnly:
		return reject(rec, proto.OperationStart, proto.CodeReadOnlyPreparation), true
	case rec.ExecutorID == "" || ev.ExecutorID != rec.ExecutorID:
		return reject(rec, proto.OperationStart, proto.CodeUnknownExecutor), true
	}
	return nil, false
}

func startNotReady(rec Record, ev StartRequested) (Record, []Effect, error) {
	if r, refused := refuseStart(rec, ev); refused {
		return rec, []Effect{r}, nil
	}
	return rec, []Effect{reject(rec, proto.OperationStart, proto.CodePreparationNotReady)}, nil
}

// startExpired answers a start on an admission whose deadline has passed with its expired status
// again (protocol-facts §4.3: "deadline passed → status expired"; AD-38): the start comes after the
// deadline whether or not the Runtime had already published expired, and it starts nothing.
func startExpired(rec Record, ev StartRequested) (Record, []Effect, error) {
	if r, refused := refuseStart(rec, ev); refused {
		return rec, []Effect{r}, nil
	}
	return rec, []Effect{publish(rec)}, nil
}

// startReady transfers the admission to the Run exactly once, unless its deadline passed before
// the timer was observed (then it expires now) or the Run ID is taken.
func startReady(rec Record, ev StartRequested) (Record, []Effect, error) {
	if r, refused := refuseStart(rec, ev); refused {
		return rec, []Effect{r}, nil
	}
	if !ev.Now.Before(rec.ExpiresAt) {
		rec = advance(rec, Expired, "")
		return rec, []Effect{StopExpiry{}, IdleExecutor{}, publish(rec)}, nil
	}
	if ev.RunActive {
		return rec, []Effect{reject(rec, proto.OperationStart, proto.CodeRunConflict)}, nil
	}
	rec.RunID, rec.StartHash = ev.RunID, ev.Hash
	rec = advance(rec, Starting, "")
	return rec, []Effect{StopExpiry{}, OpenRun{RunID: ev.RunID}, publish(rec), StartTurn{RunID: ev.RunID, Input: ev.Input}}, nil
}

// repeatStart: the admission already passed to a Run; the same start re-publishes, another one is
// a conflict. Neither submits input again.
func repeatStart(rec Record, ev StartRequested) (Record, []Effect, error) {
	if r, refused := refuseStart(rec, ev); refused {
		return rec, []Effect{r}, nil
	}
	if ev.Hash != rec.StartHash {
		return rec, []Effect{reject(rec, proto.OperationStart, proto.CodeStartConflict)}, nil
	}
	return rec, []Effect{publish(rec)}, nil
}

func confirmStart(rec Record, _ Event) (Record, []Effect, error) {
	rec = advance(rec, Started, "")
	return rec, []Effect{publish(rec)}, nil
}

// failStart: no Turn exists and no input was submitted. The record fails at the next revision, but
// what Core receives is the answer to its start: a rejection (Core may retry once after
// executor_unavailable).
func failStart(rec Record, ev NativeStartFailed) (Record, []Effect, error) {
	code := startFailureCode(ev)
	rec = advance(rec, Failed, code)
	return rec, []Effect{reject(rec, proto.OperationStart, code)}, nil
}

// abortStart: a Turn existed when cancellation aborted the start, so this is not an answer to the
// start (a rejection) but the admission's end: failed start_cancelled at the next revision, and
// started is never published. The Executor is closed.
func abortStart(rec Record, _ Event) (Record, []Effect, error) {
	rec = advance(rec, Failed, proto.CodeStartCancelled)
	return rec, []Effect{publish(rec), CloseExecutor{}}, nil
}

// answerFailedStart: the admission failed while native start ran (its connection closed or a
// status was lost); the start still gets its answer, and the record keeps its failure.
func answerFailedStart(rec Record, ev NativeStartFailed) (Record, []Effect, error) {
	return rec, []Effect{reject(rec, proto.OperationStart, startFailureCode(ev))}, nil
}

func startFailureCode(ev NativeStartFailed) string {
	switch {
	case ev.Cancelled:
		return proto.CodeStartCancelled
	case ev.CleanupFailed:
		return proto.CodeExecutorCleanupUnconfirmed
	}
	return proto.CodeExecutorUnavailable
}

func releasePreparing(rec Record, _ Event) (Record, []Effect, error) {
	rec = advance(rec, Released, "")
	return rec, []Effect{StopExpiry{}, CancelSetup{}, publish(rec)}, nil
}

// releaseReady abandons only this admission: the Session's healthy Executor goes idle, not closed.
func releaseReady(rec Record, _ Event) (Record, []Effect, error) {
	rec = advance(rec, Released, "")
	return rec, []Effect{StopExpiry{}, IdleExecutor{}, publish(rec)}, nil
}

// republish answers a release that has nothing left to abandon with the current status.
func republish(rec Record, _ Event) (Record, []Effect, error) {
	return rec, []Effect{publish(rec)}, nil
}

// expirePreparing and expireReady end the admission at its fixed deadline. A timer that fires
// early (a wall clock that stepped back) is armed again for the same instant.
func expirePreparing(rec Record, ev ExpiryFired) (Record, []Effect, error) {
	if ev.Now.Before(rec.ExpiresAt) {
		return rec, []Effect{ArmExpiry{At: rec.ExpiresAt}}, nil
	}
	rec = advance(rec, Expired, "")
	return rec, []Effect{StopExpiry{}, CancelSetup{}, publish(rec)}, nil
}

// expireReady: the healthy Executor goes idle; it is not closed.
func expireReady(rec Record, ev ExpiryFired) (Record, []Effect, error) {
	if ev.Now.Before(rec.ExpiresAt) {
		return rec, []Effect{ArmExpiry{At: rec.ExpiresAt}}, nil
	}
	rec = advance(rec, Expired, "")
	return rec, []Effect{StopExpiry{}, IdleExecutor{}, publish(rec)}, nil
}

// The abandon handlers fail an admission locally: nothing is published (its status could not be
// written, or the connection is going away), so Core may never see this revision.
func abandonPreparing(code string) handler {
	return func(rec Record, _ Event) (Record, []Effect, error) {
		return advance(rec, Failed, code), []Effect{StopExpiry{}, CancelSetup{}}, nil
	}
}

func abandonReady(code string, executor ...Effect) handler {
	return func(rec Record, _ Event) (Record, []Effect, error) {
		return advance(rec, Failed, code), append([]Effect{StopExpiry{}}, executor...), nil
	}
}

// abandonStarting: the Run already holds the Executor; its own settlement owns the cleanup.
func abandonStarting(code string) handler {
	return func(rec Record, _ Event) (Record, []Effect, error) {
		return advance(rec, Failed, code), nil, nil
	}
}

// ignore: the event no longer concerns the admission (a stale timer, a status lost after the
// admission passed to its Run, a shutdown the Run handles).
func ignore(rec Record, _ Event) (Record, []Effect, error) { return rec, nil, nil }
