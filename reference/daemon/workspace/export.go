package workspace

import (
	"errors"
	"io"
	"strings"
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
	ended     bool // a mutant's empty chunk announced the end
}

func (x *export) close() { x.stream.Close() }

func exportReply(id, trace string, p proto.WorkspaceExportResultPayload) []Effect {
	var payload any = &p
	if p.Offset == 0 && mutation.On(mutation.WSExportZeroOffsetOmitted) {
		payload = reencode(&p, "offset")
	}
	return []Effect{Reply{Type: proto.TypeWorkspaceExportResult, ID: id, Trace: echo(trace), Payload: payload}}
}

func exportEnd(id, trace, outcome, code string, offset int64) []Effect {
	return exportReply(id, trace, proto.WorkspaceExportResultPayload{Outcome: outcome, Offset: offset, ErrorCode: code})
}

func (m *Machine) exportFrame(env proto.Envelope, now time.Time, host Host) []Effect {
	req, why, err := decodeExport(env)
	if err != nil {
		if why != "" && mutation.On(why) {
			return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeInvalidRequest, 0)
		}
		return nil // WS-32: invalid request frames get no reply
	}
	switch req.Step {
	case proto.ExportBegin:
		return m.beginExport(env, req, now, host)
	case proto.ExportNext:
		return m.next(env, req)
	default:
		if x := m.export; x != nil && x.id == env.ID && !mutation.On(mutation.WSExportCancelIgnored) {
			x.close()
			m.export = nil
		}
		return nil // cancel is not answered
	}
}

// decodeExport decodes and validates an export request. On failure, why is the WS-32 mutant that
// answers that kind of invalid request.
func decodeExport(env proto.Envelope) (_ *proto.WorkspaceExportPayload, why mutation.Point, _ error) {
	spec, _ := proto.Lookup(proto.TypeWorkspaceExport)
	idErr := spec.CheckID(env.ID)
	switch {
	case idErr != nil && strings.TrimSpace(env.ID) == "" && mutation.On(mutation.WSExportBlankIDAccepted),
		idErr != nil && len(env.ID) > proto.CorrelationIDMaxBytes && mutation.On(mutation.WSExportIDOverLimitAccepted):
		idErr = nil
	case idErr == nil && len(env.ID) == proto.CorrelationIDMaxBytes && mutation.On(mutation.WSExportIDAtLimitRefused):
		idErr = errMutantBound
	}
	if idErr != nil {
		if len(env.ID) > proto.CorrelationIDMaxBytes {
			return nil, mutation.WSExportBadIDAnswered, idErr
		}
		return nil, mutation.WSExportBlankIDAnswered, idErr
	}
	v, err := decodePayload(spec, env.Payload, mutation.WSExportPayloadAtLimitRefused, mutation.WSExportPayloadOverLimitAccepted, mutation.WSExportUnknownMemberIgnored)
	if err != nil {
		if len(env.Payload) > spec.MaxPayloadBytes {
			return nil, mutation.WSExportOversizedAnswered, err
		}
		return nil, mutation.WSExportUndecodableAnswered, err
	}
	req := v.(*proto.WorkspaceExportPayload)
	if err := exportShape(*req, req.Validate()); err != nil {
		return nil, mutation.WSExportInvalidMemberAnswered, err
	}
	return req, "", nil
}

func (m *Machine) beginExport(env proto.Envelope, req *proto.WorkspaceExportPayload, now time.Time, host Host) []Effect {
	if m.FS == nil || m.NoExport {
		if mutation.On(mutation.WSExportUnsupportedWrongCode) {
			return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeResourceUnavailable, 0)
		}
		return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeReadUnsupported, 0)
	}
	t := host.Target(req.Handle, "")
	if t.Owner == "" && mutation.On(mutation.WSExportUnknownHandleSilent) {
		return nil
	}
	if m.export != nil && mutation.On(mutation.WSExportBeginReplaces) {
		m.export.close()
		m.export = nil
	}
	notReadOnly := !t.ReadOnly && !mutation.On(mutation.ExportExecutionHandleAccepted)
	switch {
	case m.export != nil, m.write != nil && !mutation.On(mutation.WSExportDuringWrite), t.Owner == "", !t.Open, notReadOnly,
		t.EnvironmentID != req.EnvironmentID && !mutation.On(mutation.WSExportEnvironmentUnchecked):
		return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeResourceUnavailable, 0) // WS-29
	}
	stream, err := NewTarStream(m.FS)
	if err != nil || (stream.Empty() && mutation.On(mutation.WSExportEmptyFails)) {
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeExportFailed, 0) // WS-30
	}
	bound := ExportDeadline
	switch {
	case mutation.On(mutation.WSExportBoundEarly):
		bound /= 2
	case mutation.On(mutation.WSExportNeverExpires):
		bound = 100 * 365 * 24 * time.Hour
	}
	m.export = &export{id: env.ID, stream: stream, deadline: now.Add(bound)}
	m.lastExport = env.ID
	if mutation.On(mutation.WSExportBeginUnanswered) {
		return nil // the first chunk waits for a next
	}
	return m.pull(env)
}

func (m *Machine) next(env proto.Envelope, req *proto.WorkspaceExportPayload) []Effect {
	x := m.export
	switch {
	case (x == nil || x.id != env.ID) && env.ID != m.lastExport && mutation.On(mutation.WSExportUnknownNextFailed):
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeInvalidRequest, req.Offset)
	case x == nil || x.id != env.ID:
		return exportEnd(env.ID, env.Trace, proto.OutcomeRejected, proto.CodeResourceUnavailable, req.Offset) // WS-29
	case req.Offset != x.delivered && !mutation.On(mutation.ExportOffsetNotChecked):
		if !mutation.On(mutation.WSExportFailedStaysOpen) {
			x.close()
			m.export = nil
		}
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeInvalidRequest, x.delivered) // WS-30
	}
	return m.pull(env)
}

// pull sends the export's next chunk, or completed at its end, or failed.
func (m *Machine) pull(env proto.Envelope) []Effect {
	x := m.export
	size := proto.TransferChunkBytes
	if mutation.On(mutation.WSExportChunkOverLimit) {
		size++
	}
	data, err := x.stream.Next(size)
	switch {
	case errors.Is(err, io.EOF):
		if !x.ended && mutation.On(mutation.WSExportEmptyChunkAtEnd) {
			x.ended = true
			return exportReply(env.ID, env.Trace, proto.WorkspaceExportResultPayload{Outcome: proto.OutcomeChunk, Offset: x.delivered})
		}
		x.close()
		m.export = nil
		total := x.delivered
		if mutation.On(mutation.WSExportCompletedOffsetZero) {
			total = 0
		}
		return exportEnd(env.ID, env.Trace, proto.OutcomeCompleted, "", total) // WS-28
	case err != nil && mutation.On(mutation.WSExportFailureCompletes):
		x.close()
		m.export = nil
		return exportEnd(env.ID, env.Trace, proto.OutcomeCompleted, "", x.delivered)
	case err != nil, x.delivered+int64(len(data)) > proto.WorkspaceExportMaxBytes:
		x.close()
		m.export = nil
		return exportEnd(env.ID, env.Trace, proto.OutcomeFailed, proto.CodeExportFailed, x.delivered) // WS-30
	}
	offset := x.delivered
	x.delivered += int64(len(data))
	if mutation.On(mutation.WSExportChunkOffsetAfter) {
		offset = x.delivered
	}
	effects := exportReply(env.ID, env.Trace, proto.WorkspaceExportResultPayload{Outcome: proto.OutcomeChunk, Offset: offset, Data: data})
	if x.stream.Exhausted() && mutation.On(mutation.WSExportCompletedUnasked) {
		x.close()
		m.export = nil
		effects = append(effects, exportEnd(env.ID, env.Trace, proto.OutcomeCompleted, "", x.delivered)...)
	}
	return effects
}
