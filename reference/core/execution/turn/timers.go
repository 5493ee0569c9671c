package turn

import "strings"

// Timer names one of the Turn's timers.
type Timer uint8

// Timers a Turn arms.
const (
	// TimerRetry claims a Turn left unclaimed again (device offline, preparation_capacity).
	TimerRetry Timer = iota
	// TimerCancelConfirmation bounds the wait for a cancellation: 15 s for the receipt after
	// prompt_cancel, or for a status naming the handle to release before start.
	TimerCancelConfirmation
	// TimerInputWritten bounds the wait for an input's written (or accepted) receipt: 30 s from
	// its first delivery; resends after not_ready/busy do not extend it.
	TimerInputWritten
	// TimerInputResend resends an input the Runtime answered not_ready or busy before written.
	TimerInputResend
	// TimerDecisionAck bounds the wait for a decision's interaction_decision_ack: 15 s.
	TimerDecisionAck
	timerCount
)

// TimerCount is the number of distinct timers.
const TimerCount = int(timerCount)

var timerNames = [...]string{TimerRetry: "retry", TimerCancelConfirmation: "cancel-confirmation",
	TimerInputWritten: "input-written", TimerInputResend: "input-resend", TimerDecisionAck: "decision-ack"}

func (t Timer) String() string {
	if int(t) < len(timerNames) {
		return timerNames[t]
	}
	return "timer?"
}

// TimerNamed returns the timer of a name.
func TimerNamed(name string) (Timer, bool) {
	for i, n := range timerNames {
		if n == name {
			return Timer(i), true
		}
	}
	return 0, false
}

// Timers is a set of armed timers.
type Timers uint8

// Has reports whether t is armed.
func (ts Timers) Has(t Timer) bool { return ts&(1<<t) != 0 }

// With returns the set with t armed.
func (ts Timers) With(t Timer) Timers { return ts | 1<<t }

// Without returns the set with t no longer armed.
func (ts Timers) Without(t Timer) Timers { return ts &^ (1 << t) }

func (ts Timers) String() string {
	var names []string
	for t := Timer(0); t < timerCount; t++ {
		if ts.Has(t) {
			names = append(names, t.String())
		}
	}
	return strings.Join(names, ",")
}
