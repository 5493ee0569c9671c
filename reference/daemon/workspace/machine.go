package workspace

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// TraceMaxChars bounds the trace a reply echoes: a longer one is dropped (WS-15).
const TraceMaxChars = 256

// Target is what the daemon knows of a read or export target on this connection.
type Target struct {
	// Owner names the target for read_unconfirmed ("handle:h1", "run:r1"); "" when it is unknown.
	Owner string
	// Open: a ready, unexpired preparation handle, or an open Run.
	Open bool
	// ReadOnly: the handle is a read-only preparation (a Run target is never read-only).
	ReadOnly bool
	// EnvironmentID is the target's frozen Environment ("" for one without a local_environment).
	EnvironmentID string
	// Closed says why a known handle is not Open: ClosedNotReady or ClosedExpired ("" otherwise).
	Closed string
}

// Why a known handle is not Open.
const (
	ClosedNotReady = "not-ready" // preparing, released, failed or closed
	ClosedExpired  = "expired"   // its admission expired
)

// Host answers what the Machine cannot know itself: the admission side of the connection.
type Host interface {
	// Target resolves exactly one of handle and runID.
	Target(handle, runID string) Target
	// WriteBlocked reports why a write may not begin ("" when it may): a runtime_prepare transfer,
	// a Run, an idle or busy Executor, an owned preparation, or an Environment binding other than
	// environmentID/sessionID (WS-20).
	WriteBlocked(environmentID, sessionID string) string
}

// Effect is what the daemon must do, in order.
type Effect interface{ String() string }

// Reply sends one result frame. Payload is a *proto.Workspace{Read,Write,Export}ResultPayload.
type Reply struct {
	Type, ID, Trace string
	Payload         any
}

// StartRead runs NativeRead for the read ID in its own goroutine, bounded by ReadBudget; its end
// comes back as ReadEnded.
type StartRead struct {
	ID      string
	Request proto.WorkspaceReadPayload
}

func (r Reply) String() string {
	switch p := r.Payload.(type) {
	case *proto.WorkspaceReadResultPayload:
		return "read-result " + r.ID + " " + readResultString(p)
	case *proto.WorkspaceWriteResultPayload:
		s := "write-result " + r.ID + " " + p.Outcome
		for _, f := range []struct {
			k  string
			v  any
			on bool
		}{{"offset", p.Offset, p.Offset != 0}, {"size", p.SizeBytes, p.Outcome == proto.OutcomeCompleted},
			{"code", p.ErrorCode, p.ErrorCode != ""}, {"reason", p.Reason, p.Reason != ""}} {
			if f.on {
				s += fmt.Sprintf(" %s=%v", f.k, f.v)
			}
		}
		return s
	case *proto.WorkspaceExportResultPayload:
		s := fmt.Sprintf("export-result %s %s offset=%d", r.ID, p.Outcome, p.Offset)
		if len(p.Data) > 0 {
			s += fmt.Sprintf(" bytes=%d", len(p.Data))
		}
		if p.ErrorCode != "" {
			s += " code=" + p.ErrorCode
		}
		return s
	}
	return fmt.Sprintf("reply %s %s %T", r.Type, r.ID, r.Payload)
}

func (s StartRead) String() string {
	if s.Request.Operation == proto.ReadDirectory {
		return fmt.Sprintf("start-read %s list %q max_entries=%d", s.ID, s.Request.Path, s.Request.MaxEntries)
	}
	return fmt.Sprintf("start-read %s bytes %q max_bytes=%d", s.ID, s.Request.Path, s.Request.MaxBytes)
}

// Machine is one connection's workspace operations. FS nil: the Runtime serves none of them
// (read_unsupported, write_unsupported). The zero value with FS set is ready.
type Machine struct {
	FS FS
	// NoExport: the Runtime declares no workspace_output_export; every export is read_unsupported.
	NoExport bool

	reads   map[string]pendingRead // by read ID
	stopped map[string]bool        // owners that answered read_unconfirmed (WS-13)
	write   *write
	export  *export

	lastRun   Target // the target of the last read admitted on a Run, and its Run ID
	lastRunID string
	lastWrite string // the ID of the connection's last write begun
	done      struct {
		id   string
		size int64
	} // the connection's last write that completed
	lastExport string // the ID of the connection's last export begun

	// Only mutants set these (mutants.go): every owner stopped, the Environment or the write slot
	// kept by a write that ended.
	stoppedAll bool
	envHeld    bool
	slotHeld   bool
}

// Busy reports whether a write or an export holds the Environment: execution, runtime_prepare and
// read-only preparations are refused with resource_unavailable meanwhile (§4.3, WS-24).
func (m *Machine) Busy() bool { return m.write != nil || m.export != nil || m.envHeld }

// WriteReceiving reports whether a write receives its body (begun, not committed).
func (m *Machine) WriteReceiving() bool { return m.write != nil && !m.write.owned }

// WriteUnconfirmed reports whether a write whose installer outcome is unknown owns the Environment.
func (m *Machine) WriteUnconfirmed() bool { return m.write != nil && m.write.owned }

// Writing and Exporting tell the two halves of Busy apart.
func (m *Machine) Writing() bool   { return m.write != nil }
func (m *Machine) Exporting() bool { return m.export != nil }

// ReadsInFlight is the number of admitted reads whose native work has not ended.
func (m *Machine) ReadsInFlight() int { return len(m.reads) }

// Handle decides one workspace_read, workspace_write or workspace_export frame that arrived at now.
func (m *Machine) Handle(env proto.Envelope, now time.Time, host Host) []Effect {
	m.expire(now)
	switch env.Type {
	case proto.TypeWorkspaceRead:
		return m.read(env, host)
	case proto.TypeWorkspaceWrite:
		return m.writeFrame(env, now, host)
	case proto.TypeWorkspaceExport:
		return m.exportFrame(env, now, host)
	}
	return nil
}

// NextDeadline is the earliest instant Expire has work at: a write body's or an export's bound.
func (m *Machine) NextDeadline() (time.Time, bool) {
	var at time.Time
	if w := m.write; w != nil && !w.owned {
		at = w.deadline
	}
	if x := m.export; x != nil && (at.IsZero() || x.deadline.Before(at)) {
		at = x.deadline
	}
	return at, !at.IsZero()
}

// Expire ends a write body and an export whose bound passed by now; it sends nothing (a later frame
// for them names an unknown operation). The daemon calls it when their timers fire.
func (m *Machine) Expire(now time.Time) { m.expire(now) }

func (m *Machine) expire(now time.Time) {
	if w := m.write; w != nil && !w.owned && !now.Before(w.deadline) && !mutation.On(mutation.WriteBodyUnbounded) {
		m.write = nil
	}
	if x := m.export; x != nil && !now.Before(x.deadline) {
		x.close()
		m.export = nil
	}
}

// Close releases what the connection held (an open export stream).
func (m *Machine) Close() {
	if w := m.write; w != nil && !w.owned && w.body.Len() > 0 && mutation.On(mutation.WSWritePartialInstalledOnClose) {
		_ = m.FS.WriteFile(w.path, w.body.Bytes()) // flushed on close: the body never committed
	}
	if m.export != nil {
		m.export.close()
		m.export = nil
	}
}

// echo is the trace a reply carries: the request's, unless it is too long (WS-15).
func echo(trace string) string {
	if len(trace) > TraceMaxChars && !mutation.On(mutation.TraceEchoUnbounded) {
		return ""
	}
	if len(trace) == TraceMaxChars && mutation.On(mutation.WSTraceAtLimitDropped) {
		return ""
	}
	return trace
}

// String renders the machine for tests.
func (m *Machine) String() string {
	var parts []string
	if len(m.reads) > 0 {
		ids := make([]string, 0, len(m.reads))
		for id := range m.reads {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		parts = append(parts, "reads="+strings.Join(ids, ","))
	}
	if len(m.stopped) > 0 {
		owners := make([]string, 0, len(m.stopped))
		for o := range m.stopped {
			owners = append(owners, o)
		}
		slices.Sort(owners)
		parts = append(parts, "stopped="+strings.Join(owners, ","))
	}
	if w := m.write; w != nil {
		parts = append(parts, w.String())
	}
	if x := m.export; x != nil {
		parts = append(parts, fmt.Sprintf("export=%s delivered=%d", x.id, x.delivered))
	}
	if len(parts) == 0 {
		return "idle"
	}
	return strings.Join(parts, " ")
}
