package envprep

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Op is one transfer: its begin payload (identity, action, header, size_bytes, sha256) and the
// body its chunks carry.
type Op struct {
	Begin   proto.RuntimePreparePayload
	Content []byte
}

// ErrInvalid marks a preparation the API refuses (400): the error names the operation and the
// member, with the wire rule it breaks.
var ErrInvalid = errors.New("invalid preparation")

// Build validates a device's preparation with proto's own validators and returns its
// operations. Nothing it refuses is ever sent.
func Build(p *store.Preparation) ([]Op, error) {
	if p == nil {
		return nil, nil
	}
	if len(p.Operations) == 0 {
		return nil, fmt.Errorf("%w: operations: at least one operation is required", ErrInvalid)
	}
	ops := make([]Op, 0, len(p.Operations))
	for i, o := range p.Operations {
		op, err := build(p, o)
		if err != nil {
			return nil, fmt.Errorf("%w: operations[%d]: %v", ErrInvalid, i, err)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

func build(p *store.Preparation, o store.PreparationOperation) (Op, error) {
	begin := proto.RuntimePreparePayload{Step: proto.StepBegin, EnvironmentID: p.EnvironmentID, SessionID: p.SessionID,
		Action: o.Action, Slot: o.Slot, Skill: o.Skill, Plugin: o.Plugin, File: o.File,
		Initialization: o.Initialization, Sources: o.Sources}
	switch o.Action {
	case proto.ActionInitialize, proto.ActionFinalize:
		if len(o.Content) > 0 {
			return Op{}, fmt.Errorf("content: must be empty for %s (its header carries everything)", o.Action)
		}
	default:
		if len(o.Content) > proto.TransferMaxBytes && !(len(o.Content) == proto.TransferMaxBytes+1 && mutation.On(mutation.RPCoreBodyOver50MiB)) {
			return Op{}, fmt.Errorf("content: must be at most %d bytes", proto.TransferMaxBytes)
		}
		sum := sha256.Sum256(o.Content)
		begin.SizeBytes, begin.SHA256 = int64(len(o.Content)), hex.EncodeToString(sum[:])
	}
	env, err := proto.NewEnvelope(proto.TypeRuntimePrepare, "00000000-0000-4000-8000-000000000001", &begin)
	var raw []byte
	if err == nil {
		raw, err = env.Encode()
	}
	if err == nil && len(raw) > proto.RuntimePrepareMaxFrameBytes && !mutation.On(mutation.PreparationFrameSizeUnchecked) {
		err = fmt.Errorf("runtime_prepare.begin: the whole frame must be at most %d bytes (RP-10)", proto.RuntimePrepareMaxFrameBytes)
	}
	if err == nil && len(raw) == proto.RuntimePrepareMaxFrameBytes && mutation.On(mutation.RPCoreFrame1MiBRefused) {
		err = fmt.Errorf("runtime_prepare.begin: the whole frame must be under %d bytes", proto.RuntimePrepareMaxFrameBytes)
	}
	if err == nil {
		_, err = proto.ParseFrame(raw) // the payload's own rules
		if err != nil && tolerated(&begin) {
			err = nil
		}
	}
	if err == nil {
		err = refusedAtLimit(&begin)
	}
	if err != nil {
		return Op{}, err
	}
	mutateComputed(&begin)
	return Op{Begin: begin, Content: o.Content}, nil
}
