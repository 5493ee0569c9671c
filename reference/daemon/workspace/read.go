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
	return []Effect{Reply{Type: proto.TypeWorkspaceReadResult, ID: id, Trace: echo(trace), Payload: &p}}
}

func readRejected(id, trace, code string) []Effect {
	return readReply(id, trace, proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: code})
}

// read decides a workspace_read in the order of §4.13's Runtime behaviour.
func (m *Machine) read(env proto.Envelope, host Host) []Effect {
	if len(env.ID) > proto.CorrelationIDMaxBytes {
		return nil // an oversized ID is never echoed (WS-06)
	}
	if strings.TrimSpace(env.ID) == "" {
		return readRejected(env.ID, env.Trace, proto.CodeInvalidRequest) // WS-07
	}
	req, err := decodeRead(env)
	if err != nil {
		return readRejected(env.ID, env.Trace, proto.CodeInvalidRequest) // WS-07
	}
	if _, pending := m.reads[env.ID]; pending {
		return nil // the pending read answers this ID once (WS-08)
	}
	if len(m.reads) >= proto.ConcurrentReads && !mutation.On(mutation.ReadCapacityIgnored) {
		return readRejected(env.ID, env.Trace, proto.CodeReadCapacity) // WS-09
	}
	t := host.Target(req.Handle, req.RunID)
	switch {
	case t.Owner == "" || !t.Open, t.EnvironmentID != req.EnvironmentID,
		req.Handle != "" && !t.ReadOnly && !mutation.On(mutation.ReadExecutionHandleAccepted), m.stopped[t.Owner]:
		return readRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-10, WS-13
	case m.FS == nil:
		return readRejected(env.ID, env.Trace, proto.CodeReadUnsupported) // WS-11
	}
	if m.reads == nil {
		m.reads = map[string]pendingRead{}
	}
	m.reads[env.ID] = pendingRead{owner: t.Owner, trace: env.Trace}
	return []Effect{StartRead{ID: env.ID, Request: *req}}
}

func decodeRead(env proto.Envelope) (*proto.WorkspaceReadPayload, error) {
	spec, _ := proto.Lookup(proto.TypeWorkspaceRead)
	v, err := spec.DecodePayload(env.Payload)
	if err != nil {
		return nil, err
	}
	req := v.(*proto.WorkspaceReadPayload)
	return req, req.Validate()
}

// pendingRead is an admitted read whose native work runs.
type pendingRead struct{ owner, trace string }

// ReadEnded reports the end of the native read id with its result (NativeRead's, or Unconfirmed()
// when the budget passed first). It returns the reply, or an error if no such read is in flight.
func (m *Machine) ReadEnded(id string, res proto.WorkspaceReadResultPayload) ([]Effect, error) {
	rd, ok := m.reads[id]
	if !ok {
		return nil, fmt.Errorf("no read %q is in flight", id)
	}
	delete(m.reads, id)
	if res.Outcome == proto.OutcomeUnknown && !mutation.On(mutation.ReadUnconfirmedOwnerReads) {
		if m.stopped == nil {
			m.stopped = map[string]bool{}
		}
		m.stopped[rd.owner] = true // WS-13: no further reads on this owner
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
		entries, truncated, err := fs.List(req.Path, req.MaxEntries)
		if err != nil {
			return readFailure(err, proto.CodeNotDirectory)
		}
		dir := &proto.WorkspaceDirectoryResult{Entries: make([]proto.DirectoryEntry, 0, len(entries)), Truncated: truncated}
		for _, e := range entries {
			de := proto.DirectoryEntry{Name: e.Name, Kind: e.Kind}
			if e.Kind == proto.EntryFile {
				size := e.Size
				de.SizeBytes = &size
			}
			dir.Entries = append(dir.Entries, de)
		}
		if len(dir.Entries) > req.MaxEntries || dir.Validate() != nil {
			return Unconfirmed() // the FS broke its contract: nothing definite to report
		}
		return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeCompleted, CloseAcknowledged: true, Directory: dir}
	}
	data, truncated, err := fs.ReadFile(req.Path, req.MaxBytes)
	if err != nil {
		return readFailure(err, proto.CodeNotFound)
	}
	if len(data) > req.MaxBytes || (truncated && len(data) != req.MaxBytes) {
		return Unconfirmed()
	}
	return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeCompleted, CloseAcknowledged: true, Data: data, Truncated: truncated}
}

// readFailure maps a native read error: no object of the wanted kind at the path is absent (the
// operation's code), a denied access is permission_denied, anything else is ambiguous.
func readFailure(err error, absent string) proto.WorkspaceReadResultPayload {
	switch {
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrNotDirectory), errors.Is(err, ErrNotFile), errors.Is(err, ErrSymlink):
		return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: absent}
	case errors.Is(err, ErrPermission):
		return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodePermissionDenied}
	case errors.Is(err, ErrUnsupported) && !mutation.On(mutation.ReadUnsupportedUnconfirmed):
		return proto.WorkspaceReadResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeReadUnsupported} // WS-11
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
