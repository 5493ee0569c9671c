package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// WriteBodyDeadline bounds a write body from begin to commit (WS-21).
const WriteBodyDeadline = proto.TransferBodyDeadline

// write is the connection's one workspace write.
type write struct {
	id, path, sha256 string
	size             int64
	deadline         time.Time
	body             bytes.Buffer
	digest           hash.Hash
	// owned: the installer's outcome is unknown; the write keeps the Environment for the rest of
	// the connection and every chunk or commit for it repeats that receipt (WS-22).
	owned bool
}

func (w *write) String() string {
	if w.owned {
		return "write=" + w.id + " owned"
	}
	return fmt.Sprintf("write=%s path=%s received=%d/%d", w.id, w.path, w.body.Len(), w.size)
}

func writeReply(id, trace string, p proto.WorkspaceWriteResultPayload) []Effect {
	return []Effect{Reply{Type: proto.TypeWorkspaceWriteResult, ID: id, Trace: echo(trace), Payload: &p}}
}

func writeRejected(id, trace, code string) []Effect {
	return writeReply(id, trace, proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: code})
}

func unconfirmedWrite() proto.WorkspaceWriteResultPayload {
	return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeUnknown, ErrorCode: proto.CodeWriteUnconfirmed}
}

func (m *Machine) writeFrame(env proto.Envelope, now time.Time, host Host) []Effect {
	if !proto.CanonicalUUID(env.ID) {
		return nil // WS-18: nothing to correlate an answer with
	}
	req, err := decodeWrite(env)
	if err != nil {
		if m.write != nil && m.write.id == env.ID && !mutation.On(mutation.WriteMalformedPendingAnswered) {
			return nil // WS-18: an answer could read as the pending write's result
		}
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	}
	if m.FS == nil {
		return writeRejected(env.ID, env.Trace, proto.CodeWriteUnsupported) // WS-23
	}
	switch req.Step {
	case proto.StepBegin:
		return m.beginWrite(env, req, now, host)
	case proto.StepChunk:
		return m.chunk(env, req)
	default:
		return m.commit(env)
	}
}

func decodeWrite(env proto.Envelope) (*proto.WorkspaceWritePayload, error) {
	spec, _ := proto.Lookup(proto.TypeWorkspaceWrite)
	v, err := spec.DecodePayload(env.Payload)
	if err != nil {
		return nil, err
	}
	req := v.(*proto.WorkspaceWritePayload)
	err = req.Validate()
	if err != nil && mutantSkipsShapeCheck(*req) {
		return req, nil
	}
	return req, err
}

// mutantSkipsShapeCheck: each WS-16 mutant leaves out one member rule of the request shape; the
// frame is let through when it breaks only that rule.
func mutantSkipsShapeCheck(req proto.WorkspaceWritePayload) bool {
	switch {
	case mutation.On(mutation.WriteBeginPathUnchecked) && req.Step == proto.StepBegin:
		req.Path = "unchecked.txt"
	case mutation.On(mutation.WriteSizeUnbounded) && req.Step == proto.StepBegin && req.SizeBytes > proto.TransferMaxBytes:
		req.SizeBytes = 0
	case mutation.On(mutation.WriteChunkDataUnbounded) && req.Step == proto.StepChunk && len(req.Data) > proto.TransferChunkBytes:
		req.Data = req.Data[:1]
	default:
		return false
	}
	return req.Validate() == nil
}

func (m *Machine) beginWrite(env proto.Envelope, req *proto.WorkspaceWritePayload, now time.Time, host Host) []Effect {
	if w := m.write; w != nil {
		if w.id == env.ID {
			return nil // WS-19: a repeated begin is not a second write
		}
		return writeRejected(env.ID, env.Trace, proto.CodeWriteCapacity) // WS-19
	}
	blocked := m.export != nil || len(m.reads) > 0 || host.WriteBlocked(req.EnvironmentID, req.SessionID) != ""
	if blocked && !mutation.On(mutation.WriteBeginWhileBusy) {
		return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-20
	}
	m.write = &write{id: env.ID, path: req.Path, sha256: req.SHA256, size: req.SizeBytes,
		deadline: now.Add(WriteBodyDeadline), digest: sha256.New()}
	m.write.body.Grow(int(req.SizeBytes)) // at most 50 MiB, declared and validated: one allocation
	return writeReply(env.ID, env.Trace, proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReady})
}

// current is the write a chunk or commit names, if it is the connection's write.
func (m *Machine) current(id string) *write {
	if m.write != nil && m.write.id == id {
		return m.write
	}
	return nil
}

func (m *Machine) chunk(env proto.Envelope, req *proto.WorkspaceWritePayload) []Effect {
	w := m.current(env.ID)
	switch {
	case w == nil:
		return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-20
	case w.owned:
		return writeReply(env.ID, env.Trace, unconfirmedWrite())
	case (req.Offset != int64(w.body.Len()) && !mutation.On(mutation.WriteOffsetNotChecked)), req.Offset+int64(len(req.Data)) > w.size && !mutation.On(mutation.WriteOffsetNotChecked):
		m.write = nil // a gap, a repeat or an overflow closes the write; nothing is installed
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	}
	w.body.Write(req.Data)
	w.digest.Write(req.Data)
	return writeReply(env.ID, env.Trace, proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReceived, Offset: int64(w.body.Len())})
}

func (m *Machine) commit(env proto.Envelope) []Effect {
	w := m.current(env.ID)
	switch {
	case w == nil:
		return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-20
	case w.owned:
		return writeReply(env.ID, env.Trace, unconfirmedWrite())
	case int64(w.body.Len()) != w.size,
		hex.EncodeToString(w.digest.Sum(nil)) != w.sha256 && !mutation.On(mutation.WriteSHANotChecked):
		m.write = nil // WS-21: an incomplete or corrupted body never reaches the installer
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	}
	res := install(m.FS, w.path, w.body.Bytes())
	if res.Outcome == proto.OutcomeUnknown && !mutation.On(mutation.WriteUnconfirmedReleases) {
		w.owned = true // WS-22: the outcome is unknown, so the write keeps the Environment
		w.body = bytes.Buffer{}
	} else {
		m.write = nil
	}
	return writeReply(env.ID, env.Trace, res)
}

// install runs the native writer and maps its end (WS-22).
func install(fs FS, path string, body []byte) proto.WorkspaceWriteResultPayload {
	err := fs.WriteFile(path, body)
	switch {
	case err == nil:
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeCompleted, SizeBytes: int64(len(body))}
	case errors.Is(err, ErrIsDirectory):
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeWriteRejected,
			Reason: proto.WriteReasonDestinationDirectory}
	case errors.Is(err, ErrSymlink), errors.Is(err, ErrNotDirectory), errors.Is(err, ErrNotFile):
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeWriteRejected,
			Reason: proto.WriteReasonUnsafeDestination}
	}
	return unconfirmedWrite()
}
