package proto_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

// AgentKindCapabilities (facts §3): 30 tri-state fields, each exactly `true` or `false` on the
// wire, every one present; errors never echo an unknown key or an offending value.

// The sentinels are what a peer might send; no error text may ever contain them.
const (
	sentinelKey   = "future_private_value_SENTINELKEY7f3a"
	sentinelValue = "SENTINELVALUE9c2e"
)

// capabilityObject renders the fixture as a JSON object with one field replaced by raw (or removed
// when raw is ""), plus any extra raw members.
func capabilityObject(t *testing.T, field, raw string, extra ...string) string {
	t.Helper()
	var parts []string
	for _, name := range proto.CapabilityNames() {
		v := "false"
		if name == field {
			if raw == "" {
				continue
			}
			v = raw
		}
		parts = append(parts, jstr(name)+":"+v)
	}
	parts = append(parts, extra...)
	return "{" + strings.Join(parts, ",") + "}"
}

func TestCapabilityNamesAreTheThirtySpecFields(t *testing.T) {
	want := []string{
		"subagent_observations", "streaming", "permissions", "usage", "resume", "native_session_recovery",
		"workspace_authoring", "steering", "message_items", "tool_observations", "environment_none",
		"local_environment", "preparation", "workspace_read_preparation", "workspace_output_export",
		"programmatic_tool_calling_disable", "web_search_control", "execution_controls", "text_verbosity",
		"structured_output", "tool_search", "message_images", "function_result_images", "subagent_control",
		"durable_input_receipts", "durable_turns", "function_tools", "mcp_http_tools", "mcp_http_required",
		"mcp_http_bearer_auth",
	}
	if diff := cmp.Diff(want, proto.CapabilityNames()); diff != "" {
		t.Errorf("capability fields (-facts §3.1 +proto):\n%s", diff)
	}
}

// Encoding an object with any unspecified field fails and names that field.
func TestCapabilityEncodingFailsOnUnspecifiedField(t *testing.T) {
	for _, name := range proto.CapabilityNames() {
		c := proto.MustDeclareCapabilities()
		if !c.Set(name, proto.Unspecified) {
			t.Fatalf("Set(%q) failed", name)
		}
		_, err := json.Marshal(c)
		if err == nil {
			t.Errorf("%s unspecified: encoding succeeded", name)
			continue
		}
		want := name + ": is unspecified: every capability needs an explicit true or false"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s unspecified: error %q does not contain %q", name, err, want)
		}
		// Inside a heartbeat, the envelope refuses to encode too.
		hb := &proto.HeartbeatPayload{TS: 1, SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "k", Available: true, Capabilities: &c}}}
		if _, err := proto.NewEnvelope(proto.TypeHeartbeat, "", hb); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s unspecified: heartbeat envelope error %v, want one naming the field", name, err)
		}
	}
	// A zero declaration fails on its first field.
	if _, err := json.Marshal(proto.AgentKindCapabilities{}); err == nil || !strings.Contains(err.Error(), "subagent_observations: is unspecified") {
		t.Errorf("zero declaration: %v", err)
	}
	// A lone CapabilitySupport refuses to encode its zero value.
	if _, err := json.Marshal(proto.Unspecified); err == nil {
		t.Errorf("Unspecified encoded without error")
	}
}

// Every field encodes as an explicit boolean, false included.
func TestCapabilityEncodingIsExplicit(t *testing.T) {
	for _, name := range proto.CapabilityNames() {
		raw, err := json.Marshal(proto.MustDeclareCapabilities(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != 30 {
			t.Errorf("%s supported: %d members encoded, want 30", name, len(got))
		}
		for _, other := range proto.CapabilityNames() {
			want := "false"
			if other == name {
				want = "true"
			}
			if string(got[other]) != want {
				t.Errorf("%s supported: %s encoded as %s, want %s", name, other, got[other], want)
			}
		}
	}
}

// decodeCapabilities decodes an object directly and inside a heartbeat, and checks neither error
// echoes what the peer sent.
func decodeCapabilities(t *testing.T, obj string) (direct, inFrame error) {
	t.Helper()
	var c proto.AgentKindCapabilities
	direct = json.Unmarshal([]byte(obj), &c)
	_, inFrame = proto.ParseFrame([]byte(frame("heartbeat", "", `{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"contract","available":false,"capabilities":`+obj+`}]}`)))
	for _, err := range []error{direct, inFrame} {
		if err == nil {
			continue
		}
		for _, secret := range []string{sentinelKey, sentinelValue, "SENTINEL"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q echoes what the peer sent (%q)", err, secret)
			}
		}
	}
	return direct, inFrame
}

func TestCapabilityDecodingRejections(t *testing.T) {
	const prefix = "heartbeat.supported_agent_kinds[0].capabilities"
	for _, name := range proto.CapabilityNames() {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				what, raw, rule string
			}{
				{"omitted", "", "is required: every capability must be present, including false"},
				{"null", "null", "must be true or false"},
				{"zero", "0", "must be true or false"},
				{"one", "1", "must be true or false"},
				{"string true", `"true"`, "must be true or false"},
				{"sentinel string", jstr(sentinelValue), "must be true or false"},
				{"object", `{"supported":true}`, "must be true or false"},
				{"array", `[true]`, "must be true or false"},
				{"capitalised", `True`, ""}, // not JSON: the whole frame is malformed
			} {
				obj := capabilityObject(t, name, tc.raw)
				direct, inFrame := decodeCapabilities(t, obj)
				if tc.rule == "" {
					if direct == nil || inFrame == nil {
						t.Errorf("%s: accepted", tc.what)
					}
					continue
				}
				if got, want := errText(direct), name+": "+tc.rule; got != want {
					t.Errorf("%s, decoded directly:\n got %q\nwant %q", tc.what, got, want)
				}
				if got, want := errText(inFrame), prefix+"."+name+": "+tc.rule; got != want {
					t.Errorf("%s, in a heartbeat:\n got %q\nwant %q", tc.what, got, want)
				}
			}
		})
	}
	for _, tc := range []struct {
		what, obj, direct, inFrame string
	}{
		{"unknown member false", capabilityObject(t, "", "", jstr(sentinelKey)+":false"),
			"has an unknown member (names withheld)", prefix + ": has an unknown member (names withheld)"},
		{"unknown member with a sentinel value", capabilityObject(t, "", "", jstr(sentinelKey)+":"+jstr(sentinelValue)),
			"has an unknown member (names withheld)", prefix + ": has an unknown member (names withheld)"},
		{"unknown member differing only in case", capabilityObject(t, "", "", `"Streaming":true`),
			"has an unknown member (names withheld)", prefix + ": has an unknown member (names withheld)"},
		{"empty object", `{}`,
			"subagent_observations: is required: every capability must be present, including false", prefix + ".subagent_observations: is required: every capability must be present, including false"},
		{"array", `[` + capabilityObject(t, "", "") + `]`,
			"must be a JSON object", prefix + ": must be a JSON object"},
		{"string", jstr(sentinelValue),
			"must be a JSON object", prefix + ": must be a JSON object"},
	} {
		direct, inFrame := decodeCapabilities(t, tc.obj)
		if got := errText(direct); got != tc.direct {
			t.Errorf("%s, decoded directly:\n got %q\nwant %q", tc.what, got, tc.direct)
		}
		if got := errText(inFrame); got != tc.inFrame {
			t.Errorf("%s, in a heartbeat:\n got %q\nwant %q", tc.what, got, tc.inFrame)
		}
	}
	// A direct decode of JSON null is a missing object.
	var c proto.AgentKindCapabilities
	if err := c.UnmarshalJSON([]byte("null")); errText(err) != "capability object is required" {
		t.Errorf("null object: %v", err)
	}
	if err := c.UnmarshalJSON(nil); errText(err) != "capability object is required" {
		t.Errorf("missing object: %v", err)
	}
}

// Inside a heartbeat, a missing or null capability object is a decode error.
func TestCapabilityObjectRequiredInHeartbeat(t *testing.T) {
	for _, tc := range []struct{ kind, want string }{
		{`{"kind":"contract","available":false}`, "heartbeat.supported_agent_kinds[0].capabilities: is required"},
		{`{"kind":"contract","available":false,"capabilities":null}`, "heartbeat.supported_agent_kinds[0].capabilities: must not be null"},
		{`{"kind":"contract","available":true,"capabilities":` + capsJSON + `}`, ""},
	} {
		_, err := proto.ParseFrame([]byte(frame("heartbeat", "", `{"ts":1,"active_requests":0,"supported_agent_kinds":[`+tc.kind+`]}`)))
		if got := errText(err); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.kind, got, tc.want)
		}
	}
}

// Whitespace around true and false is tolerated, in an object and in a lone value.
func TestCapabilityWhitespaceTolerated(t *testing.T) {
	var parts []string
	for i, name := range proto.CapabilityNames() {
		v := " \n\tfalse\r\n "
		if i%2 == 0 {
			v = "\ttrue "
		}
		parts = append(parts, " "+jstr(name)+" :"+v)
	}
	obj := "\n{" + strings.Join(parts, ",") + "}\n"
	direct, inFrame := decodeCapabilities(t, obj)
	if direct != nil || inFrame != nil {
		t.Fatalf("whitespace rejected: %v / %v", direct, inFrame)
	}
	var c proto.AgentKindCapabilities
	if err := json.Unmarshal([]byte(obj), &c); err != nil {
		t.Fatal(err)
	}
	for i, name := range proto.CapabilityNames() {
		want := proto.Support(i%2 == 0)
		if got, _ := c.Get(name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for raw, want := range map[string]proto.CapabilitySupport{" true": proto.Supported, "false\n": proto.Unsupported, "\t true \t": proto.Supported} {
		var s proto.CapabilitySupport
		if err := s.UnmarshalJSON([]byte(raw)); err != nil || s != want {
			t.Errorf("CapabilitySupport.UnmarshalJSON(%q) = %v, %v; want %v", raw, s, err, want)
		}
	}
	var s proto.CapabilitySupport
	if err := s.UnmarshalJSON([]byte(`"` + sentinelValue + `"`)); err == nil || strings.Contains(err.Error(), sentinelValue) {
		t.Errorf("CapabilitySupport.UnmarshalJSON(sentinel) = %v", err)
	}
}

// The fixture round-trips through JSON and through a heartbeat frame unchanged.
func TestCapabilityFixtureRoundTrip(t *testing.T) {
	for _, supported := range [][]string{nil, {"streaming", "preparation", "durable_turns"}, proto.CapabilityNames()} {
		c := proto.MustDeclareCapabilities(supported...)
		raw, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back proto.AgentKindCapabilities
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if diff := cmp.Diff(c, back); diff != "" {
			t.Errorf("JSON round trip (-fixture +decoded):\n%s", diff)
		}
		hb := &proto.HeartbeatPayload{TS: 1710000000, SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: &c}}}
		env, err := proto.NewEnvelope(proto.TypeHeartbeat, "", hb)
		if err != nil {
			t.Fatal(err)
		}
		frameBytes, err := env.Encode()
		if err != nil {
			t.Fatal(err)
		}
		f, err := proto.ParseFrame(frameBytes)
		if err != nil {
			t.Fatalf("parse %s: %v", frameBytes, err)
		}
		if diff := cmp.Diff(hb, f.Payload); diff != "" {
			t.Errorf("heartbeat round trip (-sent +parsed):\n%s", diff)
		}
	}
}

// Every problem of a declaration at once: missing members, values that are not booleans, and a
// count of unknown members.
func TestCapabilityProblemsListsThemAll(t *testing.T) {
	full, err := json.Marshal(proto.MustDeclareCapabilities("streaming"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(full, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "steering")
	delete(m, "usage")
	m["streaming"] = "yes"
	m["claude_available"] = true
	raw, _ := json.Marshal(m)
	missing, malformed, unknown, ok := proto.CapabilityProblems(raw)
	if !ok || strings.Join(missing, ",") != "usage,steering" || strings.Join(malformed, ",") != "streaming" || unknown != 1 {
		t.Fatalf("missing %v, malformed %v, unknown %d, ok %v", missing, malformed, unknown, ok)
	}
	if missing, malformed, unknown, ok := proto.CapabilityProblems(full); !ok || missing != nil || malformed != nil || unknown != 0 {
		t.Fatalf("a complete declaration has problems: %v %v %d", missing, malformed, unknown)
	}
	if _, _, _, ok := proto.CapabilityProblems([]byte(`[1]`)); ok {
		t.Fatal("an array is not a capability object")
	}
}
