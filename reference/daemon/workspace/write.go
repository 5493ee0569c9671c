package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
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
	if !proto.CanonicalUUID(env.ID) && !mutantWriteID(env.ID) {
		if !uuidShaped(env.ID) && mutation.On(mutation.WSWriteBadIDAnswered) {
			return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
		}
		return nil // WS-18: nothing to correlate an answer with
	}
	req, err := decodeWrite(env)
	if err != nil {
		if m.write != nil && m.write.id == env.ID && !mutation.On(mutation.WriteMalformedPendingAnswered) {
			return nil // WS-18: an answer could read as the pending write's result
		}
		if mutation.On(mutation.WSWriteMalformedUnknownSilent) {
			return nil
		}
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	}
	if m.FS == nil {
		if mutation.On(mutation.WSWriteUnsupportedWrongCode) {
			return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable)
		}
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

// uuidShaped: a UUID in any case, the nil UUID included.
func uuidShaped(id string) bool {
	lower := strings.ToLower(id)
	return proto.CanonicalUUID(lower) || lower == proto.NilUUID
}

// mutantWriteID: the WS-18 mutants that take an id that is not a canonical non-nil UUID.
func mutantWriteID(id string) bool {
	switch {
	case id != strings.ToLower(id) && proto.CanonicalUUID(strings.ToLower(id)):
		return mutation.On(mutation.WSWriteUpperCaseIDAccepted)
	case id == proto.NilUUID:
		return mutation.On(mutation.WSWriteNilIDAccepted)
	}
	return false
}

func decodeWrite(env proto.Envelope) (*proto.WorkspaceWritePayload, error) {
	spec, _ := proto.Lookup(proto.TypeWorkspaceWrite)
	v, err := decodePayload(spec, env.Payload, mutation.WSWritePayloadAtLimitRefused, mutation.WSWritePayloadOverLimitAccepted, "")
	if err != nil {
		return nil, err
	}
	req := v.(*proto.WorkspaceWritePayload)
	return req, writeShape(*req, req.Validate())
}

func (m *Machine) beginWrite(env proto.Envelope, req *proto.WorkspaceWritePayload, now time.Time, host Host) []Effect {
	if w := m.write; w != nil {
		switch {
		case w.id == env.ID && !w.owned && mutation.On(mutation.WSWriteRepeatedBeginAnswered):
			return writeReply(env.ID, env.Trace, proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReady})
		case w.id == env.ID:
			return nil // WS-19: a repeated begin is not a second write
		case !w.owned && mutation.On(mutation.WSWriteSecondBeginWrongCode):
			return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable)
		}
		return writeRejected(env.ID, env.Trace, proto.CodeWriteCapacity) // WS-19
	}
	if m.slotHeld {
		return writeRejected(env.ID, env.Trace, proto.CodeWriteCapacity) // a mutant's: WS-19.4
	}
	switch {
	case m.export != nil && !mutation.On(mutation.WSWriteBeginDuringExport),
		len(m.reads) > 0 && !mutation.On(mutation.WSWriteBeginDuringRead),
		host.WriteBlocked(req.EnvironmentID, req.SessionID) != "":
		return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-20
	}
	bound := WriteBodyDeadline
	if mutation.On(mutation.WSWriteBodyBoundEarly) {
		bound /= 2
	}
	m.write = &write{id: env.ID, path: req.Path, sha256: req.SHA256, size: req.SizeBytes,
		deadline: now.Add(bound), digest: sha256.New()}
	m.lastWrite = env.ID
	m.write.body.Grow(int(max(req.SizeBytes, 0))) // at most 50 MiB, declared and validated: one allocation
	return writeReply(env.ID, env.Trace, proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReady})
}

// current is the write a chunk or commit names, if it is the connection's write.
func (m *Machine) current(id string) *write {
	if m.write != nil && m.write.id == id {
		return m.write
	}
	return nil
}

// unknownWrite answers a chunk or commit naming no write in progress (WS-20.10 to .12).
func (m *Machine) unknownWrite(env proto.Envelope, step string) []Effect {
	switch {
	case env.ID == m.lastWrite && mutation.On(mutation.WSWriteEndedStepInvalid),
		step == proto.StepCommit && env.ID != m.lastWrite && mutation.On(mutation.WSWriteUnknownCommitInvalid):
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	case step == proto.StepChunk && env.ID != m.lastWrite && mutation.On(mutation.WSWriteUnknownChunkSilent):
		return nil
	}
	return writeRejected(env.ID, env.Trace, proto.CodeResourceUnavailable) // WS-20
}

func (m *Machine) chunk(env proto.Envelope, req *proto.WorkspaceWritePayload) []Effect {
	w := m.current(env.ID)
	switch {
	case w == nil:
		return m.unknownWrite(env, proto.StepChunk)
	case w.owned:
		return writeReply(env.ID, env.Trace, unconfirmedWrite())
	case req.Offset != int64(w.body.Len()) && !mutation.On(mutation.WriteOffsetNotChecked),
		req.Offset+int64(len(req.Data)) > w.size && !mutation.On(mutation.WSWriteOverflowAppended):
		m.write = nil // a gap, a repeat or an overflow closes the write; nothing is installed
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	}
	w.body.Write(req.Data)
	w.digest.Write(req.Data)
	res := proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeReceived, Offset: int64(w.body.Len())}
	if mutation.On(mutation.WSWriteReceivedOffsetBefore) {
		res.Offset = req.Offset
	}
	if mutation.On(mutation.WSWriteReceiptOutcomeChunk) {
		res.Outcome = proto.OutcomeChunk
	}
	return writeReply(env.ID, env.Trace, res)
}

func (m *Machine) commit(env proto.Envelope) []Effect {
	w := m.current(env.ID)
	switch {
	case w == nil && env.ID == m.done.id && mutation.On(mutation.WSWriteCommitReplayed):
		return writeReply(env.ID, env.Trace, proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeCompleted, SizeBytes: m.done.size})
	case w == nil:
		return m.unknownWrite(env, proto.StepCommit)
	case w.owned:
		return writeReply(env.ID, env.Trace, unconfirmedWrite())
	case int64(w.body.Len()) != w.size && !(int64(w.body.Len()) < w.size && mutation.On(mutation.WSWriteShortBodyInstalled)):
		m.write = nil // WS-21: an incomplete body never reaches the installer
		return writeRejected(env.ID, env.Trace, proto.CodeInvalidRequest)
	case hex.EncodeToString(w.digest.Sum(nil)) != w.sha256 && !mutation.On(mutation.WriteSHANotChecked):
		m.write = nil // WS-21: nor does a corrupted one
		res := proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeInvalidRequest}
		if mutation.On(mutation.WSWriteRejectionReasonDetail) {
			res.Reason = "digest_mismatch"
		}
		return writeReply(env.ID, env.Trace, res)
	}
	res := install(m.FS, w.path, w.body.Bytes())
	switch {
	case res.Outcome == proto.OutcomeUnknown && mutation.On(mutation.WriteUnconfirmedReleases):
		m.write, m.envHeld = nil, true // the write slot is let go; the Environment stays busy
	case res.Outcome == proto.OutcomeUnknown:
		w.owned = true // WS-22: the outcome is unknown, so the write keeps the Environment
		w.body = bytes.Buffer{}
	default:
		m.write = nil
	}
	switch {
	case res.Outcome == proto.OutcomeCompleted:
		m.done.id, m.done.size = w.id, res.SizeBytes
		if mutation.On(mutation.WSCompletedWriteHoldsEnvironment) {
			m.envHeld = true
		}
		if mutation.On(mutation.WSWriteCompletedWithoutSize) {
			res.SizeBytes = 0
		}
	case res.Outcome == proto.OutcomeRejected && mutation.On(mutation.WSWriteRejectedHoldsSlot):
		m.slotHeld = true
	}
	return writeReply(env.ID, env.Trace, res)
}

// install runs the native writer and maps its end (WS-22).
func install(fs FS, path string, body []byte) proto.WorkspaceWriteResultPayload {
	err := fs.WriteFile(path, body)
	switch {
	case err == nil:
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeCompleted, SizeBytes: int64(len(body))}
	case errors.Is(err, ErrIsDirectory) && mutation.On(mutation.WSWriteDirectoryUnsafe):
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeWriteRejected,
			Reason: proto.WriteReasonUnsafeDestination}
	case errors.Is(err, ErrIsDirectory):
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeWriteRejected,
			Reason: proto.WriteReasonDestinationDirectory}
	case errors.Is(err, ErrSymlink), errors.Is(err, ErrNotDirectory), errors.Is(err, ErrNotFile):
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeWriteRejected,
			Reason: proto.WriteReasonUnsafeDestination}
	}
	if mutation.On(mutation.WSWriteUnconfirmedRejected) {
		return proto.WorkspaceWriteResultPayload{Outcome: proto.OutcomeRejected, ErrorCode: proto.CodeWriteRejected}
	}
	return unconfirmedWrite()
}
