package proto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bulkFrames are chunk frames as encoding/json writes them, of every bulk type, with the offset
// both omitted and present and every padding length.
func bulkFrames(t testing.TB) [][]byte {
	rng := rand.New(rand.NewPCG(7, 7))
	var out [][]byte
	for _, n := range []int{1, 2, 3, 4, 64, 1000, TransferChunkBytes} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(rng.UintN(256))
		}
		const id = "3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a"
		for _, offset := range []int64{0, int64(n), 50 << 20} {
			for _, env := range []Envelope{
				marshalled(t, TypeRuntimePrepare, id, &RuntimePreparePayload{Step: StepChunk, Offset: offset, Data: data}),
				marshalled(t, TypeWorkspaceWrite, id, &WorkspaceWritePayload{Step: StepChunk, Offset: offset, Data: data}),
				marshalled(t, TypeWorkspaceExportResult, "export-1", &WorkspaceExportResultPayload{Outcome: OutcomeChunk, Offset: offset, Data: data}),
			} {
				raw, err := json.Marshal(env)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, raw)
			}
		}
	}
	return out
}

// marshalled is the envelope encoding/json makes of payload (NewEnvelope without its fast path).
func marshalled(t testing.TB, typ, id string, payload any) Envelope {
	raw, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return Envelope{Type: typ, ID: id, Payload: raw}
}

// The fast path is taken by what the reference sides send: otherwise the benchmark measures the
// general path and the fast path is dead code.
func TestBulkFramesTakeTheFastPath(t *testing.T) {
	for _, raw := range bulkFrames(t) {
		env, ok := decodeBulkEnvelope(raw)
		if !ok {
			t.Fatalf("the fast path refused %.120s…", raw)
		}
		spec, _ := Lookup(env.Type)
		if _, ok := decodeBulkPayload(spec, env.Payload); !ok {
			t.Fatalf("the fast path refused the payload of %.120s…", raw)
		}
		if _, err := ParseFrame(raw); err == nil {
			if _, ok := ParseBulkFrame(raw); !ok {
				t.Fatalf("ParseBulkFrame refused %.120s…", raw)
			}
		}
	}
}

// Frames near the canonical form that the fast path must leave to the general path: it would
// decode some of them differently, refuse others, or accept them where the general path refuses.
func TestBulkFastPathLeavesTheRestToTheGeneralPath(t *testing.T) {
	const head = `{"type":"runtime_prepare","id":"3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a","payload":`
	for _, payload := range []string{
		`{"step":"chunk","offset":0,"data":"AAAA"}`, // encoding/json omits a 0 offset
		`{"step":"chunk","offset":01,"data":"AAAA"}`,
		`{"step":"chunk","offset":-1,"data":"AAAA"}`,
		`{"step":"chunk","offset":9223372036854775808,"data":"AAAA"}`,
		`{"step":"chunk","data":""}`,
		`{"step":"chunk","data":"AAA"}`,
		`{"step":"chunk","data":"AA=A"}`,
		`{"step":"chunk","data":"AA\/A"}`,
		"{\"step\":\"chunk\",\"data\":\"AA\nAA\"}",
		`{"step":"chunk", "data":"AAAA"}`,
		`{"data":"AAAA","step":"chunk"}`,
		`{"step":"chunk","data":"AAAA","trace":"x"}`,
		`{"step":"chunk","data":"AA"AA"}`, // not JSON: the unscanned split must not let it through
		`{"step":"chunk","data":"AA\u0041"}`,
		"{\"step\":\"chunk\",\"data\":\"AA\x01A\"}",
	} {
		raw := []byte(head + payload + "}")
		if _, ok := decodeBulkEnvelope(raw); ok {
			t.Errorf("the fast path took %s", payload)
		}
		if _, ok := ParseBulkFrame(raw); ok {
			t.Errorf("ParseBulkFrame took %s", payload)
		}
		spec, _ := Lookup(TypeRuntimePrepare)
		if _, ok := decodeBulkPayload(spec, []byte(payload)); ok {
			t.Errorf("the fast path decoded the payload %s", payload)
		}
	}
}

// Whatever the fast path accepts, the general path accepts and decodes to the same value.
func FuzzBulkFastPath(f *testing.F) {
	for _, raw := range bulkFrames(f) {
		if len(raw) < 4096 {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"type":"workspace_write","id":"x","payload":{"step":"chunk","offset":7,"data":"QUJD"}}`))
	f.Add([]byte(`{"type":"workspace_export_result","id":"e","payload":{"outcome":"chunk","offset":0,"data":"QQ=="}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if fast, ok := decodeBulkEnvelope(data); ok {
			var general Envelope
			if err := general.unmarshalGeneral(bytes.TrimSpace(data)); err != nil {
				t.Fatalf("the fast path accepted %q, the general path refuses it: %v", data, err)
			}
			if d := cmp.Diff(general, fast); d != "" {
				t.Fatalf("the fast path decodes %q differently (-general +fast):\n%s", data, d)
			}
		}
		if fast, ok := ParseBulkFrame(data); ok {
			general, err := parseFrameGeneral(data)
			if err != nil {
				t.Fatalf("ParseBulkFrame accepted %q, the general path refuses it: %v", data, err)
			}
			if d := cmp.Diff(general.Envelope, fast.Envelope); d != "" {
				t.Fatalf("ParseBulkFrame splits %q differently (-general +fast):\n%s", data, d)
			}
			if d := cmp.Diff(general.Payload, fast.Payload); d != "" {
				t.Fatalf("ParseBulkFrame decodes the payload of %q differently (-general +fast):\n%s", data, d)
			}
		}
		// Into a reused buffer (dirty, large enough for a short chunk but not a long one): the same
		// frame as into a new one.
		dirty := bytes.Repeat([]byte{0xAA}, 48)
		if into, ok := ParseBulkFrameInto(data, dirty); ok {
			fresh, _ := ParseBulkFrame(data)
			if d := cmp.Diff(fresh.Payload, into.Payload); d != "" || fresh.Envelope.Type != into.Envelope.Type {
				t.Fatalf("ParseBulkFrameInto decodes %q differently (-new buffer +reused):\n%s", data, d)
			}
		}
		for _, typ := range []string{TypeRuntimePrepare, TypeWorkspaceWrite, TypeWorkspaceExportResult} {
			spec, _ := Lookup(typ)
			if fast, ok := decodeBulkPayload(spec, data); ok {
				general := spec.NewPayload()
				if err := decodeShaped(data, general, spec.Strict); err != nil {
					t.Fatalf("the fast path accepted the %s payload %q, the general path refuses it: %v", typ, data, err)
				}
				if d := cmp.Diff(general, fast); d != "" {
					t.Fatalf("the fast path decodes the %s payload %q differently (-general +fast):\n%s", typ, data, d)
				}
			}
		}
	})
}

// parseFrameGeneral is ParseFrame by the general path alone: the envelope by encoding/json's
// rules, the payload by the shape layer.
func parseFrameGeneral(data []byte) (*Frame, error) {
	var env Envelope
	if err := env.unmarshalGeneral(bytes.TrimSpace(data)); err != nil {
		return nil, err
	}
	spec, ok := Lookup(env.Type)
	if !ok {
		return nil, fmt.Errorf("unknown type %q", env.Type)
	}
	v := spec.NewPayload()
	if err := decodeShaped(env.Payload, v, spec.Strict); err != nil {
		return nil, err
	}
	return spec.frame(env, v)
}

// The fast encoders write exactly what encoding/json writes, byte for byte.
func FuzzBulkEncoding(f *testing.F) {
	f.Add(uint8(0), "3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a", int64(0), []byte("a"))
	f.Add(uint8(1), "id", int64(65536), []byte{0, 255, 7})
	f.Add(uint8(2), "e<1>&", int64(-1), []byte("xyz"))
	f.Add(uint8(2), "e", int64(0), []byte{})
	f.Fuzz(func(t *testing.T, which uint8, id string, offset int64, data []byte) {
		var typ string
		var payload any
		switch which % 3 {
		case 0:
			typ, payload = TypeRuntimePrepare, &RuntimePreparePayload{Step: StepChunk, Offset: offset, Data: data}
		case 1:
			typ, payload = TypeWorkspaceWrite, &WorkspaceWritePayload{Step: StepChunk, Offset: offset, Data: data}
		default:
			typ, payload = TypeWorkspaceExportResult, &WorkspaceExportResultPayload{Outcome: OutcomeChunk, Offset: offset, Data: data}
		}
		want := marshalled(t, typ, id, payload)
		if fast, ok := encodeBulkPayload(payload); ok && !bytes.Equal(fast, want.Payload) {
			t.Fatalf("payload:\nencoding/json %s\nfast          %s", want.Payload, fast)
		}
		wantFrame, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if fast, ok := encodeBulkEnvelope(want); ok && !bytes.Equal(fast, wantFrame) {
			t.Fatalf("frame:\nencoding/json %s\nfast          %s", wantFrame, fast)
		}
		env, raw, err := EncodeFrame(typ, id, "", payload)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, env); d != "" || !bytes.Equal(raw, wantFrame) {
			t.Fatalf("EncodeFrame (-encoding/json +fast):\n%s\nframe:\nencoding/json %s\nfast          %s", d, wantFrame, raw)
		}
	})
}

// EncodeFrame gives what NewEnvelope and Encode give, on the fast path or not: a trace, a chunk
// payload under another form's type, an id encoding/json escapes.
func TestEncodeFrameIsNewEnvelopeThenEncode(t *testing.T) {
	const id = "3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a"
	chunk := &RuntimePreparePayload{Step: StepChunk, Offset: 65536, Data: []byte("chunk")}
	for _, c := range []struct {
		typ, id, trace string
		payload        any
		fast           bool
	}{
		{TypeRuntimePrepare, id, "", chunk, true},
		{TypeWorkspaceWrite, id, "", chunk, true}, // the same form: encodeBulkEnvelope takes it too
		{TypeRuntimePrepare, id, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", chunk, false},
		{TypeWorkspaceExportResult, "export-1", "", chunk, false},
		{TypeRuntimePrepare, "a<b", "", chunk, false},
		{TypeRuntimePrepare, "", "", chunk, false},
		{TypeRuntimePrepare, id, "", &RuntimePreparePayload{Step: StepCommit}, false},
		{TypeHeartbeat, "", "", &HeartbeatPayload{TS: 1}, false},
	} {
		want, err := NewEnvelope(c.typ, c.id, c.payload)
		if err != nil {
			t.Fatal(err)
		}
		want.Trace = c.trace
		wantRaw, err := want.Encode()
		if err != nil {
			t.Fatal(err)
		}
		env, raw, err := EncodeFrame(c.typ, c.id, c.trace, c.payload)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, env); d != "" || !bytes.Equal(raw, wantRaw) {
			t.Errorf("%s %q trace %q (-NewEnvelope +EncodeFrame):\n%s\n%s\n%s", c.typ, c.id, c.trace, d, wantRaw, raw)
		}
		if c.trace == "" {
			if _, _, fast := encodeBulkFrame(c.typ, c.id, c.payload); fast != c.fast {
				t.Errorf("%s %q: fast path %v, want %v", c.typ, c.id, fast, c.fast)
			}
		}
	}
}

// What the reference sides encode takes the fast encoders.
func TestBulkFramesAreEncodedFast(t *testing.T) {
	p := &RuntimePreparePayload{Step: StepChunk, Offset: 65536, Data: []byte("chunk")}
	raw, ok := encodeBulkPayload(p)
	if !ok {
		t.Fatal("a chunk payload was not encoded fast")
	}
	if _, ok := encodeBulkEnvelope(Envelope{Type: TypeRuntimePrepare, ID: "3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a", Payload: raw}); !ok {
		t.Fatal("a chunk frame was not encoded fast")
	}
}

// ParseBulkFrame's decoded bytes survive the reuse of the read buffer (its raw payload does not).
func TestParseBulkFrameDecodedDataOwnsItsBytes(t *testing.T) {
	p := &RuntimePreparePayload{Step: StepChunk, Offset: 3, Data: []byte("staged bytes")}
	raw, err := MustEnvelope(TypeRuntimePrepare, "3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a", p).Encode()
	if err != nil {
		t.Fatal(err)
	}
	f, ok := ParseBulkFrame(raw)
	if !ok {
		t.Fatalf("ParseBulkFrame refused %s", raw)
	}
	clear(raw) // the transport reads the next frame into the same buffer
	if d := cmp.Diff(p, f.Payload); d != "" {
		t.Fatalf("the decoded payload changed with the buffer (-sent +decoded):\n%s", d)
	}
}
