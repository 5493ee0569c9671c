package daemon_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// BenchmarkRuntimePrepare50MiB: one 50 MiB file transfer through the reference daemon's
// runtime_prepare over loopback, as the spec's Core sends it: begin, ready, then each 64 KiB chunk
// awaits its received receipt, then commit awaits completed (which includes writing the file into
// the Environment atomically and syncing it). b.SetBytes makes the result MB/s.
func BenchmarkRuntimePrepare50MiB(b *testing.B) {
	verifyNoLeaks(b)
	s := startDaemon(b)
	body := make([]byte, proto.TransferMaxBytes)
	_, _ = rand.Read(body)
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	env, session := "0b6f5b2e-3c1a-4d7e-9f00-000000000001", "0b6f5b2e-3c1a-4d7e-9f00-000000000002"
	isResult := isType(proto.TypeRuntimePrepareResult)
	expect := func(outcome string) proto.RuntimePrepareResultPayload {
		f := s.until(outcome, isResult)
		p, err := proto.Decode[proto.RuntimePrepareResultPayload](f.env)
		if err != nil || p.Outcome != outcome {
			b.Fatalf("want %s, got %+v (%v)", outcome, p, err)
		}
		return *p
	}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for i := range b.N {
		id := fmt.Sprintf("0b6f5b2e-3c1a-4d7e-9f00-%012x", 0x100+i)
		s.send(proto.TypeRuntimePrepare, id, map[string]any{"step": "begin", "environment_id": env, "session_id": session,
			"action": "file", "file": map[string]any{"path": "/workspace/big.bin"}, "size_bytes": len(body), "sha256": digest})
		expect(proto.OutcomeReady)
		for off := 0; off < len(body); off += proto.TransferChunkBytes {
			end := min(off+proto.TransferChunkBytes, len(body))
			s.send(proto.TypeRuntimePrepare, id, map[string]any{"step": "chunk", "offset": off, "data": body[off:end]})
			if got := expect(proto.OutcomeReceived); got.Offset != int64(end) {
				b.Fatalf("received offset %d, want %d", got.Offset, end)
			}
		}
		s.send(proto.TypeRuntimePrepare, id, map[string]any{"step": "commit"})
		if got := expect(proto.OutcomeCompleted); got.SizeBytes != int64(len(body)) {
			b.Fatalf("completed size %d, want %d", got.SizeBytes, len(body))
		}
	}
}
