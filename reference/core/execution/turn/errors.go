package turn

import "fmt"

// InvalidTransition is an event the Turn's phase does not accept: the table has no entry for
// it, or the entry's guard refused it (Why says which). The state is unchanged.
type InvalidTransition struct {
	Phase string
	Event Kind
	Why   string
}

func (e *InvalidTransition) Error() string {
	msg := fmt.Sprintf("invalid Turn transition: %s in phase %s", e.Event, e.Phase)
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}

// InvalidMove is a phase move outside the phase graph. Step returns it when a handler would
// commit one: a bug in the machine, never in its input.
type InvalidMove struct{ From, To string }

func (e *InvalidMove) Error() string {
	return fmt.Sprintf("invalid Turn move %s → %s", e.From, e.To)
}
