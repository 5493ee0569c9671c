package scenarios

import (
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// runtimeFrame returns the nth (from 1) frame step of a scenario that the Runtime sends with type
// typ, any_order groups included.
func runtimeFrame(t *testing.T, c *Catalog, id, typ string, nth int) *FrameTemplate {
	t.Helper()
	sc, ok := c.Get(id)
	if !ok {
		t.Fatalf("no scenario %s", id)
	}
	for _, st := range sc.Steps {
		for _, fs := range st.Frames() {
			if fs.From == proto.Runtime && fs.Frame.Type == typ {
				if nth--; nth == 0 {
					return fs.Frame
				}
			}
		}
	}
	t.Fatalf("%s has no runtime %s frame #%d", id, typ, nth)
	return nil
}

// Bindings as the earlier steps of a scenario leave them.
var bound = map[string]Value{
	"prepare": "p-1", "prepare2": "p-2", "run": "r-1", "executor": "e-1", "handle": "h-1",
	"expires_at": json2("7"), "executor2": "e-2", "handle2": "h-2", "expires_at2": json2("9"),
}

// Every relaxation of the catalog accepts each answer the spec allows, and its scenario still fails
// an answer the spec forbids (the reason holds `fails`).
func TestRelaxationsStillFailWhatTheSpecForbids(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	caps := `"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":` + fullCapabilities(t, "") + `}]`
	status := func(id, payload string) string {
		return `{"type":"preparation_status","id":"` + id + `","payload":` + payload + `}`
	}
	errFrame := func(payload string) string { return `{"type":"error","id":"r-1","payload":` + payload + `}` }
	ack := func(payload string) string {
		return `{"type":"interaction_decision_ack","id":"ask-1","payload":` + payload + `}`
	}
	type answer struct{ frame, fails string }
	for _, c := range []struct {
		name, scenario, typ string
		nth                 int
		answers             []answer // fails "": allowed
	}{
		{"the legacy heartbeat member is ignored; an incomplete declaration is not",
			"connection/heartbeat/first-frame-declares-capabilities", "heartbeat", 1, []answer{
				{`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"claude_available":true,` + caps + `}}`, ""},
				{`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"claude_available":true}}`, "supported_agent_kinds: is missing"},
				{`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":{"streaming":true}}]}}`, "breaks a wire rule"},
			}},
		{"a missing configuration: invalid_request or invalid_configuration",
			"admission/prepare/missing-configuration-is-rejected-before-setup", "preparation_status", 1, []answer{
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"invalid_request"}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"invalid_configuration"}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"resource_unavailable"}`), "want one of"},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":1,"state":"preparing"}`), "payload.error_code: is missing"},
			}},
		{"no Environment binding: invalid_configuration (AD-10), never unsupported_configuration",
			"admission/prepare/no-environment-binding-is-rejected-before-setup", "preparation_status", 1, []answer{
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"invalid_configuration"}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"unsupported_configuration"}`), "payload.error_code"},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":1,"state":"preparing","expires_at":7}`), "payload.error_code: is missing"},
			}},
		{"history_unavailable is stated, and a preparation that goes ahead fails",
			"admission/prepare/history-unavailable", "preparation_status", 1, []answer{
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"history_unavailable"}`), ""},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":1,"state":"preparing","expires_at":7}`), "payload.error_code: is missing"},
			}},
		{"a start rejection of a live admission may name it, never another",
			"admission/start/other-executor-is-unknown-executor", "preparation_status", 3, []answer{
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_executor"}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_executor","handle":"h-1","executor_id":"e-1","expires_at":7}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_executor","handle":"h-2"}`), `want ${handle} = "h-1"`},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_executor","executor_id":"another-executor"}`), `want ${executor} = "e-1"`},
			}},
		{"executor_unavailable names its admission, as the spec says",
			"admission/start/no-native-turn-is-executor-unavailable", "preparation_status", 4, []answer{
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"executor_unavailable","handle":"h-1","executor_id":"e-1"}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"executor_unavailable"}`), "is missing"},
			}},
		{"a pure rejection names no admission",
			"admission/start/unknown-handle-is-unknown-preparation", "preparation_status", 3, []answer{
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_preparation"}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_preparation","handle":"h-1"}`), "payload.handle: is not expected"},
			}},
		{"only ready must carry the expiry; a later one repeats it",
			"prefix/started", "preparation_status", 4, []answer{
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":4,"state":"started","run_id":"r-1"}`), ""},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":4,"state":"started","run_id":"r-1","expires_at":7}`), ""},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":4,"state":"started","run_id":"r-1","expires_at":8}`), `want ${expires_at} = 7`},
			}},
		{"ready supplies the expiry",
			"prefix/prepared", "preparation_status", 2, []answer{
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":2,"state":"ready","expires_at":7,"reused":false}`), ""},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":2,"state":"ready"}`), "payload.expires_at: is missing"},
			}},
		{"a start on an expired admission: the expired status again (AD-38), never a rejection nor a start",
			"admission/expiry/expired-admission-and-the-old-handle", "preparation_status", 4, []answer{
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":3,"state":"expired","expires_at":7}`), ""},
				{status("p-1", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"preparation_not_ready"}`), "payload"},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":4,"state":"starting","run_id":"r-1","expires_at":7}`), "payload"},
			}},
		{"the old handle never starts the replacement",
			"admission/expiry/expired-admission-and-the-old-handle", "preparation_status", 6, []answer{
				{status("p-2", `{"revision":0,"state":"rejected","operation":"execution_start","error_code":"unknown_preparation"}`), ""},
				{status("p-2", `{"executor_id":"e-1","handle":"h-1","revision":2,"state":"starting","run_id":"r-1"}`), "payload.error_code: is missing"},
			}},
		{"a duplicated start re-publishes starting or started, at their revisions",
			"faults/runtime/duplicated-start-submits-input-once", "preparation_status", 5, []answer{
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":3,"state":"starting","run_id":"r-1"}`), ""},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":4,"state":"started","run_id":"r-1","expires_at":7}`), ""},
				{status("p-1", `{"executor_id":"e-1","handle":"h-1","revision":3,"state":"started","run_id":"r-1"}`), "want one of"},
			}},
		{"a malformed user-choice decision: contract_violation or runtime_error, never a code whose meaning is false here",
			"interactions/runtime/user-choice-strict-then-answered-by-id", "interaction_decision_ack", 1, []answer{
				{ack(`{"delivery_id":"d-1","applied":false,"error_code":"contract_violation"}`), ""},
				{ack(`{"delivery_id":"d-1","applied":false,"error_code":"runtime_error","error":"bad shape"}`), ""},
				{ack(`{"delivery_id":"d-1","applied":false,"error_code":"not_ready"}`), "want one of"},
				{ack(`{"delivery_id":"d-1","applied":false,"error_code":"not_pending"}`), "want one of"},
				{ack(`{"delivery_id":"d-1","applied":false,"error_code":"decision_conflict"}`), "want one of"},
			}},
		{"an engine classification may arrive as written or normalised",
			"runs/prompt-request/engine-classification-is-normalized", "error", 3, []answer{
				{errFrame(`{"error":"odd"}`), ""},
				{errFrame(`{"error":"odd","code":"made_up_code","http_status":500}`), ""},
				{errFrame(`{"error":"odd","code":"server_error"}`), "payload.code: is not expected"},
			}},
		{"a status beside a listed code is dropped, as sent or by the decoder",
			"runs/prompt-request/engine-classification-is-normalized", "error", 2, []answer{
				{errFrame(`{"error":"rate limited","code":"rate_limit_exceeded"}`), ""},
				{errFrame(`{"error":"rate limited","code":"rate_limit_exceeded","http_status":429}`), ""},
				{errFrame(`{"error":"rate limited"}`), "payload.code: is missing"},
			}},
		{"connection_failed keeps its status",
			"runs/prompt-request/engine-classification-is-normalized", "error", 1, []answer{
				{errFrame(`{"error":"no route","code":"connection_failed","http_status":503}`), ""},
				{errFrame(`{"error":"no route","code":"connection_failed"}`), "payload.http_status: is missing"},
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ft := runtimeFrame(t, cat, c.scenario, c.typ, c.nth)
			t.Logf("template at %s", ft.Pos)
			for _, a := range c.answers {
				_, mm := MatchFrame(ft, proto.Runtime, []byte(a.frame), BindingsWith(bound))
				switch {
				case a.fails == "" && mm != nil:
					t.Errorf("an answer the spec allows fails: %s\n%v", a.frame, mm)
				case a.fails != "" && mm == nil:
					t.Errorf("an answer the spec forbids passes: %s", a.frame)
				case a.fails != "" && !strings.Contains(mm.Reason, a.fails):
					t.Errorf("%s: reason %q, want %q", a.frame, mm.Reason, a.fails)
				}
			}
		})
	}
}

// A silence that allows a reply accepts that reply and still refuses any other (closed-transfer-
// frames): a commit of a transfer a rejection closed is answered resource_unavailable or not at
// all, never invalid_request nor completed.
func TestSilenceAllowsOnlyTheReplyTheSpecAdmits(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	const transfer = "6f1c2a4e-1b2c-4d3e-8f90-0a1b2c3d4e5f"
	result := func(payload string) []byte {
		return []byte(`{"type":"runtime_prepare_result","id":"` + transfer + `","payload":` + payload + `}`)
	}
	for _, id := range []string{
		"preparation-transfer/runtime/offset-gap-closes-the-transfer",
		"preparation-transfer/runtime/overflow-closes-the-transfer",
		"preparation-transfer/runtime/malformed-frame-closes-the-pending-transfer",
		"faults/prepare-runtime/lost-received-then-resent-chunk-closes-the-transfer",
		"faults/prepare-runtime/corrupted-chunk-closes-the-transfer",
	} {
		sc, ok := cat.Get(id)
		if !ok {
			t.Fatalf("no scenario %s", id)
		}
		var allow []*Step
		for _, st := range sc.Steps {
			if st.Kind == StepSilence && len(st.Allow) > 0 {
				allow = st.Allow
			}
		}
		if len(allow) == 0 {
			t.Errorf("%s: no silence allows the closed transfer's reply", id)
			continue
		}
		b := BindingsWith(map[string]Value{"transfer": transfer})
		for _, c := range []struct {
			payload string
			ok      bool
		}{
			{`{"outcome":"rejected","error_code":"resource_unavailable"}`, true},
			{`{"outcome":"rejected","error_code":"invalid_request"}`, false},
			{`{"outcome":"completed","size_bytes":5}`, false},
		} {
			_, mm := MatchFrame(allow[0].Frame, allow[0].From, result(c.payload), b)
			if (mm == nil) != c.ok {
				t.Errorf("%s: %s allowed = %v, want %v", id, c.payload, mm == nil, c.ok)
			}
		}
	}
}
