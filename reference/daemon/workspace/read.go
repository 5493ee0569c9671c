package workspace

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// ReadBudget is the native budget of one admitted read (WS-14): the daemon answers
// read_unconfirmed when it passes.
const ReadBudget = proto.ReadNativeBudget

func readReply(id, trace string, p proto.WorkspaceReadResultPayload) []Effect {
	var payload any = &p
	if d := p.Directory; d != nil && !d.Truncated && mutation.On(mutation.WSListingTruncatedOmitted) {
		payload = reencode(&p, "directory.truncated")
	}
	if d := p.Directory; d != nil && len(d.Entries) > 0 && mutation.On(mutation.WSListingSizeOmitted) {
		payload = reencode(&p, "directory.entries.size_bytes")
	}
	return []Effect{Reply{Type: proto.TypeWorkspaceReadResult, ID: id, Trace: echo(trace), Payload: payload}}
}

func readRejected(id, trace, code string) []Effect {
	return readReply(id, trace, proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: code})
}

// read decides a workspace_read in the order of §4.13's Runtime behaviour.
func (m *Machine) read(env proto.Envelope, host Host) []Effect {
	switch {
	case len(env.ID) > proto.CorrelationIDMaxBytes && !mutation.On(mutation.WSReadIDOverLimitAnswered):
		return nil // an oversized ID is never echoed (WS-06)
	case len(env.ID) == proto.CorrelationIDMaxBytes && mutation.On(mutation.WSReadIDAtLimitIgnored):
		return nil
	}
	if strings.TrimSpace(env.ID) == "" {
		if mutation.On(mutation.WSReadBlankIDUnanswered) {
			return nil
		}
		return readRejected(env.ID, env.Trace, proto.CodeInvalidRequest) // WS-07
	}
	req, err := decodeRead(env)
	if err != nil {
		if req != nil && mutation.On(mutation.WSReadTargetBeforeValidation) {
			if t := host.Target(req.Handle, req.RunID); t.Owner == "" || !t.Open {
				return readRejected(env.ID, env.Trace, proto.CodeResourceUnavailable)
			}
		}
		if len(env.Payload) > proto.WorkspaceReadMaxRequestBytes && mutation.On(mutation.WSReadOversizedUnanswered) {
			return nil
		}
		return readRejected(env.ID, env.Trace, proto.CodeInvalidRequest) // WS-07
	}
	if _, pending := m.reads[env.ID]; pending && !mutation.On(mutation.WSReadDuplicateIDStarts) {
		return nil // the pending read answers this ID once (WS-08)
	}
	inFlight, capacity := len(m.reads), proto.ConcurrentReads
	if inFlight == capacity-1 && mutation.On(mutation.WSReadCapacityThree) {
		capacity--
	}
	if inFlight >= capacity && mutation.On(mutation.WSReadCapacityPerOperation) {
		inFlight = m.readsOf(req.Operation)
	}
	if inFlight >= capacity && !mutation.On(mutation.ReadCapacityIgnored) {
		return readRejected(env.ID, env.Trace, proto.CodeReadCapacity) // WS-09
	}
	t := host.Target(req.Handle, req.RunID)
	if m.FS == nil && mutation.On(mutation.WSReadUnsupportedBeforeTarget) {
		return readRejected(env.ID, env.Trace, proto.CodeReadUnsupported)
	}
	t = m.mutateTarget(t, req)
	switch {
	case t.Owner == "" && req.Handle != "" && mutation.On(mutation.WSReadUnknownHandleWrongCode):
		return readRejected(env.ID, env.Trace, proto.CodeUnknownPreparation)
	case t.Owner == "" || !t.Open, t.EnvironmentID != req.EnvironmentID && !mutation.On(mutation.WSReadEnvironmentUnchecked),
		req.Handle != "" && !t.ReadOnly && !mutation.On(mutation.ReadExecutionHandleAccepted), m.stopped[t.Owner], m.stoppedAll:
		return readRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-10, WS-13
	case m.FS == nil:
		return readRejected(env.ID, env.Trace, proto.CodeReadUnsupported) // WS-11
	}
	if m.reads == nil {
		m.reads = map[string]pendingRead{}
	}
	m.reads[env.ID] = pendingRead{owner: t.Owner, trace: env.Trace, op: req.Operation}
	if req.RunID != "" {
		m.lastRun, m.lastRunID = t, req.RunID
	}
	return []Effect{StartRead{ID: env.ID, Request: *req}}
}

// mutateTarget: the WS-10 mutants that take a target the Runtime must refuse.
func (m *Machine) mutateTarget(t Target, req *proto.WorkspaceReadPayload) Target {
	switch {
	case t.Owner == "" && req.RunID != "":
		if req.RunID == m.lastRunID && mutation.On(mutation.WSReadFinishedRunServed) {
			return m.lastRun // the Run finished since; its cached target is served
		}
	case t.Closed == ClosedNotReady && mutation.On(mutation.WSReadHandleNotReadyServed),
		t.Closed == ClosedExpired && mutation.On(mutation.WSReadExpiredHandleServed):
		t.Open = true
	}
	return t
}

// readsOf counts the reads in flight of one operation.
func (m *Machine) readsOf(op string) int {
	n := 0
	for _, rd := range m.reads {
		if rd.op == op {
			n++
		}
	}
	return n
}

// DropReads forgets the reads in flight of owner: their native ends find nothing to answer. Only
// the WS-14.3 mutant calls it.
func (m *Machine) DropReads(owner string) {
	for id, rd := range m.reads {
		if rd.owner == owner {
			delete(m.reads, id)
		}
	}
}

func decodeRead(env proto.Envelope) (*proto.WorkspaceReadPayload, error) {
	spec, _ := proto.Lookup(proto.TypeWorkspaceRead)
	v, err := decodePayload(spec, env.Payload, mutation.WSReadPayloadAtLimitRefused, mutation.WSReadPayloadOverLimitAccepted, mutation.WSReadUnknownMemberIgnored)
	if err != nil {
		return nil, err
	}
	req := v.(*proto.WorkspaceReadPayload)
	return req, readShape(*req, req.Validate())
}

// pendingRead is an admitted read whose native work runs.
type pendingRead struct{ owner, trace, op string }

// ReadEnded reports the end of the native read id with its result (NativeRead's, or Unconfirmed()
// when the budget passed first). It returns the reply, or an error if no such read is in flight.
func (m *Machine) ReadEnded(id string, res proto.WorkspaceReadResultPayload) ([]Effect, error) {
	rd, ok := m.reads[id]
	if !ok {
		return nil, fmt.Errorf("no read %q is in flight", id)
	}
	delete(m.reads, id)
	stops := res.Outcome == proto.OutcomeUnknown && !mutation.On(mutation.ReadUnconfirmedOwnerReads)
	if res.ErrorCode == proto.CodeReadUnsupported && mutation.On(mutation.WSReadUnsupportedStopsOwner) {
		stops = true
	}
	if stops {
		if m.stopped == nil {
			m.stopped = map[string]bool{}
		}
		m.stopped[rd.owner] = true // WS-13: no further reads on this owner
		if mutation.On(mutation.WSReadUnconfirmedStopsConnection) {
			m.stoppedAll = true
		}
	}
	if res.ErrorCode == proto.CodeReadUnsupported && rd.op == proto.ReadBytes && mutation.On(mutation.ReadUnsupportedUnconfirmed) {
		res = Unconfirmed() // the owner is not stopped: only the answer is wrong
	}
	return readReply(id, rd.trace, res), nil
}

// Unconfirmed is the result of a read whose native outcome is unknown.
func Unconfirmed() proto.WorkspaceReadResultPayload {
	return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeUnknown, ErrorCode: proto.CodeReadUnconfirmed}
}

// NativeRead performs an admitted read on fs and maps its end to the wire (WS-04, WS-05, WS-12).
func NativeRead(fs FS, req proto.WorkspaceReadPayload) proto.WorkspaceReadResultPayload {
	if req.Operation == proto.ReadDirectory {
		maxEntries := req.MaxEntries
		if mutation.On(mutation.WSListingOverLimitSent) {
			maxEntries++ // one more asked to see whether the listing is cut, and not dropped
		}
		entries, truncated, err := fs.List(req.Path, maxEntries)
		if err != nil {
			res := readFailure(err, true)
			if res.ErrorCode == proto.CodeNotDirectory && mutation.On(mutation.WSRejectedListingCarriesDirectory) {
				res.Directory = &proto.WorkspaceDirectoryResult{Entries: []proto.DirectoryEntry{}}
			}
			return res
		}
		if truncated && mutation.On(mutation.WSListingCutNotTruncated) {
			truncated = false
		}
		dir := &proto.WorkspaceDirectoryResult{Entries: make([]proto.DirectoryEntry, 0, len(entries)), Truncated: truncated}
		for _, e := range entries {
			de := proto.DirectoryEntry{Name: e.Name, Kind: e.Kind}
			if e.Kind == proto.EntryFile {
				size := e.Size
				de.SizeBytes = &size
			} else if e.Kind == proto.EntryDirectory && mutation.On(mutation.WSListingDirectorySize) {
				size := int64(4096) // the directory's own size on disk
				de.SizeBytes = &size
			}
			dir.Entries = append(dir.Entries, de)
		}
		if len(dir.Entries) > maxEntries || (dir.Validate() != nil && !listingMutant()) {
			return Unconfirmed() // the FS broke its contract: nothing definite to report
		}
		if len(dir.Entries) == 0 && mutation.On(mutation.WSEmptyListingNullEntries) {
			dir.Entries = nil
		}
		res := proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeCompleted, CloseAcknowledged: true, Directory: dir}
		if mutation.On(mutation.WSListingCloseUnacknowledged) {
			res.CloseAcknowledged = false
		}
		if truncated && mutation.On(mutation.WSListingByteTruncated) {
			res.Truncated = true
		}
		return res
	}
	data, truncated, err := fs.ReadFile(req.Path, req.MaxBytes)
	if err != nil {
		return readFailure(err, false)
	}
	if (len(data) > req.MaxBytes && !mutation.On(mutation.WSReadOverMaxSent)) ||
		(truncated && len(data) != req.MaxBytes && !mutation.On(mutation.WSReadTruncatedShort)) {
		return Unconfirmed()
	}
	return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeCompleted, CloseAcknowledged: true, Data: data, Truncated: truncated}
}

// listingMutant: a WS-04 mutant whose listing the Runtime's own check of the listing would catch.
func listingMutant() bool {
	return mutation.On(mutation.WSListingOddNameListed) || mutation.On(mutation.WSListingSpecialKind) ||
		mutation.On(mutation.WSListingDirectorySize)
}

// readFailure maps a native read error: no object of the wanted kind at the path is absent (the
// operation's code: not_directory for a listing, not_found for a byte read), a denied access is
// permission_denied, an adapter without the operation read_unsupported, anything else is
// ambiguous.
func readFailure(err error, listing bool) proto.WorkspaceReadResultPayload {
	absent := proto.CodeNotFound
	if listing {
		absent = proto.CodeNotDirectory
	}
	rejected := func(code string) proto.WorkspaceReadResultPayload {
		return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: code}
	}
	switch {
	case errors.Is(err, ErrNotFound) && listing && mutation.On(mutation.WSListMissingNotFound):
		return rejected(proto.CodeNotFound)
	case errors.Is(err, ErrNotFound) && !listing && mutation.On(mutation.WSReadMissingNotDirectory):
		return rejected(proto.CodeNotDirectory)
	case errors.Is(err, ErrNotDirectory) && listing && mutation.On(mutation.WSListFileNotFound):
		return rejected(proto.CodeNotFound)
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrNotDirectory), errors.Is(err, ErrNotFile), errors.Is(err, ErrSymlink):
		return rejected(absent)
	case errors.Is(err, ErrPermission):
		if mutation.On(mutation.WSReadDeniedNotFound) {
			return rejected(proto.CodeNotFound)
		}
		return rejected(proto.CodePermissionDenied)
	case errors.Is(err, ErrUnsupported):
		if listing && mutation.On(mutation.WSListUnsupportedNotDirectory) {
			return rejected(proto.CodeNotDirectory)
		}
		return rejected(proto.CodeReadUnsupported) // WS-11
	}
	if mutation.On(mutation.WSReadAmbiguousRejected) {
		return rejected(absent)
	}
	return Unconfirmed()
}

func readResultString(p *proto.WorkspaceReadResultPayload) string {
	s := p.Outcome
	if p.ErrorCode != "" {
		return s + " code=" + p.ErrorCode
	}
	if d := p.Directory; d != nil {
		names := make([]string, 0, len(d.Entries))
		for _, e := range d.Entries {
			n := e.Name + ":" + e.Kind
			if e.SizeBytes != nil {
				n += fmt.Sprintf(":%d", *e.SizeBytes)
			}
			names = append(names, n)
		}
		return s + fmt.Sprintf(" entries=[%s] truncated=%v", strings.Join(names, " "), d.Truncated)
	}
	return s + fmt.Sprintf(" data=%q truncated=%v", p.Data, p.Truncated)
}
