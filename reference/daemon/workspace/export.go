package workspace

import (
	"errors"
	"io"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// ExportDeadline bounds an export from begin (WS-31; the Runtime applies the same bound).
const ExportDeadline = 180 * time.Second

// export is the connection's one export stream.
type export struct {
	id        string
	stream    *TarStream
	delivered int64 // bytes sent in chunks so far: the offset the next `next` must carry
	deadline  time.Time
}

func (x *export) close() { x.stream.Close() }

func exportReply(id, trace string, p proto.WorkspaceExportResultPayload) []Effect {
	return []Effect{Reply{Type: proto.TypeWorkspaceExportResult, ID: id, Trace: echo(trace), Payload: &p}}
}

func exportEnd(id, trace, outcome, code string, offset int64) []Effect {
	return exportReply(id, trace, proto.WorkspaceExportResultPayload{Outcome: outcome, Offset: offset, ErrorCode: code})
}

func (m *Machine) exportFrame(env proto.Envelope, now time.Time, host Host) []Effect {
	req, err := decodeExport(env)
	if err != nil {
		return nil // WS-32: invalid request frames get no reply
	}
	switch req.Step {
	case proto.ExportBegin:
		return m.beginExport(env, req, now, host)
	case proto.ExportNext:
		return m.next(env, req)
	default:
		if x := m.export; x != nil && x.id == env.ID {
			x.close()
			m.export = nil
		}
		return nil // cancel is not answered
	}
}

func decodeExport(env proto.Envelope) (*proto.WorkspaceExportPayload, error) {
	spec, _ := proto.Lookup(proto.TypeWorkspaceExport)
	if err := spec.CheckID(env.ID); err != nil {
		return nil, err
	}
	v, err := spec.DecodePayload(env.Payload)
	if err != nil {
		return nil, err
	}
	req := v.(*proto.WorkspaceExportPayload)
	return req, req.Validate()
}

func (m *Machine) beginExport(env proto.Envelope, req *proto.WorkspaceExportPayload, now time.Time, host Host) []Effect {
	if m.FS == nil || m.NoExport {
		return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeReadUnsupported, 0)
	}
	t := host.Target(req.Handle, "")
	notReadOnly := !t.ReadOnly && !mutation.On(mutation.ExportExecutionHandleAccepted)
	if m.export != nil || m.write != nil || t.Owner == "" || !t.Open || notReadOnly || t.EnvironmentID != req.EnvironmentID {
		return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeResourceUnavailable, 0) // WS-29
	}
	stream, err := NewTarStream(m.FS)
	if err != nil {
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeExportFailed, 0) // WS-30
	}
	m.export = &export{id: env.ID, stream: stream, deadline: now.Add(ExportDeadline)}
	return m.pull(env)
}

func (m *Machine) next(env proto.Envelope, req *proto.WorkspaceExportPayload) []Effect {
	x := m.export
	switch {
	case x == nil || x.id != env.ID:
		return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeResourceUnavailable, req.Offset) // WS-29
	case req.Offset != x.delivered && !mutation.On(mutation.ExportOffsetNotChecked):
		x.close()
		m.export = nil
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeInvalidRequest, x.delivered) // WS-30
	}
	return m.pull(env)
}

// pull sends the export's next chunk, or completed at its end, or failed.
func (m *Machine) pull(env proto.Envelope) []Effect {
	x := m.export
	data, err := x.stream.Next(proto.TransferChunkBytes)
	switch {
	case errors.Is(err, io.EOF):
		x.close()
		m.export = nil
		return exportEnd(env.ID, env.Trace, proto.OutcomeCompleted, "", x.delivered) // WS-28
	case err != nil, x.delivered+int64(len(data)) > proto.WorkspaceExportMaxBytes:
		x.close()
		m.export = nil
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeExportFailed, x.delivered) // WS-30
	}
	offset := x.delivered
	x.delivered += int64(len(data))
	return exportReply(env.ID, env.Trace, proto.WorkspaceExportResultPayload{Outcome: proto.OutcomeChunk, Offset: offset, Data: data})
}
