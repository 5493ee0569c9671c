package turn

import (
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Effect is one thing the executor must do, in the order Step returned it.
type Effect interface {
	String() string
	effect()
}

// CheckDevice is the final admission check before a claim: look up the device's live connection
// and its capability snapshot, draw a preparation request ID, and step DeviceChecked.
type CheckDevice struct{}

// NewPrepareID draws a fresh preparation request ID and steps PrepareIDIssued.
type NewPrepareID struct{}

// Subscribe opens a subscription on the claimed connection: preparation status for a request ID,
// the Run's events, or the receipt of a delivery ID. It exists before the frame it observes is
// sent.
type Subscribe struct {
	Stream Stream
	ID     string
}

// Close ends a subscription the Turn no longer reads.
type Close struct{ Stream Stream }

// Commit writes the Turn's durable record. When the phase changes (From ≠ Record.Phase) the
// transition is journalled and observers are told, before anything that depends on it.
type Commit struct {
	From   string
	Record Record
}

// Moves reports whether the commit changes the phase.
func (c Commit) Moves() bool { return c.From != c.Record.Phase }

// Transition is the journal event of a phase move.
func (c Commit) Transition() store.Event {
	return store.Event{Kind: store.EventTransition, Type: c.From + "→" + c.Record.Phase}
}

// Journal appends an event to the Turn's journal.
type Journal struct{ Event store.Event }

// Send queues a frame within Core's send timeout and journals it (or that it failed). A
// best-effort send's failure changes nothing; a reported send's failure does not undo the step
// (its commits stand) but is its answer: SendFailed is stepped next, from the adopted state; any
// other send's failure fails the step (SendFailed, from the state before it).
type Send struct {
	Envelope   proto.Envelope
	BestEffort bool
	Reported   bool
}

// Disarm stops a timer the Turn no longer needs.
type Disarm struct{ Timer Timer }

// Arm starts a timer; when it fires the executor steps TimerFired.
type Arm struct {
	Timer Timer
	After time.Duration
}

// Finish records the outcome, once, with the move to done; the Turn then owns nothing. Record,
// when not nil, is written with it (the inputs whose outcome the end made unknown).
type Finish struct {
	From    string
	Outcome *store.Outcome
	Record  *Record
}

// Transition is the journal event recorded with the outcome.
func (f Finish) Transition() store.Event {
	return store.Event{Kind: store.EventTransition, Type: f.From + "→" + store.PhaseDone,
		Note: strings.TrimSpace(f.Outcome.Status + " " + f.Outcome.Reason)}
}

func (CheckDevice) effect()  {}
func (NewPrepareID) effect() {}
func (Subscribe) effect()    {}
func (Close) effect()        {}
func (Commit) effect()       {}
func (Journal) effect()      {}
func (Send) effect()         {}
func (Arm) effect()          {}
func (Disarm) effect()       {}
func (Finish) effect()       {}
