// Package workspace is the pure machine of one workspace operation of the reference Core: a read
// (bytes or a directory listing), a write (begin, 64 KiB chunks, commit, SHA-256 checked by the
// Runtime) or an export (a tar stream pulled with next), against a running Turn's Run or an idle
// read-only preparation Core makes and releases itself (protocol-facts §4.3, §4.13–§4.15).
//
// Step decides; package execution carries out the effects (the connection, the waiters, the
// timers, the journal and the store). Every receipt is validated with proto's validators and
// against what Core expects (the offset it sent, the size it declared, the outcome the step
// allows): anything else is not a rejection but an unknown outcome. A transport error, a
// disconnect or a timeout is never a rejection either: a write's caller sees unknown
// (write_unconfirmed) and keeps the unknown-outcome gate, a read's sees read_unconfirmed, and
// nothing is ever sent again for the operation (no retry, no replay after a reconnect).
package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// Kinds of operation.
const (
	Read   = "read"
	Write  = "write"
	Export = "export"
)

// States of an operation as the API shows it.
const (
	StatePending   = "pending"   // in flight
	StateCompleted = "completed" // the Runtime confirmed it (a write's completed, a read's result, an export's completed)
	StateRejected  = "rejected"  // a definite rejection: nothing was applied
	StateFailed    = "failed"    // an export or a preparation that ended without its result (read-only: nothing changed)
	StateUnknown   = "unknown"   // the outcome cannot be known: never retried, never replayed
)

// Core's own codes for what the Runtime did not say.
const (
	CodeInvalidResult       = "invalid_result"      // an export receipt Core could not accept (it cancelled)
	CodeExportInterrupted   = "export_interrupted"  // the connection went before completed
	CodeExportTimeout       = "export_timeout"      // no completed within 180 s (Core cancelled)
	CodePreparationFailed   = "preparation_failed"  // the read-only preparation never became ready
	CodePreparationTimedOut = "preparation_timeout" // no ready within the admission bound
)

// Bounds Core applies (protocol-facts §5). A read has no Core bound in the spec; Core waits for
// the Runtime's native budget and its receipt send, then calls the read unconfirmed.
const (
	WriteBound       = proto.TransferExchangeDeadline // 195 s, the whole write
	ExportBound      = proto.ExportDeadline           // 180 s, the whole export
	ReadBound        = proto.ReadNativeBudget + proto.ReceiptSendBudget
	PreparationBound = proto.AdmissionExpiry
	// ReleaseBound is how long Core waits for released after its execution_release. The spec
	// gives no number; the release is a local close on the Runtime, a confirmation like a
	// cancellation's, so Core gives it the bound it gives those (15 s). Past it the cleanup is
	// unconfirmed: the operation's result stands, the preparation is not known to be closed.
	ReleaseBound = proto.CancellationConfirmationTimeout
	// PublicWriteBytes is the API's inline bound, checked before any Runtime work.
	PublicWriteBytes = 5 << 20
)

// Spec is what an operation was asked to do; it never changes.
type Spec struct {
	Kind string
	// ID is the operation's wire ID: the read or export ID, the write's mutation ID (a UUID).
	ID string
	// RunID targets a running Turn's Run (reads only). Empty: a read-only preparation, asked for
	// with PrepareID and Prepare, and released once the operation ends.
	RunID     string
	PrepareID string
	Prepare   *proto.ExecutionPreparePayload
	// EnvironmentID and SessionID are the frozen binding of the Turn's Session.
	EnvironmentID string
	SessionID     string
	// Read: the request as the caller asked it (the target is filled in when it is sent).
	Read proto.WorkspaceReadPayload
	// Write: the destination and the complete body.
	Path    string
	Content []byte
}

// Sha256 is the lowercase hex digest of a write's body.
func (s *Spec) Sha256() string {
	sum := sha256.Sum256(s.Content)
	return hex.EncodeToString(sum[:])
}

// Phase is where an operation stands.
type Phase string

const (
	PhaseNew       Phase = "new"
	PhasePreparing Phase = "preparing" // execution_prepare (read-only) sent, awaiting ready
	PhaseRunning   Phase = "running"   // the operation's requests are going out
	PhaseReleasing Phase = "releasing" // the outcome is decided; execution_release sent, awaiting released
	PhaseDone      Phase = "done"
)

// Outcome is an operation's result as the API shows it.
type Outcome struct {
	State     string
	ErrorCode string
	Reason    string // a write_rejected reason the Runtime gave (listed ones only)
	Detail    string
	// Cleanup is cleanup_unconfirmed when the read-only preparation was to be released and
	// released never came (PJ-14); empty when it came or there was nothing to release.
	Cleanup string
}

// State is one operation's progress. It is a value: Step returns a new one.
type State struct {
	spec   *Spec
	Phase  Phase
	Handle string // the read-only preparation's handle, once ready
	// Awaiting is the receipt outcome Core waits for next (write: ready, received, completed;
	// export: chunk or completed; read: its result).
	Awaiting string
	// Sent is, for a write, the bytes the Runtime acknowledged; for an export, the bytes
	// delivered so far (the offset of the next chunk).
	Sent int64
	// InFlight is the size of the write chunk awaiting its received.
	InFlight int64
	Data     []byte // a byte read's data; an export's archive once it completed
	// Archive is the export's chunks so far, in order: appending a chunk copies the list, never
	// the bytes, so a step stays pure without costing the archive's size.
	Archive [][]byte
	Dir     *proto.WorkspaceDirectoryResult
	Trunc   bool
	Outcome *Outcome
	// Retried: a mutant's retry of the operation's last frame went out (WS-14.5, WS-25.6).
	Retried bool
	last    proto.Envelope // the last frame of the operation sent
	// Pipelined: a mutant's commit went out with the last chunk (WS-16.25).
	Pipelined bool
}

// New returns the state of an operation not started yet.
func New(spec *Spec) State { return State{spec: spec, Phase: PhaseNew} }

// Spec is the operation's request.
func (s State) Spec() *Spec { return s.spec }

// Done reports whether the outcome is recorded.
func (s State) Done() bool { return s.Phase == PhaseDone }

func (s State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", s.spec.Kind, s.Phase)
	if s.Handle != "" {
		fmt.Fprintf(&b, " handle=%s", s.Handle)
	}
	if s.Awaiting != "" {
		fmt.Fprintf(&b, " awaiting=%s", s.Awaiting)
	}
	if s.Sent > 0 {
		fmt.Fprintf(&b, " sent=%d", s.Sent)
	}
	if s.InFlight > 0 {
		fmt.Fprintf(&b, " in-flight=%d", s.InFlight)
	}
	if len(s.Data) > 0 {
		fmt.Fprintf(&b, " data=%q", abbreviate(s.Data))
	}
	if len(s.Archive) > 0 {
		fmt.Fprintf(&b, " data=%q", abbreviate(bytes.Join(s.Archive, nil)))
	}
	if s.Dir != nil {
		fmt.Fprintf(&b, " entries=%d", len(s.Dir.Entries))
	}
	if s.Trunc {
		b.WriteString(" truncated")
	}
	if o := s.Outcome; o != nil {
		fmt.Fprintf(&b, " outcome=%s", o.State)
		if o.ErrorCode != "" {
			fmt.Fprintf(&b, "/%s", o.ErrorCode)
		}
		if o.Reason != "" {
			fmt.Fprintf(&b, " reason=%s", o.Reason)
		}
		if o.Cleanup != "" {
			fmt.Fprintf(&b, " cleanup=%s", o.Cleanup)
		}
	}
	return b.String()
}

func abbreviate(b []byte) string {
	if len(b) > 24 {
		return string(b[:24]) + "…"
	}
	return string(b)
}

// Events.
type (
	// Begin starts the operation.
	Begin struct{}
	// Status is a preparation_status of the read-only preparation (past the subscription's
	// revision rules).
	Status struct {
		Status *proto.PreparationStatusPayload
	}
	// StatusClosed: the preparation subscription ended (Err nil after a terminal status).
	StatusClosed struct{ Err error }
	// Result is a workspace_*_result routed to the operation; Invalid is the rule it broke when
	// its payload did not validate (Payload is then nil).
	Result struct {
		Payload any
		Invalid error
	}
	// ResultsClosed: the result waiter ended without the operation's last receipt (the
	// connection closed or was replaced).
	ResultsClosed struct{ Err error }
	// TimerFired: the operation's bound (or the preparation's) passed.
	TimerFired struct{}
	// SendFailed: a frame could not be queued. A transport error is not a rejection.
	SendFailed struct{ Err error }
	// Stopping: Core is stopping. An operation in flight stays pending (the next start reconciles
	// it); one awaiting released is recorded now, its cleanup unconfirmed, so that the outcome the
	// Runtime gave is not reconciled away.
	Stopping struct{}
)

// Event is one input of Step.
type Event interface{ event() }

func (Begin) event()         {}
func (Status) event()        {}
func (StatusClosed) event()  {}
func (Result) event()        {}
func (ResultsClosed) event() {}
func (TimerFired) event()    {}
func (SendFailed) event()    {}
func (Stopping) event()      {}

// Effects.
type (
	// SubscribePreparation observes the read-only preparation's request ID (before it is sent).
	SubscribePreparation struct{ ID string }
	// AwaitResults routes the operation's result frames to it (before its first request).
	AwaitResults struct {
		Type string
		ID   string
	}
	// Send queues a frame (and journals it). Budget bounds the queueing (0: Core's per-send
	// timeout). A best-effort send's failure changes nothing.
	Send struct {
		Envelope   proto.Envelope
		BestEffort bool
		Budget     time.Duration
	}
	// Arm (re)starts the operation's one timer; Disarm stops it.
	Arm    struct{ After time.Duration }
	Disarm struct{}
	// Note journals what Core observed.
	Note struct{ Text string }
	// CloseAll ends every waiter and subscription.
	CloseAll struct{}
	// CloseResults ends the result waiter only: the preparation subscription stays to see released.
	CloseResults struct{}
	// Finish records the outcome, once (with what the operation returned).
	Finish struct{ Outcome Outcome }
)

// Effect is one thing the executor does, in order.
type Effect interface{ effect() }

func (SubscribePreparation) effect() {}
func (AwaitResults) effect()         {}
func (Send) effect()                 {}
func (Arm) effect()                  {}
func (Disarm) effect()               {}
func (Note) effect()                 {}
func (CloseAll) effect()             {}
func (CloseResults) effect()         {}
func (Finish) effect()               {}

// ResultType is the result frame type of an operation kind.
func ResultType(kind string) string {
	switch kind {
	case Read:
		return proto.TypeWorkspaceReadResult
	case Write:
		return proto.TypeWorkspaceWriteResult
	default:
		return proto.TypeWorkspaceExportResult
	}
}

// Step decides what an event does to an operation. A finished operation ignores everything.
func Step(s State, ev Event) (State, []Effect) {
	if s.Phase == PhaseDone {
		return s, nil
	}
	if s.Phase == PhaseReleasing {
		return s.releasing(ev)
	}
	switch e := ev.(type) {
	case Begin:
		return s.begin()
	case Status:
		return s.status(e.Status)
	case StatusClosed:
		if s.Phase != PhasePreparing {
			return s, nil // released after use, or no longer read
		}
		return s.preparationEnded(CodePreparationFailed, fmt.Sprintf("the preparation status stream ended before ready (%v)", e.Err))
	case Result:
		if s.Phase != PhaseRunning {
			return s, []Effect{Note{"a result before the operation's request: dropped"}}
		}
		if e.Invalid != nil {
			if s.spec.Kind == Export && mutation.On(mutation.WSCoreInvalidExportResultSkipped) {
				return s, []Effect{Note{"an invalid export result: skipped"}}
			}
			return s.unexpected(fmt.Sprintf("an invalid %s: %v", ResultType(s.spec.Kind), e.Invalid))
		}
		switch s.spec.Kind {
		case Read:
			return s.readResult(e.Payload)
		case Write:
			return s.writeResult(e.Payload)
		default:
			return s.exportResult(e.Payload)
		}
	case ResultsClosed:
		return s.interrupted(fmt.Sprintf("the connection ended before the result (%v)", e.Err), CodeExportInterrupted)
	case TimerFired:
		if s.Phase == PhasePreparing {
			return s.preparationEnded(CodePreparationTimedOut, "no ready within "+PreparationBound.String())
		}
		if !s.Retried && s.last.Type != "" && (s.spec.Kind == Read && mutation.On(mutation.WSCoreReadRetried) ||
			s.spec.Kind == Write && mutation.On(mutation.WSCoreWriteRetried)) {
			s.Retried = true
			return s, []Effect{Arm{After: bound(s.spec.Kind)}, Send{Envelope: s.last}}
		}
		return s.interrupted("no result within "+bound(s.spec.Kind).String(), CodeExportTimeout)
	case SendFailed:
		return s.interrupted(fmt.Sprintf("a send failed: %v (a transport error is not a rejection)", e.Err), CodeExportInterrupted)
	}
	return s, nil
}

func bound(kind string) time.Duration {
	switch kind {
	case Write:
		switch {
		case mutation.On(mutation.WorkspaceWriteUnbounded):
			return 24 * time.Hour
		case mutation.On(mutation.WSCoreWriteBoundEarly):
			return WriteBound / 2
		}
		return WriteBound
	case Export:
		switch {
		case mutation.On(mutation.WSCoreExportUnbounded):
			return 24 * time.Hour
		case mutation.On(mutation.WSCoreExportBoundEarly):
			return ExportBound / 2
		}
		return ExportBound
	default:
		if mutation.On(mutation.WSCoreReadUnbounded) {
			return 24 * time.Hour
		}
		return ReadBound
	}
}

func (s State) begin() (State, []Effect) {
	if s.spec.RunID == "" && s.spec.Kind != Write {
		s.Phase = PhasePreparing
		env := mustEnvelope(proto.TypeExecutionPrepare, s.spec.PrepareID, s.spec.Prepare)
		return s, []Effect{SubscribePreparation{ID: s.spec.PrepareID}, Arm{After: PreparationBound}, Send{Envelope: env}}
	}
	return s.run()
}

// run sends the operation's first request, its waiter and its bound first.
func (s State) run() (State, []Effect) {
	s.Phase = PhaseRunning
	effects := []Effect{AwaitResults{Type: ResultType(s.spec.Kind), ID: s.spec.ID}, Arm{After: bound(s.spec.Kind)}}
	var env proto.Envelope
	switch s.spec.Kind {
	case Read:
		p := s.spec.Read
		p.Handle, p.RunID, p.EnvironmentID = s.Handle, s.spec.RunID, s.spec.EnvironmentID
		switch {
		case p.RunID != "" && mutation.On(mutation.WSCoreReadRunWithoutEnvironment):
			p.EnvironmentID = ""
		case mutation.On(mutation.WSCoreReadSessionAsEnvironment):
			p.EnvironmentID = s.spec.SessionID
		case p.RunID == "" && mutation.On(mutation.WSCoreIdleReadWithoutHandle):
			p.Handle = ""
		}
		env = mustEnvelope(proto.TypeWorkspaceRead, s.spec.ID, &p)
		s.Awaiting = "result"
	case Write:
		digest := s.spec.Sha256()
		switch {
		case mutation.On(mutation.WSCoreDigestUpperCase):
			digest = strings.ToUpper(digest)
		case len(s.spec.Content) > 0 && mutation.On(mutation.WSCoreDigestOfEmptyBody):
			digest = (&Spec{}).Sha256()
		}
		begin := &proto.WorkspaceWritePayload{Step: proto.StepBegin,
			EnvironmentID: s.spec.EnvironmentID, SessionID: s.spec.SessionID, Path: s.spec.Path,
			SizeBytes: int64(len(s.spec.Content)), SHA256: digest}
		beginMutants(begin, s.spec.Content)
		env = mustEnvelope(proto.TypeWorkspaceWrite, s.spec.ID, begin)
		s.Awaiting = proto.OutcomeReady
	default:
		p := &proto.WorkspaceExportPayload{Step: proto.ExportBegin, Handle: s.Handle, EnvironmentID: s.spec.EnvironmentID}
		switch {
		case mutation.On(mutation.WSCoreExportBeginWithoutEnvironment):
			p.EnvironmentID = ""
		case mutation.On(mutation.WSCoreExportBeginWithoutHandle):
			p.Handle = ""
		}
		env = mustEnvelope(proto.TypeWorkspaceExport, s.spec.ID, p)
		if mutation.On(mutation.WSCoreExportIDBlank) {
			env.ID = ""
		}
		s.Awaiting = proto.OutcomeChunk
	}
	s.last = env
	return s, append(effects, Send{Envelope: env})
}

func (s State) status(st *proto.PreparationStatusPayload) (State, []Effect) {
	if s.Phase != PhasePreparing {
		return s, nil // after ready: the preparation's later statuses (released) change nothing
	}
	switch st.State {
	case proto.StatePreparing:
		return s, nil
	case proto.StateReady:
		s.Handle = st.Handle
		next, effects := s.run()
		return next, append([]Effect{Disarm{}}, effects...)
	}
	code := st.ErrorCode
	if code == "" {
		code = st.State
	}
	return s.preparationEnded(code, "the read-only preparation ended "+st.State)
}

// preparationEnded: the read-only preparation never became ready; no workspace request went out.
func (s State) preparationEnded(code, detail string) (State, []Effect) {
	return s.finish(Outcome{State: StateFailed, ErrorCode: code, Detail: detail}, false)
}

// finish records the outcome and lets go of everything; release says whether the read-only
// preparation is given back (never while an outcome is unknown: its owner keeps it). A release
// is not fire-and-forget: the outcome is recorded once the Runtime confirms it (releasing).
func (s State) finish(o Outcome, release bool) (State, []Effect) {
	s.Awaiting, s.InFlight = "", 0
	if release && s.Handle != "" && mutation.On(mutation.PJ14ReleaseRequestConfirms) {
		s.Phase, s.Outcome = PhaseDone, &o
		env := mustEnvelope(proto.TypeExecutionRelease, s.spec.PrepareID, &proto.ExecutionReleasePayload{Handle: s.Handle})
		return s, []Effect{Disarm{}, CloseAll{}, Send{Envelope: env, BestEffort: true}, Finish{Outcome: o}}
	}
	if release && s.Handle != "" {
		s.Phase, s.Outcome = PhaseReleasing, &o
		env := mustEnvelope(proto.TypeExecutionRelease, s.spec.PrepareID, &proto.ExecutionReleasePayload{Handle: s.Handle})
		return s, []Effect{Disarm{}, CloseResults{}, Arm{After: ReleaseBound}, Send{Envelope: env}}
	}
	s.Phase, s.Outcome = PhaseDone, &o
	return s, []Effect{Disarm{}, CloseAll{}, Finish{Outcome: o}}
}

// releasing awaits the preparation's released (PJ-14): only released confirms the cleanup; a
// failure or rejection (cleanup_unconfirmed or any code), the stream ending, the bound passing
// or the release not going out leave it unconfirmed. Either way the operation's own outcome
// stands: a completed read stays completed.
func (s State) releasing(ev Event) (State, []Effect) {
	switch e := ev.(type) {
	case Status:
		switch e.Status.State {
		case proto.StateReleased:
			if mutation.On(mutation.PJReleasedUnconfirmed) {
				return s.released("released taken for the preparation's end, not its cleanup")
			}
			return s.released("")
		case proto.StateFailed, proto.StateRejected, proto.StateExpired:
			cleanupFailed := e.Status.State == proto.StateFailed && e.Status.ErrorCode == proto.CodeCleanupUnconfirmed
			if cleanupFailed && mutation.On(mutation.PJ14CleanupFailureConfirms) ||
				!cleanupFailed && mutation.On(mutation.PJReleaseRefusalConfirms) {
				return s.released("")
			}
			code := e.Status.ErrorCode
			if code == "" {
				code = e.Status.State
			}
			return s.released("the release ended " + e.Status.State + " " + code)
		}
		return s, nil // a non-terminal status confirms nothing
	case StatusClosed:
		if mutation.On(mutation.PJ14SocketClosureConfirms) {
			return s.released("")
		}
		why := "the preparation status stream ended before released"
		if e.Err != nil {
			why += " (" + e.Err.Error() + ")"
		}
		return s.released(why)
	case TimerFired:
		if mutation.On(mutation.PJ14ReleaseBoundConfirms) {
			return s.released("")
		}
		return s.released("no released within " + ReleaseBound.String())
	case SendFailed:
		return s.released(fmt.Sprintf("execution_release could not be sent: %v", e.Err))
	case Stopping:
		return s.released("Core stopped before released")
	case Result:
		return s, []Effect{Note{"a result after the operation's outcome: dropped"}}
	}
	return s, nil
}

// released ends the release: why is empty when the Runtime confirmed it, else why it is not.
func (s State) released(why string) (State, []Effect) {
	o := *s.Outcome
	effects := []Effect{Disarm{}, CloseAll{}}
	if why != "" {
		o.Cleanup = proto.CodeCleanupUnconfirmed
		effects = append(effects, Note{"cleanup unconfirmed: " + why})
	}
	s.Phase, s.Outcome = PhaseDone, &o
	return s, append(effects, Finish{Outcome: o})
}

// unexpected is a receipt Core cannot accept: never a rejection.
func (s State) unexpected(why string) (State, []Effect) {
	return s.interrupted(why, CodeInvalidResult)
}

// interrupted ends an operation whose result Core did not get. exportCode is what an export
// records: export_interrupted when the connection (or a send on it) failed, so no cancel can be
// sent; invalid_result or export_timeout when Core stops a live export, which it cancels.
func (s State) interrupted(why, exportCode string) (State, []Effect) {
	switch s.spec.Kind {
	case Write:
		if exportCode == CodeExportInterrupted && mutation.On(mutation.DisconnectRejectsWrite) {
			return s.finish(Outcome{State: StateRejected, ErrorCode: proto.CodeResourceUnavailable, Detail: why}, false)
		}
		return s.finish(Outcome{State: StateUnknown, ErrorCode: proto.CodeWriteUnconfirmed, Detail: why}, false)
	case Read:
		if s.Phase == PhasePreparing {
			return s.preparationEnded(CodePreparationFailed, why)
		}
		return s.finish(Outcome{State: StateUnknown, ErrorCode: proto.CodeReadUnconfirmed, Detail: why}, false)
	}
	if s.Phase == PhasePreparing {
		return s.preparationEnded(CodePreparationFailed, why)
	}
	reachable := exportCode != CodeExportInterrupted
	var effects []Effect
	if reachable {
		if !mutation.On(mutation.ExportNotCancelled) {
			cancel := &proto.WorkspaceExportPayload{Step: proto.ExportCancel}
			switch {
			case mutation.On(mutation.WSCoreCancelStepStop):
				cancel.Step = "stop"
			case mutation.On(mutation.WSCoreCancelCarriesOffset):
				cancel.Offset = s.Sent
			}
			effects = append(effects, Send{Envelope: mustEnvelope(proto.TypeWorkspaceExport, s.spec.ID, cancel),
				BestEffort: true, Budget: proto.ExportCancelBudget})
		}
	}
	next, fin := s.finish(Outcome{State: StateFailed, ErrorCode: exportCode, Detail: why}, reachable)
	return next, append(effects, fin...)
}

func (s State) readResult(payload any) (State, []Effect) {
	r, ok := payload.(*proto.WorkspaceReadResultPayload)
	if !ok {
		return s.unexpected(fmt.Sprintf("a %T routed as a read result", payload))
	}
	req := s.spec.Read
	if err := checkReadResult(r, &req); err != nil {
		return s.unexpected(err.Error())
	}
	switch {
	case r.Outcome == proto.OutcomeCompleted:
		s.Data, s.Dir, s.Trunc = r.Data, r.Directory, r.Truncated
		if len(s.Data) > proto.TransferChunkBytes && mutation.On(mutation.WSCoreReadDataCut) {
			s.Data = s.Data[:proto.TransferChunkBytes]
		}
		if !s.Trunc && req.Operation == proto.ReadBytes && len(r.Data) == req.MaxBytes && mutation.On(mutation.WSCoreFullReadTakenTruncated) {
			s.Trunc = true
		}
		return s.finish(Outcome{State: StateCompleted}, true)
	case r.Outcome == proto.OutcomeRejected && mutation.On(mutation.WSCoreRejectedReadUnknown):
		return s.finish(Outcome{State: StateUnknown, ErrorCode: proto.CodeReadUnconfirmed, Detail: "the Runtime refused the read"}, false)
	case r.Outcome == proto.OutcomeRejected:
		return s.finish(Outcome{State: StateRejected, ErrorCode: r.ErrorCode}, true)
	case mutation.On(mutation.WSCoreUnknownReadRejected):
		return s.finish(Outcome{State: StateRejected, ErrorCode: r.ErrorCode}, true)
	}
	return s.finish(Outcome{State: StateUnknown, ErrorCode: r.ErrorCode, Detail: "the Runtime could not confirm the read"}, false)
}

func (s State) writeResult(payload any) (State, []Effect) {
	r, ok := payload.(*proto.WorkspaceWriteResultPayload)
	if !ok {
		return s.unexpected(fmt.Sprintf("a %T routed as a write result", payload))
	}
	switch r.Outcome {
	case proto.OutcomeRejected:
		reason := r.Reason
		if !proto.KnownWriteReason(reason) {
			if reason != "" && mutation.On(mutation.WSCoreUnknownReasonUnknown) {
				return s.unexpected("workspace_write_result.reason: " + reason + " is not a listed reason")
			}
			reason = "" // an unknown reason is tolerated as a generic rejection
		}
		return s.finish(Outcome{State: StateRejected, ErrorCode: r.ErrorCode, Reason: reason}, false)
	case proto.OutcomeUnknown:
		return s.finish(Outcome{State: StateUnknown, ErrorCode: r.ErrorCode, Detail: "the Runtime could not confirm the write"}, false)
	}
	if r.Outcome != s.Awaiting && !mutation.On(mutation.WSCoreReceiptStepUnchecked) {
		return s.unexpected(fmt.Sprintf("workspace_write_result.outcome: %s while Core awaited %s", r.Outcome, s.Awaiting))
	}
	size := int64(len(s.spec.Content))
	switch r.Outcome {
	case proto.OutcomeReady:
		return s.nextChunk()
	case proto.OutcomeReceived:
		want := s.Sent + s.InFlight
		if mutation.On(mutation.WSCoreReceivedBeforeChunk) {
			want = s.Sent
		}
		if r.Offset != want && !mutation.On(mutation.WriteReceiptUnchecked) {
			return s.unexpected(fmt.Sprintf("workspace_write_result.offset: %d, but Core sent %d bytes", r.Offset, want))
		}
		s.Sent, s.InFlight = s.Sent+s.InFlight, 0
		return s.nextChunk()
	default: // completed
		if r.SizeBytes != size && !mutation.On(mutation.WSCoreCompletedSizeUnchecked) {
			return s.unexpected(fmt.Sprintf("workspace_write_result.size_bytes: %d, but the body is %d bytes", r.SizeBytes, size))
		}
		return s.finish(Outcome{State: StateCompleted}, false)
	}
}

// nextChunk sends the next chunk at the acknowledged offset, or the commit once the Runtime has
// acknowledged every byte.
func (s State) nextChunk() (State, []Effect) {
	size := int64(len(s.spec.Content))
	if s.Sent >= size {
		s.Awaiting = proto.OutcomeCompleted
		if s.Pipelined {
			return s, nil // the commit is out already
		}
		commit := &proto.WorkspaceWritePayload{Step: proto.StepCommit}
		if mutation.On(mutation.WSCoreCommitCarriesOffset) {
			commit.Offset = size
		}
		var effects []Effect
		if size == 0 && mutation.On(mutation.WSCoreEmptyChunkSent) {
			effects = append(effects, Send{Envelope: mustEnvelope(proto.TypeWorkspaceWrite, s.spec.ID,
				&proto.WorkspaceWritePayload{Step: proto.StepChunk})})
		}
		s.last = mustEnvelope(proto.TypeWorkspaceWrite, s.spec.ID, commit)
		return s, append(effects, Send{Envelope: s.last})
	}
	chunkBytes := int64(proto.TransferChunkBytes)
	if mutation.On(mutation.WSCoreChunkOverLimit) {
		chunkBytes++
	}
	if mutation.On(mutation.WSCoreChunkBelowLimit) {
		chunkBytes--
	}
	end := min(s.Sent+chunkBytes, size)
	s.InFlight, s.Awaiting = end-s.Sent, proto.OutcomeReceived
	chunk := &proto.WorkspaceWritePayload{Step: proto.StepChunk, Offset: s.Sent, Data: s.spec.Content[s.Sent:end]}
	if mutation.On(mutation.WSCoreChunkRepeatsPath) {
		chunk.Path = s.spec.Path
	}
	s.last = mustEnvelope(proto.TypeWorkspaceWrite, s.spec.ID, chunk)
	effects := []Effect{Send{Envelope: s.last}}
	if end == size && mutation.On(mutation.WSCoreCommitPipelined) {
		s.Pipelined = true // the commit follows at once, before the last chunk's received
		s.last = mustEnvelope(proto.TypeWorkspaceWrite, s.spec.ID, &proto.WorkspaceWritePayload{Step: proto.StepCommit})
		effects = append(effects, Send{Envelope: s.last})
	}
	return s, effects
}

func (s State) exportResult(payload any) (State, []Effect) {
	r, ok := payload.(*proto.WorkspaceExportResultPayload)
	if !ok {
		return s.unexpected(fmt.Sprintf("a %T routed as an export result", payload))
	}
	switch r.Outcome {
	case proto.OutcomeRejected, proto.OutcomeFailed:
		st := StateRejected
		if r.Outcome == proto.OutcomeFailed {
			st = StateFailed
		}
		return s.finish(Outcome{State: st, ErrorCode: r.ErrorCode}, true)
	}
	if r.Offset != exportOffsetWanted(s.Sent, r) && !mutation.On(mutation.ExportOffsetUnchecked) {
		return s.unexpected(fmt.Sprintf("workspace_export_result.offset: %d, but %d bytes were delivered", r.Offset, s.Sent))
	}
	if r.Outcome == proto.OutcomeCompleted {
		if s.Sent == 0 && mutation.On(mutation.WSCoreEmptyArchiveFailed) {
			return s.finish(Outcome{State: StateFailed, ErrorCode: proto.CodeExportFailed, Detail: "an empty archive"}, true)
		}
		if len(s.Archive) > 1 && mutation.On(mutation.WSCoreArchiveFirstDropped) {
			s.Archive = s.Archive[1:]
		}
		s.Data, s.Archive = bytes.Join(s.Archive, nil), nil
		return s.finish(Outcome{State: StateCompleted}, true)
	}
	if s.Sent+int64(len(r.Data)) > proto.WorkspaceExportMaxBytes {
		return s.unexpected(fmt.Sprintf("the archive passes %d bytes", proto.WorkspaceExportMaxBytes))
	}
	s.Archive = append(slices.Clip(s.Archive), r.Data)
	s.Sent += int64(len(r.Data))
	next := &proto.WorkspaceExportPayload{Step: proto.ExportNext, Offset: s.Sent}
	switch {
	case mutation.On(mutation.WSCoreNextAtChunkStart):
		next.Offset = r.Offset
	case mutation.On(mutation.WSCoreNextCarriesHandle):
		next.Handle = s.Handle
	}
	return s, []Effect{Send{Envelope: mustEnvelope(proto.TypeWorkspaceExport, s.spec.ID, next)}}
}

func mustEnvelope(typ, id string, payload any) proto.Envelope {
	env, err := proto.NewEnvelope(typ, id, payload)
	if err != nil {
		panic(fmt.Sprintf("encoding %s: %v", typ, err))
	}
	return env
}

// checkReadResult is r.CheckAgainst(req), the rules that need the request, with the WS-04 and
// WS-05 mutants of Core's check: each moves one bound by one or leaves one rule out.
func checkReadResult(r *proto.WorkspaceReadResultPayload, req *proto.WorkspaceReadPayload) error {
	err := r.CheckAgainst(req)
	if r.Outcome != proto.OutcomeCompleted {
		return err
	}
	listing := req.Operation == proto.ReadDirectory && r.Directory != nil
	byteRead := req.Operation == proto.ReadBytes
	if err == nil {
		switch {
		case listing && len(r.Directory.Entries) == req.MaxEntries && mutation.On(mutation.WSCoreListingAtLimitRefused):
			return fmt.Errorf("workspace_read_result.directory.entries: must have fewer than max_entries (%d) entries", req.MaxEntries)
		case byteRead && len(r.Data) == req.MaxBytes && mutation.On(mutation.WSCoreExactMaxBytesRefused):
			return fmt.Errorf("workspace_read_result.data: must be shorter than max_bytes (%d)", req.MaxBytes)
		}
		return nil
	}
	fixed := *r
	switch {
	case listing && len(r.Directory.Entries) > req.MaxEntries && mutation.On(mutation.WSCoreListingOverLimitAccepted):
		d := *r.Directory
		d.Entries = d.Entries[:req.MaxEntries]
		fixed.Directory = &d
	case byteRead && len(r.Data) > req.MaxBytes && mutation.On(mutation.ReadResultUnchecked):
		fixed.Data = fixed.Data[:req.MaxBytes]
	case byteRead && r.Truncated && len(r.Data) < req.MaxBytes && mutation.On(mutation.WSCoreShortTruncatedAccepted):
		fixed.Truncated = false
	default:
		return err
	}
	if fixed.CheckAgainst(req) == nil {
		return nil
	}
	return err
}
