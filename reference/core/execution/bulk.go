package execution

import (
	"bytes"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
)

// The journal keeps every frame that moves ownership or settles an outcome, committed before Core
// acts on it. The bulk steps of a transfer are not journalled one by one: a chunk Core sent, the
// received that confirms it and an export's next and chunk carry no ownership, a receipt proves
// staged bytes only (RP-26) and Core never replays any of them. Journalling each in its own
// fsynced transaction cost a 50 MiB transfer 1,600 commits (docs/performance.md "Bulk
// transfers"); the journal holds each transfer's begin, commit and outcome, and the bytes
// confirmed are in the outcome's record.

// bulkSent reports whether a frame Core sent is a bulk step. Core encodes these payloads itself,
// step first, so the prefix says it without decoding a 64 KiB chunk.
func bulkSent(env proto.Envelope) bool {
	switch env.Type {
	case proto.TypeRuntimePrepare, proto.TypeWorkspaceWrite:
		return bytes.HasPrefix(env.Payload, []byte(`{"step":"chunk"`))
	case proto.TypeWorkspaceExport:
		return bytes.HasPrefix(env.Payload, []byte(`{"step":"next"`))
	}
	return false
}

// bulkReceived reports whether a valid frame Core received is a bulk step.
func bulkReceived(ev gateway.Event) bool {
	if ev.Invalid != nil || ev.Frame == nil {
		return false
	}
	switch p := ev.Frame.Payload.(type) {
	case *proto.RuntimePrepareResultPayload:
		return p.Outcome == proto.OutcomeReceived
	case *proto.WorkspaceWriteResultPayload:
		return p.Outcome == proto.OutcomeReceived
	case *proto.WorkspaceExportResultPayload:
		return p.Outcome == proto.OutcomeChunk
	}
	return false
}
