package turn

import (
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// handler carries out one accepted event on a copy of the state.
type handler func(s *State, ev Event) ([]Effect, error)

// table is the Turn state machine: for every phase, the events it accepts and what they do.
// Anything else is an *InvalidTransition. Ready is committed and left within one step (start),
// so between steps only a restart can find a Turn there. Done accepts nothing.
var table = map[string]map[Kind]handler{
	store.PhaseQueued: {
		KindClaim:                      askDevice,
		KindRetryTimer:                 askDevice,
		KindDeviceChecked:              claim,
		KindCancel:                     cancelQueued,
		KindCancelTimer:                cancelledUnreleased,
		KindPreparationSubscribeFailed: preparationUnsubscribed,
		KindPrepareSendFailed:          prepareUndelivered,
		KindPersistFailed:              persistenceFailed,
		KindRestart:                    interrupted,
	},
	store.PhasePreparing: {
		KindPreparing:          preparing,
		KindReady:              ready,
		KindStarting:           ignore,
		KindStarted:            ignore, // started for a start Core never sent: nothing to do
		KindFailed:             preparationEnded,
		KindExpired:            preparationEnded,
		KindReleased:           preparationEnded,
		KindPrepareRejected:    prepareRejected,
		KindStartRejected:      ignore,
		KindReleaseRejected:    ignore,
		KindPreparationClosed:  preparationInterrupted,
		KindCancel:             cancelBeforeStart,
		KindCancelTimer:        cancelledUnreleased,
		KindRunSubscribeFailed: runUnsubscribed,
		KindStartSendFailed:    startUndelivered,
		KindPersistFailed:      persistenceFailed,
		KindRestart:            interrupted,
	},
	store.PhaseReady: {
		KindRestart: interrupted,
	},
	store.PhaseStarting: {
		KindPreparing:                  preparing,
		KindReady:                      readyIgnored,
		KindStarting:                   ignore,
		KindStarted:                    started,
		KindFailed:                     preparationEnded,
		KindExpired:                    preparationEnded,
		KindReleased:                   preparationEnded,
		KindPrepareRejected:            ignore,
		KindStartRejected:              startRejected,
		KindReleaseRejected:            ignore,
		KindPreparationClosed:          preparationClosedAfterStart,
		KindPrepareID:                  prepareAgain,
		KindPreparationSubscribeFailed: recoveryUnsubscribed,
		KindPrepareSendFailed:          recoveryUndelivered,
		KindDelta:                      delta,
		KindOutputMessage:              outputMessage,
		KindUsage:                      usage,
		KindError:                      engineError,
		KindDone:                       done,
		KindInteraction:                interactionArrived,
		KindPermissionCancel:           permissionCancelled,
		KindUndecodable:                undecodable,
		KindOtherFrame:                 ignore,
		KindSubagent:                   subagentFrame,
		KindRunClosed:                  runClosed,
		KindCancel:                     cancelRun,
		KindReceiptSubscribeFailed:     receiptUnawaited,
		KindCancelSendFailed:           cancelUndelivered,
		KindPersistFailed:              persistenceFailed,
		KindRestart:                    interrupted,
		KindInput:                      inputRequested, // held until started
		KindSteerAck:                   steerAck,
		// A request arrives on the Run, so the Run exists: its answer need not wait for started.
		KindAnswer:                answered,
		KindDecisionAck:           decisionAck,
		KindDecisionWaitClosed:    decisionWaitClosed,
		KindDecisionAckTimer:      decisionTimedOut,
		KindPermissionSendFailed:  decisionUndelivered,
		KindUserChoiceSendFailed:  decisionUndelivered,
		KindFunctionSendFailed:    decisionUndelivered,
		KindDecisionSubscribeFail: decisionUnsubscribed,
	},
	store.PhaseRunning: {
		KindPreparationClosed:      preparationClosedAfterStart,
		KindDelta:                  delta,
		KindOutputMessage:          outputMessage,
		KindUsage:                  usage,
		KindError:                  engineError,
		KindDone:                   done,
		KindUndecodable:            undecodable,
		KindOtherFrame:             ignore,
		KindSubagent:               subagentFrame,
		KindRunClosed:              runClosed,
		KindCancel:                 cancelRun,
		KindReceiptSubscribeFailed: receiptUnawaited,
		KindCancelSendFailed:       cancelUndelivered,
		KindPersistFailed:          persistenceFailed,
		KindRestart:                interrupted,
		KindInput:                  inputRequested,
		KindSteerAck:               steerAck,
		KindInputWrittenTimer:      writtenTimedOut,
		KindInputResendTimer:       resendDue,
		KindSteerSendFailed:        steerUndelivered,
		KindInteraction:            interactionArrived,
		KindPermissionCancel:       permissionCancelled,
		KindAnswer:                 answered,
		KindDecisionAck:            decisionAck,
		KindDecisionWaitClosed:     decisionWaitClosed,
		KindDecisionAckTimer:       decisionTimedOut,
		KindPermissionSendFailed:   decisionUndelivered,
		KindUserChoiceSendFailed:   decisionUndelivered,
		KindFunctionSendFailed:     decisionUndelivered,
		KindDecisionSubscribeFail:  decisionUnsubscribed,
	},
	// A cancellation sent before started leaves the preparation subscription open: its statuses
	// still arrive, and the receipt owns the outcome.
	store.PhaseCancelling: {
		KindPreparing:         preparing,
		KindReady:             readyIgnored,
		KindStarting:          ignore,
		KindStarted:           ignore,
		KindFailed:            ignore,
		KindExpired:           ignore,
		KindReleased:          ignore,
		KindPrepareRejected:   ignore,
		KindStartRejected:     ignore,
		KindReleaseRejected:   ignore,
		KindPreparationClosed: preparationClosedAfterStart,
		KindDelta:             delta,
		KindOutputMessage:     outputMessage,
		KindUsage:             usage,
		KindError:             engineError,
		KindDone:              doneWhileCancelling,
		KindInteraction:       interactionArrived,
		KindPermissionCancel:  permissionCancelled,
		KindUndecodable:       undecodable,
		KindOtherFrame:        ignore,
		KindSubagent:          subagentFrame,
		KindRunClosed:         runClosedWhileCancelling,
		KindCancel:            ignore, // already requested
		KindReceipt:           receipt,
		KindReceiptWaitClosed: receiptWaitClosed,
		KindCancelTimer:       cancelTimedOut,
		KindPersistFailed:     persistenceFailed,
		KindRestart:           interrupted,
		// Receipts still update the inputs; none of them decides the outcome any more.
		KindSteerAck:          steerAck,
		KindInputWrittenTimer: writtenTimedOut,
		KindInputResendTimer:  resendDue,
		// A decision already sent is still settled by its ack; no new answer is taken.
		KindDecisionAck:          decisionAck,
		KindDecisionWaitClosed:   decisionWaitClosed,
		KindDecisionAckTimer:     decisionTimedOut,
		KindPermissionSendFailed: decisionUndelivered,
		KindUserChoiceSendFailed: decisionUndelivered,
		KindFunctionSendFailed:   decisionUndelivered,
	},
	store.PhaseDone: {},
}

// Step applies one event to a Turn. It returns the next state and the effects that realise it,
// or an error and the state unchanged.
func Step(s State, ev Event) (State, []Effect, error) {
	h, ok := table[s.Phase][ev.Kind()]
	if !ok {
		return s, nil, &InvalidTransition{Phase: s.Phase, Event: ev.Kind()}
	}
	next := s
	if why := next.admit(ev); why != "" {
		return s, nil, &InvalidTransition{Phase: s.Phase, Event: ev.Kind(), Why: why}
	}
	effects, err := h(&next, ev)
	if err != nil {
		return s, nil, err
	}
	if err := checkMoves(effects); err != nil {
		return s, nil, err
	}
	return next, effects, nil
}

// Accepts reports whether a phase accepts an event kind at all (guards aside).
func Accepts(phase string, k Kind) bool {
	_, ok := table[phase][k]
	return ok
}

// admit applies the rules every entry shares: an outstanding query takes only its answer (or the
// failure of the step its answer led to, which the executor steps from the state before it), an
// answer needs its query, and a timer fires only while armed (then it is no longer armed).
func (s *State) admit(ev Event) string {
	answer := AskedNothing
	switch ev.(type) {
	case DeviceChecked:
		answer = AskedDevice
	case PrepareIDIssued:
		answer = AskedPrepareID
	case SendFailed, SubscribeFailed, PersistFailed:
		answer = s.Asked
	}
	switch {
	case s.Asked != AskedNothing && answer != s.Asked:
		return "waiting for the answer to " + string(s.Asked)
	case answer != AskedNothing && s.Asked == AskedNothing:
		return "nothing was asked"
	}
	s.Asked = AskedNothing
	if t, ok := ev.(TimerFired); ok {
		if !s.Timers.Has(t.Timer) {
			return "the " + t.Timer.String() + " timer is not armed"
		}
		s.Timers = s.Timers.Without(t.Timer)
	}
	return ""
}

func checkMoves(effects []Effect) error {
	for _, e := range effects {
		switch e := e.(type) {
		case Commit:
			if e.Moves() {
				if err := CheckMove(e.From, e.Record.Phase); err != nil {
					return err
				}
			}
		case Finish:
			if err := CheckMove(e.From, store.PhaseDone); err != nil {
				return err
			}
		}
	}
	return nil
}

// ignore accepts an event that changes nothing in this phase.
func ignore(*State, Event) ([]Effect, error) { return nil, nil }

// TableKinds lists every kind some phase accepts.
func TableKinds() []Kind {
	seen := map[Kind]bool{}
	var out []Kind
	for _, phase := range Phases {
		for k := range table[phase] {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}
