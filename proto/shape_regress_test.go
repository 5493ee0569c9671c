package proto_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// Regressions for the shape fixes made alongside the reflective tests: each frame is what a peer
// could send, and each line says what the shape layer must do with it.
func TestShapeRegressions(t *testing.T) {
	cases := []struct {
		name, frame, err string
	}{
		// JSON member names are case-sensitive: encoding/json's case folding must not apply.
		{"envelope Type is not type", `{"Type":"done","id":"r","payload":{"content":"x"}}`, "envelope.type: is required"},
		{"envelope Payload is not payload", `{"type":"done","id":"r","Payload":{"content":"x"}}`, "done.content: is required"},
		// A lenient payload ignores unknown members, including those that differ from a known
		// member only in case; they must neither fail the frame nor override the known member.
		{"lenient folded member is ignored", `{"type":"delta","id":"r","payload":{"delta":"a","sequence":1,"ITEM_ID":5}}`, ""},
		{"lenient folded member is ignored when nested", `{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"k","available":true,"Kind":7,"capabilities":` + regressCapsJSON + `}]}}`, ""},
		{"strict folded member is unknown", `{"type":"prompt_cancel","id":"r","payload":{"Delivery_ID":"x"}}`, "prompt_cancel.Delivery_ID: unknown member"},
		// An out-of-range integer names its exact path, array indices included.
		{"integer range names the element", `{"type":"workspace_read_result","id":"r","payload":{"outcome":"completed","close_acknowledged":true,"directory":{"truncated":false,"entries":[{"name":"a","kind":"file","size_bytes":100000000000000000000}]}}}`,
			"workspace_read_result.directory.entries[0].size_bytes: must be a JSON integer in range"},
		{"int32 range", `{"type":"subagent_item","id":"r","payload":{"native_id":"n","turn_id":"t","item_id":"i","position":2147483648,"kind":"k","payload":{}}}`,
			"subagent_item.position: must be a JSON integer in range"},
		{"uint64 range", `{"type":"delta","id":"r","payload":{"delta":"a","sequence":18446744073709551616}}`,
			"delta.sequence: must be a JSON integer in range"},
		{"float range", `{"type":"usage","id":"r","payload":{"cost_usd":1e400}}`, "usage.cost_usd: must be a JSON number in range"},
		// prompt_request: an empty id defers to run_id; a blank one is not a Run ID.
		{"prompt_request blank id", `{"type":"prompt_request","id":" ","payload":{"agent_kind":"k","run_id":"r"}}`, "prompt_request.id: must carry the Run ID (or the payload's run_id)"},
		{"prompt_request id from run_id", `{"type":"prompt_request","payload":{"agent_kind":"k","run_id":"r"}}`, ""},
		// Base64 in a JSON string may use JSON escapes ("\/" is "/"), as other encoders write it.
		{"base64 with escaped slash", `{"type":"workspace_read_result","id":"r","payload":{"outcome":"completed","close_acknowledged":true,"data":"ab\/+"}}`, ""},
		{"base64 with escaped line break", `{"type":"workspace_read_result","id":"r","payload":{"outcome":"completed","close_acknowledged":true,"data":"aGVs\nbG8="}}`, ""},
		{"base64 with an escaped bad character", `{"type":"workspace_read_result","id":"r","payload":{"outcome":"completed","close_acknowledged":true,"data":"ab\u0021="}}`, "workspace_read_result.data: must be a base64 string"},
		// A bodyless type tolerates an empty object however it is spaced, and nothing else.
		{"bodyless empty object with spaces", `{"type":"permission_cancel","id":"req","payload":{ }}`, ""},
		{"bodyless non-empty object", `{"type":"permission_cancel","id":"req","payload":{"a":1}}`, "permission_cancel.payload: must be absent (this type has no body)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := proto.ParseFrame([]byte(c.frame))
			if c.err == "" {
				if err != nil {
					t.Fatalf("ParseFrame(%s) = %v, want accepted", c.frame, err)
				}
				return
			}
			if err == nil || err.Error() != c.err {
				t.Fatalf("ParseFrame(%s)\n got %v\nwant %s", c.frame, err, c.err)
			}
		})
	}
}

var regressCapsJSON = func() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range proto.CapabilityNames() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + n + `":false`)
	}
	return b.String() + "}"
}()

func TestFoldedMemberDoesNotOverride(t *testing.T) {
	f, err := proto.ParseFrame([]byte(`{"type":"done","id":"r","payload":{"content":"real","Content":"fake","USAGE":{"model":"m"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Payload.(*proto.DonePayload); p.Content != "real" || p.Usage != nil {
		t.Fatalf("content = %q, usage = %+v; want the exact members only", p.Content, p.Usage)
	}
	f, err = proto.ParseFrame([]byte(`{"type":"error","id":"r","payload":{"error":"x","CODE":"connection_failed","Http_Status":503}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Payload.(*proto.ErrorPayload); p.Code != "" || p.HTTPStatus != 0 {
		t.Fatalf("code = %q, http_status = %d; want unclassified (the folded members are unknown)", p.Code, p.HTTPStatus)
	}
}

func TestSelfShaped(t *testing.T) {
	for _, v := range []any{proto.AgentKindCapabilities{}, proto.CapabilitySupport(0), proto.InputContent{}, &proto.InputContent{}} {
		if !proto.SelfShaped(reflect.TypeOf(v)) {
			t.Errorf("SelfShaped(%T) = false, want true", v)
		}
	}
	for _, v := range []any{proto.DonePayload{}, proto.Usage{}, "", 0, proto.MessageInput{}} {
		if proto.SelfShaped(reflect.TypeOf(v)) {
			t.Errorf("SelfShaped(%T) = true, want false", v)
		}
	}
}

// With several unknown members, or several bad map values, the error always names the same one.
func TestShapeErrorsAreDeterministic(t *testing.T) {
	frames := map[string]string{
		`{"type":"prompt_cancel","id":"r","payload":{"zz":1,"mm":2,"aa":3,"delivery_id":"d"}}`:                                                                               "prompt_cancel.aa: unknown member",
		`{"type":"done","id":"r","payload":{"content":"","metadata":{"z":null,"b":null,"k":1}}}`:                                                                             "done.metadata.b: must not be null",
		`{"type":"function_result","id":"r","payload":{"delivery_id":"d","call_id":"c","success":true,"content":[{"type":"input_text","text":"t","zz":1,"image_url":"u"}]}}`: "function_result.content[0].image_url: unknown member for a input_text part",
	}
	for frame, want := range frames {
		for range 20 {
			if _, err := proto.ParseFrame([]byte(frame)); err == nil || err.Error() != want {
				t.Fatalf("ParseFrame(%s)\n got %v\nwant %s", frame, err, want)
			}
		}
	}
}
