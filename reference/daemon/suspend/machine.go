// Package suspend is the Runtime's suspension fencing (protocol-facts §4.16) as a pure machine:
// environment_quiesce and environment_resume in, environment_quiesced and environment_resumed out.
// The state is the daemon's, not a connection's: a suspension accepted on one connection is what
// a resume on a later connection must name (SU-07). The daemon computes what the machine cannot
// know (is the connection idle, which Environment is bound) and carries out its effects.
package suspend

import (
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// DrainBudget bounds a quiesce's drain: past it the answer is resource_busy (SU-05).
const DrainBudget = proto.QuiesceDrain

// Phase is where the daemon is in a suspension.
type Phase uint8

const (
	Running   Phase = iota // work is admitted
	Draining               // a quiesce was admitted; idle Executors close; work is refused
	Suspended              // quiesced: work is refused until a resume naming the pair (SU-06)
)

func (p Phase) String() string {
	return [...]string{"running", "draining", "suspended"}[p]
}

// Machine is the daemon's suspension state. The zero value is running.
type Machine struct {
	Phase                    Phase
	EnvironmentID, SuspendID string // the attempt being drained or in place
	Conn                     uint64 // the connection that drains or was parked
	pendingID                string // the quiesce a drain answers
}

// Request is one environment_quiesce or environment_resume.
type Request struct {
	Conn    uint64
	ID      string
	Payload *proto.EnvironmentSuspendPayload // nil: it failed to decode or validate
	Raw     proto.EnvironmentSuspendPayload  // the members as far as they decoded, for the echo
	Bound   string                           // the daemon's bound Environment ID; "" when unbound
	Serving bool                             // the daemon has an Environment at all
}

// Quiesce is an environment_quiesce; Idle: no Run, transfer, workspace operation, pending
// interaction, owned preparation or busy Executor on the connection (SU-05).
type Quiesce struct {
	Request
	Idle bool
}

// Resume is an environment_resume.
type Resume struct{ Request }

// Drained ends the drain the machine asked for: OK when every idle Executor closed within
// DrainBudget, false when the budget passed first or a close failed.
type Drained struct {
	Conn uint64
	OK   bool
}

// ConnEnded is the end of a connection. A drain on it ends unanswered: no suspension is in place,
// since Core never saw accepted:true (SU-10). A suspension in place outlives its parked connection.
type ConnEnded struct{ Conn uint64 }

// Event is what the machine is fed.
type Event interface{ event() }

func (Quiesce) event()   {}
func (Resume) event()    {}
func (Drained) event()   {}
func (ConnEnded) event() {}

// Effect is what the daemon must do.
type Effect interface{ String() string }

// Reply sends one environment_quiesced or environment_resumed.
type Reply struct {
	Type, ID string
	Result   proto.EnvironmentSuspendResultPayload
}

// Drain closes every idle Executor of the connection natively, bounded by DrainBudget; its end
// comes back as Drained.
type Drain struct{ Conn uint64 }

func (r Reply) String() string {
	s := fmt.Sprintf("%s %s env=%s suspend=%s accepted=%t", r.Type, r.ID, r.Result.EnvironmentID, r.Result.SuspendID, r.Result.Accepted)
	if r.Result.ErrorCode != "" {
		s += " code=" + r.Result.ErrorCode
	}
	return s
}

func (d Drain) String() string { return fmt.Sprintf("drain conn=%d", d.Conn) }

// Fenced reports whether work is refused: from the moment a quiesce is admitted until a resume
// (or a failed drain) lets it in again (SU-06).
func (m *Machine) Fenced() bool {
	return m.Phase != Running
}

// Apply feeds one event and returns the effects, in order.
func (m *Machine) Apply(ev Event) []Effect {
	switch ev := ev.(type) {
	case Quiesce:
		return m.quiesce(ev)
	case Resume:
		return m.resume(ev)
	case Drained:
		return m.drained(ev)
	case ConnEnded:
		if m.Phase == Draining && m.Conn == ev.Conn {
			m.clear()
		}
		if m.Phase == Suspended && m.Conn == ev.Conn && mutation.On(mutation.SUSuspensionEndsWithConnection) {
			m.clear() // the suspension taken for the connection's: it ends with it
		}
	}
	return nil
}

// echoable: a reply can carry the request's id and identities as a valid frame (SU-03). One that
// cannot (blank or oversized id, blank environment_id or suspend_id) gets no reply: an echo would
// break the reply's own wire rules, and anything else would answer for another request.
func echoable(r Request) bool {
	if len(r.ID) == proto.CorrelationIDMaxBytes && mutation.On(mutation.SURequestIDAtLimitUnanswered) {
		return false // the bound read as < 128
	}
	return r.ID != "" && len(r.ID) <= proto.CorrelationIDMaxBytes &&
		strings.TrimSpace(r.Raw.EnvironmentID) != "" && strings.TrimSpace(r.Raw.SuspendID) != ""
}

func reply(typ string, r Request, code string) []Effect {
	res := proto.EnvironmentSuspendResultPayload{EnvironmentID: r.Raw.EnvironmentID, SuspendID: r.Raw.SuspendID, Accepted: code == "", ErrorCode: code}
	return []Effect{Reply{Type: typ, ID: r.ID, Result: res}}
}

// wrongEnvironment: the request names another Environment than the bound one (or than the one a
// suspension in place names, on a daemon not yet bound), or the daemon has none.
func (m *Machine) wrongEnvironment(r Request) bool {
	if !r.Serving {
		return true
	}
	want := r.Bound
	if want == "" {
		want = m.EnvironmentID
	}
	return want != "" && r.Raw.EnvironmentID != want
}

func (m *Machine) quiesce(q Quiesce) []Effect {
	if !echoable(q.Request) {
		return nil
	}
	const typ = proto.TypeEnvironmentQuiesced
	rollback := q.Payload != nil && q.Payload.Rollback && !mutation.On(mutation.QuiesceRollbackAccepted)
	wrongEnv := m.wrongEnvironment(q.Request) && !mutation.On(mutation.QuiesceWrongEnvironmentAccepted)
	if q.Payload == nil || rollback || wrongEnv {
		refused := q.Request
		if wrongEnv && mutation.On(mutation.SURefusalNamesBoundEnvironment) {
			if refused.Raw.EnvironmentID = q.Bound; q.Bound == "" {
				refused.Raw.EnvironmentID = m.EnvironmentID
			}
		}
		if m.Phase == Running && mutation.On(mutation.SURefusedQuiesceFences) {
			// The fence is raised before the request is judged, and the refusal does not lower it.
			m.Phase, m.EnvironmentID, m.SuspendID, m.Conn = Suspended, q.Raw.EnvironmentID, q.Raw.SuspendID, q.Conn
		}
		return reply(typ, refused, proto.CodeInvalidRequest) // SU-04
	}
	switch m.Phase {
	case Suspended:
		// The same attempt asked again (its accepted:true was lost): it is in place, so the truth
		// is accepted:true. Another attempt finds the Environment held by this one.
		if (q.Payload.SuspendID == m.SuspendID || mutation.On(mutation.SUQuiesceOtherAttemptAccepted)) && q.Payload.EnvironmentID == m.EnvironmentID {
			return reply(typ, q.Request, "")
		}
		busy := q.Request
		if mutation.On(mutation.SUBusyReplyNamesHeldAttempt) {
			busy.Raw.SuspendID = m.SuspendID
		}
		return reply(typ, busy, proto.CodeResourceBusy)
	case Draining:
		return reply(typ, q.Request, proto.CodeResourceBusy)
	}
	if !q.Idle {
		return reply(typ, q.Request, proto.CodeResourceBusy) // SU-05
	}
	m.Phase, m.EnvironmentID, m.SuspendID, m.Conn, m.pendingID = Draining, q.Payload.EnvironmentID, q.Payload.SuspendID, q.Conn, q.ID
	if mutation.On(mutation.SUAcceptedBeforeDrain) {
		// Answered at admission: the drain runs after accepted:true and its end answers nothing.
		m.Phase, m.pendingID = Suspended, ""
		return append(reply(typ, q.Request, ""), Drain{Conn: q.Conn})
	}
	return []Effect{Drain{Conn: q.Conn}}
}

func (m *Machine) drained(d Drained) []Effect {
	if m.Phase != Draining || m.Conn != d.Conn {
		return nil
	}
	r := Request{ID: m.pendingID, Raw: proto.EnvironmentSuspendPayload{EnvironmentID: m.EnvironmentID, SuspendID: m.SuspendID}}
	if mutation.On(mutation.SUDrainedReplyBySuspendID) {
		r.ID = m.SuspendID
	}
	if !d.OK && !mutation.On(mutation.QuiesceDrainOverrun) {
		if mutation.On(mutation.SUBusyDrainStaysFenced) {
			m.Phase, m.pendingID = Suspended, "" // refused, yet the fence stays up
			return reply(proto.TypeEnvironmentQuiesced, r, proto.CodeResourceBusy)
		}
		m.clear()
		return reply(proto.TypeEnvironmentQuiesced, r, proto.CodeResourceBusy) // SU-05
	}
	m.Phase, m.pendingID = Suspended, ""
	return reply(proto.TypeEnvironmentQuiesced, r, "")
}

func (m *Machine) resume(r Resume) []Effect {
	if !echoable(r.Request) {
		return nil
	}
	const typ = proto.TypeEnvironmentResumed
	if r.Payload == nil {
		return reply(typ, r.Request, proto.CodeInvalidRequest)
	}
	names := m.Phase == Suspended && r.Payload.EnvironmentID == m.EnvironmentID && r.Payload.SuspendID == m.SuspendID
	if r.Payload.Rollback && !mutation.On(mutation.RollbackResumeRefused) {
		// The suspension attempt was abandoned and this source still runs: accepted, and nothing
		// changes, except that a source parked under this very attempt admits work again (SU-08).
		running := m.Phase == Running
		if names {
			m.clear()
		}
		if running && mutation.On(mutation.SURollbackResumeDrains) {
			// The rollback taken as undoing a quiesce: the idle Executors are closed.
			return append(reply(typ, r.Request, ""), Drain{Conn: r.Conn})
		}
		return reply(typ, r.Request, "")
	}
	newConn := r.Conn != m.Conn || mutation.On(mutation.ResumeOnParkedConnection)
	if names && newConn {
		if mutation.On(mutation.SUResumeKeepsFence) {
			return reply(typ, r.Request, "") // answered, but the fence is never lowered
		}
		m.clear()
		return reply(typ, r.Request, "") // SU-07: the host woke it; work is admitted again
	}
	if m.Phase == Suspended && newConn {
		// Half of the pair compared: ResumeAnyPair checks only the Environment, the other only
		// the suspend_id.
		if r.Payload.EnvironmentID == m.EnvironmentID && mutation.On(mutation.ResumeAnyPair) ||
			r.Payload.SuspendID == m.SuspendID && mutation.On(mutation.SUResumeOtherEnvironment) {
			m.clear()
			return reply(typ, r.Request, "")
		}
	}
	if m.Phase == Running && mutation.On(mutation.SUResumeRunningAccepted) {
		return reply(typ, r.Request, "") // resuming a running source taken as a no-op
	}
	return reply(typ, r.Request, proto.CodeNotSuspended)
}

func (m *Machine) clear() { *m = Machine{} }

// String is the machine's state for tests.
func (m *Machine) String() string {
	if m.Phase == Running {
		return "running"
	}
	return fmt.Sprintf("%s env=%s suspend=%s conn=%d", m.Phase, m.EnvironmentID, m.SuspendID, m.Conn)
}
