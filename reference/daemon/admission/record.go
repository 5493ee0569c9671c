package admission

import (
	"fmt"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// State is where an admission is. The values are the wire's preparation states; rejected is not
// one of them, because a rejection answers one operation and never changes the record.
type State string

const (
	None      State = "" // no record yet: only a granted execution_prepare creates one
	Preparing State = proto.StatePreparing
	Ready     State = proto.StateReady
	Starting  State = proto.StateStarting
	Started   State = proto.StateStarted
	Released  State = proto.StateReleased
	Expired   State = proto.StateExpired
	Failed    State = proto.StateFailed
)

// states lists every state, None first.
var states = []State{None, Preparing, Ready, Starting, Started, Released, Expired, Failed}

func (s State) String() string {
	if s == None {
		return "none"
	}
	return string(s)
}

// Terminal reports whether an admission in s never leaves s: it passed to a Run (started) or it
// ended (released, expired, failed).
func (s State) Terminal() bool { return proto.TerminalPreparationState(string(s)) }

// Record is what the Runtime knows of one admission handle: every member its preparation_status
// shows, plus the request fingerprints that tell an identical duplicate from a conflicting one.
type Record struct {
	State      State
	Revision   uint64 // 1 at grant, +1 per observable change; a rejection never moves it
	Handle     string
	ExecutorID string    // the owning Executor; empty for a read-only preparation
	Reused     bool      // ready reused a settled Executor without native setup
	ReadOnly   bool      // the read-only workspace profile: it can never start a Turn
	ExpiresAt  time.Time // fixed at grant; retries never extend it
	RunID      string    // the Run that took the admission, from starting on
	ErrorCode  string    // why it failed

	PrepareHash string // of the canonical execution_prepare payload
	StartHash   string // of the canonical execution_start payload that was accepted
}

// Owned reports whether the admission still holds its reservation: it is never pruned while owned.
func (r Record) Owned() bool { return r.State == Preparing || r.State == Ready || r.State == Starting }

// Retired reports whether the admission ended, so its request ID may allocate a fresh handle.
func (r Record) Retired() bool { return r.State == Released || r.State == Expired || r.State == Failed }

// Status is the record's preparation_status payload: exactly the members Core observes.
func (r Record) Status() proto.PreparationStatusPayload {
	return proto.PreparationStatusPayload{
		ExecutorID: r.ExecutorID,
		Reused:     r.Reused && r.State == Ready,
		Handle:     r.Handle,
		Revision:   r.Revision,
		State:      string(r.State),
		ExpiresAt:  r.ExpiresAt.UnixMilli(),
		RunID:      r.RunID,
		ErrorCode:  r.ErrorCode,
	}
}

// rejection answers one control operation on this handle; it carries revision 0 and leaves the
// record as it was.
func (r Record) rejection(operation, code string) proto.PreparationStatusPayload {
	return proto.PreparationStatusPayload{ExecutorID: r.ExecutorID, Handle: r.Handle, State: proto.StateRejected,
		Operation: operation, ErrorCode: code}
}

// observable is the status without its revision: what a change of the record must advance the
// revision for.
func (r Record) observable() proto.PreparationStatusPayload {
	s := r.Status()
	s.Revision = 0
	return s
}

// String is one readable line, stable for tests and logs.
func (r Record) String() string {
	if r.State == None {
		return "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s rev=%d handle=%s", r.State, r.Revision, r.Handle)
	if r.ExecutorID != "" {
		fmt.Fprintf(&b, " executor=%s", r.ExecutorID)
	}
	fmt.Fprintf(&b, " expires=%s", r.ExpiresAt.UTC().Format("2006-01-02T15:04:05.000Z"))
	for _, f := range []struct{ name, value string }{{"run", r.RunID}, {"error", r.ErrorCode},
		{"prepare", r.PrepareHash}, {"start", r.StartHash}} {
		if f.value != "" {
			fmt.Fprintf(&b, " %s=%s", f.name, f.value)
		}
	}
	if r.Reused {
		b.WriteString(" reused")
	}
	if r.ReadOnly {
		b.WriteString(" read-only")
	}
	return b.String()
}
