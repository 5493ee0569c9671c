package scenarios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// fullCapabilities is a complete capability declaration with every member false.
func fullCapabilities(t *testing.T, extra string) string {
	t.Helper()
	caps := map[string]bool{}
	for _, c := range proto.CapabilityNames() {
		caps[c] = false
	}
	raw, err := json.Marshal(caps)
	if err != nil {
		t.Fatal(err)
	}
	if extra != "" {
		return strings.TrimSuffix(string(raw), "}") + "," + extra + "}"
	}
	return string(raw)
}

func frameTemplate(t *testing.T, yamlText string) *FrameTemplate {
	t.Helper()
	scs, err := Parse("inline.yaml", []byte("id: a\ntitle: t\nsteps:\n  - runtime: "+yamlText+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return scs[0].own[0].Frame
}

// A frame matches its template as sent or as its receiver decodes it: what the receiver ignores or
// normalises never fails it, and what the wire forbids still does.
func TestFramesCompareAsTheirReceiverDecodesThem(t *testing.T) {
	heartbeat := `{type: heartbeat, payload: {ts: {$any: integer}, active_requests: 0, supported_agent_kinds: {$any: array}}}`
	ready := `{type: preparation_status, id: p, payload: {executor_id: e, handle: h, revision: 2, state: ready, expires_at: 7}}`
	classified := `{type: error, id: r, payload: {error: x, code: rate_limit_exceeded}}`
	kinds := `"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":` + fullCapabilities(t, "") + `}]`
	for _, c := range []struct {
		name, tmpl, frame, fails string
	}{
		{"legacy heartbeat member is ignored (facts §1.5)", heartbeat,
			`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"claude_available":true,` + kinds + `}}`, ""},
		{"an unknown capability member breaks the wire (runtime-protocol: capability declarations)", heartbeat,
			`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":` + fullCapabilities(t, `"teleport":false`) + `}]}}`,
			"breaks a wire rule"},
		{"an unknown member of a lenient payload is ignored", ready,
			`{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":2,"state":"ready","expires_at":7,"note":"x"}}`, ""},
		{"an optional member at its zero value reads as absent", ready,
			`{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":2,"state":"ready","expires_at":7,"reused":false,"error_code":""}}`, ""},
		{"an optional member with another value is still checked", ready,
			`{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":2,"state":"ready","expires_at":9}}`,
			"payload.expires_at: want 7, got 9"},
		{"an optional member the template leaves out still fails with a value",
			`{type: preparation_status, id: p, payload: {executor_id: e, handle: h, revision: 1, state: ready, expires_at: 7}}`,
			`{"type":"preparation_status","id":"p","payload":{"executor_id":"e","handle":"h","revision":1,"state":"ready","expires_at":7,"reused":true}}`,
			"payload.reused: is not expected"},
		{"an engine code sent as written is read normalised (facts §6.1)", classified,
			`{"type":"error","id":"r","payload":{"error":"x","code":"rate_limit_exceeded","http_status":429}}`, ""},
		{"a classification changed on the way fails", classified,
			`{"type":"error","id":"r","payload":{"error":"x","code":"server_error"}}`, `payload.code: want "rate_limit_exceeded"`},
		{"tool_call is strict: an unknown member breaks the wire", `{type: tool_call, id: r, payload: {id: c, name: n, stage: after}}`,
			`{"type":"tool_call","id":"r","payload":{"id":"c","name":"n","stage":"after","extra":1}}`, "breaks a wire rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, mm := MatchFrame(frameTemplate(t, c.tmpl), proto.Runtime, []byte(c.frame), NewBindings())
			switch {
			case c.fails == "" && mm != nil:
				t.Fatalf("a frame the receiver accepts failed: %v", mm)
			case c.fails != "" && mm == nil:
				t.Fatalf("a forbidden frame matched; want a failure with %q", c.fails)
			case c.fails != "" && !strings.Contains(mm.Reason, c.fails):
				t.Fatalf("reason %q, want it to contain %q", mm.Reason, c.fails)
			}
		})
	}
}

// device_shutdown's id carries no meaning: a template without one accepts a frame with one.
func TestUnusedIDIsNotCompared(t *testing.T) {
	ft := &FrameTemplate{Type: "device_shutdown", Payload: map[string]Value{"reason": "maintenance"}}
	for _, raw := range []string{
		`{"type":"device_shutdown","payload":{"reason":"maintenance"}}`,
		`{"type":"device_shutdown","id":"shutdown-1","payload":{"reason":"maintenance"}}`,
	} {
		if _, mm := MatchFrame(ft, "core", []byte(raw), NewBindings()); mm != nil {
			t.Errorf("%s: %v", raw, mm.Reason)
		}
	}
	ft.ID = "s"
	if _, mm := MatchFrame(ft, "core", []byte(`{"type":"device_shutdown","id":"other","payload":{"reason":"maintenance"}}`), NewBindings()); mm == nil {
		t.Error("an id the template writes is still compared")
	}
}
