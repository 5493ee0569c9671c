package proto_test

import (
	"encoding/json"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// Decode + validate (ParseFrame) of the frames a busy connection carries most, and the two 64 KiB
// transfer chunks. The Baseline benchmarks decode the same bytes with a plain json.Unmarshal into
// the envelope and payload structs, with no shape or rule checks: the ratio is the cost of the
// shape layer and the rules. Numbers are recorded in docs/performance.md.
//
//	go test -run '^$' -bench . -benchmem -count=5 ./proto

var (
	benchDelta       = []byte(`{"type":"delta","id":"run-7f3a","payload":{"item_id":"msg-01","delta":"The quick brown fox jumps over the lazy dog. ","sequence":1842},"trace":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`)
	benchStatus      = []byte(`{"type":"preparation_status","id":"prep-9c1d","payload":{"executor_id":"exec-5e4f","handle":"handle-2e3f4a5b","revision":4,"state":"started","expires_at":1800000000000,"run_id":"run-7f3a"}}`)
	benchPrepChunk   = chunkFrame(proto.TypeRuntimePrepare)
	benchWriteChunk  = chunkFrame(proto.TypeWorkspaceWrite)
	benchChunkBytes  = int64(proto.TransferChunkBytes)
	benchSinkPayload proto.Validator
)

// chunkFrame is a transfer chunk carrying 64 KiB of data, as Core sends it.
func chunkFrame(typ string) []byte {
	data := make([]byte, proto.TransferChunkBytes)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var payload any = &proto.RuntimePreparePayload{Step: proto.StepChunk, Offset: 3 << 16, Data: data}
	if typ == proto.TypeWorkspaceWrite {
		payload = &proto.WorkspaceWritePayload{Step: proto.StepChunk, Offset: 3 << 16, Data: data}
	}
	raw, err := proto.MustEnvelope(typ, transferID, payload).Encode()
	if err != nil {
		panic(err)
	}
	return raw
}

func benchParse(b *testing.B, frame []byte, bytes int64) {
	if _, err := proto.ParseFrame(frame); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	if bytes > 0 {
		b.SetBytes(bytes)
	}
	for b.Loop() {
		f, err := proto.ParseFrame(frame)
		if err != nil {
			b.Fatal(err)
		}
		benchSinkPayload = f.Payload
	}
}

// benchBaseline decodes the envelope and then the payload with plain json.Unmarshal.
func benchBaseline[T any](b *testing.B, frame []byte, bytes int64) {
	b.ReportAllocs()
	if bytes > 0 {
		b.SetBytes(bytes)
	}
	for b.Loop() {
		var env struct {
			Type    string          `json:"type"`
			ID      string          `json:"id"`
			Payload json.RawMessage `json:"payload"`
			Trace   string          `json:"trace"`
		}
		if err := json.Unmarshal(frame, &env); err != nil {
			b.Fatal(err)
		}
		p := new(T)
		if err := json.Unmarshal(env.Payload, p); err != nil {
			b.Fatal(err)
		}
		benchSinkPayload = nil
	}
}

func BenchmarkParseFrameDelta(b *testing.B)             { benchParse(b, benchDelta, 0) }
func BenchmarkParseFramePreparationStatus(b *testing.B) { benchParse(b, benchStatus, 0) }
func BenchmarkParseFrameRuntimePrepareChunk64K(b *testing.B) {
	benchParse(b, benchPrepChunk, benchChunkBytes)
}
func BenchmarkParseFrameWorkspaceWriteChunk64K(b *testing.B) {
	benchParse(b, benchWriteChunk, benchChunkBytes)
}

func BenchmarkBaselineUnmarshalDelta(b *testing.B) {
	benchBaseline[proto.DeltaPayload](b, benchDelta, 0)
}
func BenchmarkBaselineUnmarshalPreparationStatus(b *testing.B) {
	benchBaseline[proto.PreparationStatusPayload](b, benchStatus, 0)
}
func BenchmarkBaselineUnmarshalRuntimePrepareChunk64K(b *testing.B) {
	benchBaseline[proto.RuntimePreparePayload](b, benchPrepChunk, benchChunkBytes)
}
func BenchmarkBaselineUnmarshalWorkspaceWriteChunk64K(b *testing.B) {
	benchBaseline[proto.WorkspaceWritePayload](b, benchWriteChunk, benchChunkBytes)
}
