package daemon_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// The digest of a body of many chunks, hashed beside the next chunk (prepareEffects), is complete
// when the commit reads it: a body whose last byte differs from the begin's SHA-256 is rejected
// invalid_request at commit, the same body with its own digest completes. Run with -race, it also
// holds the hashing goroutine to the commit's read.
func TestManyChunkDigestIsCompleteAtCommit(t *testing.T) {
	s := startDaemon(t)
	body := make([]byte, 5*proto.TransferChunkBytes+777)
	for i := range body {
		body[i] = byte(i * 31 / 7)
	}
	sum := sha256.Sum256(body)
	good := hex.EncodeToString(sum[:])
	sum[len(sum)-1] ^= 1
	bad := hex.EncodeToString(sum[:])
	env, session := "0b6f5b2e-3c1a-4d7e-9f00-000000000001", "0b6f5b2e-3c1a-4d7e-9f00-000000000002"
	isResult := isType(proto.TypeRuntimePrepareResult)
	for i, c := range []struct{ digest, outcome, code string }{
		{bad, proto.OutcomeRejected, proto.CodeInvalidRequest},
		{good, proto.OutcomeCompleted, ""},
	} {
		id := fmt.Sprintf("0b6f5b2e-3c1a-4d7e-9f00-%012x", 0x200+i)
		s.send(proto.TypeRuntimePrepare, id, map[string]any{"step": "begin", "environment_id": env, "session_id": session,
			"action": "file", "file": map[string]any{"path": "/workspace/body.bin"}, "size_bytes": len(body), "sha256": c.digest})
		if p := decodeResult(t, s.until(proto.OutcomeReady, isResult).env); p.Outcome != proto.OutcomeReady {
			t.Fatalf("begin: %+v", p)
		}
		for off := 0; off < len(body); off += proto.TransferChunkBytes {
			end := min(off+proto.TransferChunkBytes, len(body))
			s.send(proto.TypeRuntimePrepare, id, map[string]any{"step": "chunk", "offset": off, "data": body[off:end]})
			if p := decodeResult(t, s.until(proto.OutcomeReceived, isResult).env); p.Outcome != proto.OutcomeReceived || p.Offset != int64(end) {
				t.Fatalf("chunk at %d: %+v, want received offset %d", off, p, end)
			}
		}
		s.send(proto.TypeRuntimePrepare, id, map[string]any{"step": "commit"})
		if p := decodeResult(t, s.until(c.outcome, isResult).env); p.Outcome != c.outcome || p.ErrorCode != c.code {
			t.Fatalf("commit with digest %s…: %+v, want %s %s", c.digest[:8], p, c.outcome, c.code)
		}
	}
}

func decodeResult(t *testing.T, env proto.Envelope) proto.RuntimePrepareResultPayload {
	t.Helper()
	p, err := proto.Decode[proto.RuntimePrepareResultPayload](env)
	if err != nil {
		t.Fatal(err)
	}
	return *p
}
