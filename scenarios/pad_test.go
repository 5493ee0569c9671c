package scenarios

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

// A padded payload is exactly n bytes, still JSON, and decodes to the value it was.
func TestPadPayload(t *testing.T) {
	for _, c := range []struct {
		in string
		n  int
	}{
		{`{}`, 2},
		{`{}`, 3},
		{`[]`, 100},
		{`{"step":"begin","handle":"h","environment_id":"e"}`, 8192},
		{`{"a":"  {  ","b":[1,{"c":null}]}`, 64},
	} {
		out, err := PadPayload([]byte(c.in), c.n)
		if err != nil {
			t.Fatalf("%s to %d: %v", c.in, c.n, err)
		}
		if len(out) != c.n {
			t.Fatalf("%s to %d: %d bytes", c.in, c.n, len(out))
		}
		var want, got any
		if err := json.Unmarshal([]byte(c.in), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s to %d: not JSON: %v", c.in, c.n, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s to %d: decodes differently (-want +got):\n%s", c.in, c.n, diff)
		}
	}
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{`{"a":1}`, 6, "pad_payload_to 6: the payload is already 7 bytes"},
		{`"text"`, 20, "pad_payload_to pads a payload that is a JSON object or array"},
		{``, 20, "pad_payload_to pads a payload that is a JSON object or array"},
	} {
		if _, err := PadPayload([]byte(c.in), c.n); err == nil || err.Error() != c.want {
			t.Fatalf("%q to %d: got %v, want %s", c.in, c.n, err, c.want)
		}
	}
}

// A frame step with pad_payload_to is rendered with its payload exactly that long as proto reads
// it off the wire, the envelope otherwise as usual; one byte over the payload bound is invalid.
func TestResolveFramePadsThePayload(t *testing.T) {
	ft := &FrameTemplate{Type: proto.TypeWorkspaceExport, ID: "x1",
		Payload: map[string]Value{"step": "begin", "handle": "${handle}", "environment_id": "${env}"}, PadPayloadTo: 8192}
	b := BindingsWith(nil)
	raw, err := ResolveFrame(ft, b, "seed")
	if err != nil {
		t.Fatal(err)
	}
	f, err := proto.ParseFrame(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Envelope.Payload) != 8192 || f.Envelope.ID != "x1" {
		t.Fatalf("payload %d bytes, id %q; frame %.200s", len(f.Envelope.Payload), f.Envelope.ID, raw)
	}
	p := f.Payload.(*proto.WorkspaceExportPayload)
	if p.Step != proto.StepBegin || p.Handle != "handle" || p.EnvironmentID != "env" {
		t.Fatalf("decoded %+v", p)
	}
	ft.PadPayloadTo = 8193
	ft.Invalid = "must be at most 8192 bytes"
	if raw, err = ResolveFrame(ft, BindingsWith(nil), "seed"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"payload":{ `)) || strings.Count(string(raw), " ") < 8000 {
		t.Fatalf("not padded inside the payload: %.200s", raw)
	}
}

// A padded frame declared invalid is invalid for its size alone: the values generated for it are
// the ones the frame needs unpadded (proto reports the bound before the id and member rules, so
// readable names would otherwise slip through), and one broken otherwise is refused.
func TestPaddedInvalidFrameIsValidUnpadded(t *testing.T) {
	ft := &FrameTemplate{Type: proto.TypeWorkspaceWrite, ID: "${w1}", PadPayloadTo: 98305, Invalid: "must be at most 98304 bytes",
		Payload: map[string]Value{"step": "begin", "environment_id": "${env}", "session_id": "${session}", "path": "f",
			"size_bytes": json.Number("1"), "sha256": "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"}}
	b := BindingsWith(nil)
	raw, err := ResolveFrame(ft, b, "seed")
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		ID      string          `json:"id"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Payload) != 98305 || !proto.CanonicalUUID(env.ID) || !strings.Contains(string(env.Payload), DerivedUUID("seed", "env")) {
		t.Fatalf("payload %d bytes, id %q, payload %.60s", len(env.Payload), env.ID, bytes.TrimLeft(env.Payload[1:], " "))
	}
	ft.Payload.(map[string]Value)["sha256"] = "nope"
	_, err = ResolveFrame(ft, BindingsWith(nil), "seed")
	if err == nil || !strings.Contains(err.Error(), "a padded frame declared invalid must be valid unpadded") {
		t.Fatalf("got %v", err)
	}
}

// FuzzPadPayload: whatever JSON object or array is padded to whatever size at least its own, the
// result is that many bytes of valid JSON that decodes to the same value.
func FuzzPadPayload(f *testing.F) {
	f.Add([]byte(`{}`), uint16(0))
	f.Add([]byte(`{"step":"chunk","offset":0,"data":"eA=="}`), uint16(8192-41))
	f.Add([]byte(`[1,"{ ",{"a":[]}]`), uint16(1))
	f.Fuzz(func(t *testing.T, in []byte, extra uint16) {
		var want any
		if json.Unmarshal(in, &want) != nil {
			return
		}
		var compact bytes.Buffer
		if json.Compact(&compact, in) != nil {
			return
		}
		in = compact.Bytes()
		n := len(in) + int(extra)
		out, err := PadPayload(in, n)
		if in[0] != '{' && in[0] != '[' {
			if err == nil {
				t.Fatalf("padded a scalar %q", in)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != n || !json.Valid(out) {
			t.Fatalf("%q to %d: %d bytes, valid %v", in, n, len(out), json.Valid(out))
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q decodes differently padded (-want +got):\n%s", in, diff)
		}
		if _, err := PadPayload(in, len(in)-1); err == nil {
			t.Fatalf("%q padded to less than its size", in)
		}
	})
}
