package proto_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

// Run events, engine failure classification and heartbeats (facts §1.5, §4.7, §4.17, §6.1).

func TestRulesEvents(t *testing.T)        { runCases(t, eventCases()) }
func TestRulesEngineFailure(t *testing.T) { runCases(t, engineFailureCases()) }
func TestRulesHeartbeat(t *testing.T)     { runCases(t, heartbeatCases()) }

func eventCases() []frameCase {
	ev := func(typ, payload string) string { return frame(typ, "run-1", payload) }
	tokens := `{"input_tokens":10,"cached_input_tokens":2,"output_tokens":5,"reasoning_output_tokens":1,"total_tokens":15}`
	return []frameCase{
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":"","sequence":0}`)},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"item_id":"msg-1","delta":"Hel","sequence":18446744073709551615}`)},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":"x"}`), want: "delta.sequence: is required"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"sequence":1}`), want: "delta.delta: is required"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":null,"sequence":1}`), want: "delta.delta: must not be null"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":"x","sequence":-1}`), want: "delta.sequence: must not be negative"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":"x","sequence":1.5}`), want: "delta.sequence: must be a JSON integer"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":"x","sequence":"1"}`), want: "delta.sequence: must be a JSON integer"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"delta":"x","sequence":18446744073709551616}`), want: "delta.sequence: must be a JSON integer in range"},
		{rule: "delta: delta (string) and sequence (non-negative integer) are required; item_id optional", frame: ev("delta", `{"item_id":5,"delta":"x","sequence":1}`), want: "delta.item_id: must be a JSON string"},
		{rule: "thinking: text is required; sequence optional", frame: ev("thinking", `{"text":"hmm"}`)},
		{rule: "thinking: text is required; sequence optional", frame: ev("thinking", `{"sequence":2}`), want: "thinking.text: is required"},
		{rule: "output_message: id is required and not empty", frame: ev("output_message", `{"id":"msg-1","status":"in_progress"}`)},
		{rule: "output_message: id is required and not empty", frame: ev("output_message", `{"id":"","status":"in_progress"}`), want: "output_message.id: must not be empty"},
		{rule: "output_message: status is in_progress, completed or incomplete", frame: ev("output_message", `{"id":"msg-1","status":"incomplete","text":null}`)},
		{rule: "output_message: status is in_progress, completed or incomplete", frame: ev("output_message", `{"id":"msg-1","status":"completed","phase":"final_answer","text":"Hello"}`)},
		{rule: "output_message: status is in_progress, completed or incomplete", frame: ev("output_message", `{"id":"msg-1","status":"failed"}`), want: "output_message.status: must be one of in_progress, completed, incomplete"},
		{rule: "output_message: status is in_progress, completed or incomplete", frame: ev("output_message", `{"id":"msg-1"}`), want: "output_message.status: is required"},
		{rule: "tool_call: id and name are not empty; stage is before or after", frame: ev("tool_call", `{"id":"call-1","name":"shell","stage":"after","args":{},"result":{"exit":0}}`)},
		{rule: "tool_call: id and name are not empty; stage is before or after", frame: ev("tool_call", `{"id":"","name":"shell","stage":"before"}`), want: "tool_call.id: must not be empty"},
		{rule: "tool_call: id and name are not empty; stage is before or after", frame: ev("tool_call", `{"id":"c","name":"","stage":"before"}`), want: "tool_call.name: must not be empty"},
		{rule: "tool_call: id and name are not empty; stage is before or after", frame: ev("tool_call", `{"id":"c","name":"shell","stage":"during"}`), want: "tool_call.stage: must be before or after"},
		{rule: "tool_call: args and result are JSON objects", frame: ev("tool_call", `{"id":"c","name":"shell","stage":"after","result":{"lines":["a"]}}`)},
		{rule: "tool_call: args and result are JSON objects", frame: ev("tool_call", `{"id":"c","name":"shell","stage":"before","args":"ls"}`), want: "tool_call.args: must be a JSON object"},
		{rule: "tool_call: args and result are JSON objects", frame: ev("tool_call", `{"id":"c","name":"shell","stage":"after","result":[1]}`), want: "tool_call.result: must be a JSON object"},
		{rule: "tool_call: an observation has a kind and a status, a non-negative duration and valid content parts", frame: ev("tool_call",
			`{"observation":{"kind":"mcp","status":"completed","name":"search","server":"docs","arguments":{"q":"x"},"output":"text","error":{"code":0},"cwd":null,"exit_code":null,"duration_ms":12,"content":[{"type":"input_text","text":"found"},{"type":"input_image","image_url":"$PNG"}],"action":{"type":"search","queries":["a","b"]}},"id":"c","name":"search","stage":"after"}`)},
		{rule: "tool_call: an observation has a kind and a status, a non-negative duration and valid content parts", frame: ev("tool_call", `{"observation":{"kind":"","status":"completed"},"id":"c","name":"n","stage":"after"}`), want: "tool_call.observation.kind: must not be empty"},
		{rule: "tool_call: an observation has a kind and a status, a non-negative duration and valid content parts", frame: ev("tool_call", `{"observation":{"kind":"command","status":""},"id":"c","name":"n","stage":"after"}`), want: "tool_call.observation.status: must not be empty"},
		{rule: "tool_call: an observation has a kind and a status, a non-negative duration and valid content parts", frame: ev("tool_call", `{"observation":{"kind":"command","status":"completed","duration_ms":-5},"id":"c","name":"n","stage":"after"}`), want: "tool_call.observation.duration_ms: must not be negative"},
		{rule: "tool_call: an observation has a kind and a status, a non-negative duration and valid content parts", frame: ev("tool_call", `{"observation":{"kind":"function","status":"completed","content":[{"type":"input_image","image_url":"https://example.com/a.png"}]},"id":"c","name":"n","stage":"after"}`), want: "tool_call.observation.content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: "tool_call: an observation has a kind and a status, a non-negative duration and valid content parts", frame: ev("tool_call", `{"observation":{"kind":"web_search","status":"completed","action":{"query":"q"}},"id":"c","name":"n","stage":"after"}`), want: "tool_call.observation.action.type: is required"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"tokens":`+tokens+`,"provider":"p","model":"m","input_tokens":10,"output_tokens":5,"cost_usd":0.0012,"raw":{"native":true}}`)},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{}`)},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"input_tokens":-1}`), want: "usage.input_tokens: must not be negative"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"output_tokens":-1}`), want: "usage.output_tokens: must not be negative"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"cost_usd":-0.5}`), want: "usage.cost_usd: must not be negative"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"tokens":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":-1}}`), want: "usage.tokens: counts must not be negative"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"tokens":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0}}`), want: "usage.tokens.total_tokens: is required"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"raw":"native"}`), want: "usage.raw: must be a JSON object"},
		{rule: "usage: counters are non-negative; a tokens object has all five counts", frame: ev("usage", `{"cost_usd":"0.1"}`), want: "usage.cost_usd: must be a JSON number"},
		{rule: "usage: counters fit their type (input_tokens and output_tokens are int32)", frame: ev("usage", `{"input_tokens":2147483647,"tokens":{"input_tokens":9223372036854775807,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0}}`)},
		{rule: "usage: counters fit their type (input_tokens and output_tokens are int32)", frame: ev("usage", `{"input_tokens":3000000000}`), want: "usage.input_tokens: must be a JSON integer in range"},
		{rule: "usage: counters fit their type (input_tokens and output_tokens are int32)", frame: ev("usage", `{"tokens":{"input_tokens":9223372036854775808,"cached_input_tokens":0,"output_tokens":0,"reasoning_output_tokens":0,"total_tokens":0}}`), want: "usage.tokens.input_tokens: must be a JSON integer in range"},
		{rule: "usage: counters fit their type (input_tokens and output_tokens are int32)", frame: ev("usage", `{"cost_usd":1e400}`), want: "usage.cost_usd: must be a JSON number in range"},
		{rule: "usage: counters fit their type (input_tokens and output_tokens are int32)", frame: ev("done", `{"content":"","usage":{"output_tokens":-2147483649}}`), want: "done.usage.output_tokens: must be a JSON integer in range"},
		{rule: "usage: an absent measurement is unknown, not zero", frame: ev("usage", `{"output_tokens":0}`),
			check: expect(func(f *proto.Frame) [2]bool {
				u := payloadOf[proto.UsagePayload](f)
				return [2]bool{u.InputTokens == nil, u.OutputTokens != nil && *u.OutputTokens == 0}
			}, [2]bool{true, true})},
		{rule: "usage: an absent measurement is unknown, not zero", frame: ev("usage", `{"output_tokens":null}`), want: "usage.output_tokens: must not be null"},
		{rule: "done: content is required (\"\" is encoded); usage and metadata are optional", frame: ev("done", `{"content":""}`)},
		{rule: "done: content is required (\"\" is encoded); usage and metadata are optional", frame: ev("done", `{"source_completed_at_ms":1710000000000,"content":"Hello","transcript":"t","usage":{"tokens":`+tokens+`},"metadata":{"agent_session_id":"native-1","agent_session_type":"codex"}}`)},
		{rule: "done: content is required (\"\" is encoded); usage and metadata are optional", frame: ev("done", `{"metadata":{"agent_session_id":"native-1"}}`), want: "done.content: is required"},
		{rule: "done: content is required (\"\" is encoded); usage and metadata are optional", frame: ev("done", `{"content":"","usage":{"input_tokens":-3}}`), want: "done.usage.input_tokens: must not be negative"},
		{rule: "done: content is required (\"\" is encoded); usage and metadata are optional", frame: ev("done", `{"content":"","source_completed_at_ms":-1}`), want: "done.source_completed_at_ms: must not be negative"},
		{rule: "done: content is required (\"\" is encoded); usage and metadata are optional", frame: ev("done", `{"content":"","metadata":["agent_session_id"]}`), want: "done.metadata: must be a JSON object"},

		{rule: "subagent_identity: every member is encoded; name and instructions may be null", frame: ev("subagent_identity", `{"native_id":"sa","parent_native_id":"root","native_created_at":1,"parent_turn_id":"t","source_item_id":"i","name":null,"instructions":"be brief"}`)},
		{rule: "subagent_identity: every member is encoded; name and instructions may be null", frame: ev("subagent_identity", `{"native_id":"sa","parent_native_id":"root","native_created_at":1,"parent_turn_id":"t","source_item_id":"i","name":null}`), want: "subagent_identity.instructions: is required"},
		{rule: "subagent_identity: every member is encoded; name and instructions may be null", frame: ev("subagent_identity", `{"native_id":" ","parent_native_id":"root","native_created_at":1,"parent_turn_id":"t","source_item_id":"i","name":null,"instructions":null}`), want: "subagent_identity.native_id: must not be blank"},
		{rule: "subagent_lifecycle: every member is encoded", frame: ev("subagent_lifecycle", `{"native_id":"sa","effect_id":"e","status":"closed","occurred_at_ms":5}`)},
		{rule: "subagent_lifecycle: every member is encoded", frame: ev("subagent_lifecycle", `{"native_id":"sa","effect_id":"e","status":"closed"}`), want: "subagent_lifecycle.occurred_at_ms: is required"},
		{rule: "subagent_turn: every member is encoded; times and usage may be null", frame: ev("subagent_turn", `{"native_id":"sa","turn_id":"t","status":"in_progress","created_at_ms":1,"started_at_ms":null,"completed_at_ms":null,"usage":{"input_tokens":3}}`)},
		{rule: "subagent_turn: every member is encoded; times and usage may be null", frame: ev("subagent_turn", `{"native_id":"sa","turn_id":"t","status":"in_progress","created_at_ms":1,"started_at_ms":null,"completed_at_ms":null}`), want: "subagent_turn.usage: is required"},
		{rule: "subagent_turn: every member is encoded; times and usage may be null", frame: ev("subagent_turn", `{"native_id":"sa","turn_id":"","status":"s","created_at_ms":1,"started_at_ms":null,"completed_at_ms":null,"usage":null}`), want: "subagent_turn.turn_id: must not be blank"},
		{rule: "subagent_item: every member is encoded; position is non-negative", frame: ev("subagent_item", `{"native_id":"sa","turn_id":"t","item_id":"i","position":3,"kind":"output_message","payload":{"text":"x"}}`)},
		{rule: "subagent_item: every member is encoded; position is non-negative", frame: ev("subagent_item", `{"native_id":"sa","turn_id":"t","item_id":"i","position":-1,"kind":"output_message","payload":{}}`), want: "subagent_item.position: must not be negative"},
		{rule: "subagent_item: every member is encoded; position is non-negative", frame: ev("subagent_item", `{"native_id":"sa","turn_id":"t","item_id":"i","position":2147483648,"kind":"k","payload":{}}`), want: "subagent_item.position: must be a JSON integer in range"},
		{rule: "subagent_coordination: every member is encoded; text, model and reasoning_effort may be null", frame: ev("subagent_coordination", `{"id":"c","kind":"message","status":"sent","actor_id":"sa","recipients":[],"text":null,"model":null,"reasoning_effort":"high"}`)},
		{rule: "subagent_coordination: every member is encoded; text, model and reasoning_effort may be null", frame: ev("subagent_coordination", `{"id":"c","kind":"message","status":"sent","actor_id":"sa","recipients":null,"text":null,"model":null,"reasoning_effort":null}`), want: "subagent_coordination.recipients: must not be null"},
	}
}

// errorCodes extracts the normalized engine classification of an error frame.
func errorCodes(f *proto.Frame) [2]any {
	p := payloadOf[proto.ErrorPayload](f)
	return [2]any{p.Code, p.HTTPStatus}
}

func engineFailureCases() []frameCase {
	errFrame := func(members string) string { return frame("error", "run-1", `{"error":"upstream refused"`+members+`}`) }
	is := func(code string, status int) func(*proto.Frame) error {
		return expect(errorCodes, [2]any{code, status})
	}
	const keep = "error: code is a listed engine code (kept), else unclassified; a malformed code never fails the frame"
	const status = "error: http_status is kept only with connection_failed and only as an integer 100–599"
	return []frameCase{
		{rule: keep, frame: errFrame(``), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":"rate_limit_exceeded"`), check: is("rate_limit_exceeded", 0)},
		{rule: keep, frame: errFrame(`,"code":"cyber_policy"`), check: is("cyber_policy", 0)},
		{rule: keep, frame: errFrame(`,"code":"quota_exceeded"`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":"Rate_Limit_Exceeded"`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":" server_error"`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":42`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":null`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":true`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":["server_error"]`), check: is("", 0)},
		{rule: keep, frame: errFrame(`,"code":{"value":"server_error"}`), check: is("", 0)},
		{rule: keep, frame: frame("error", "run-1", `{"error":"","code":"server_error"}`), check: is("server_error", 0)},
		{rule: keep, frame: frame("error", "run-1", `{"code":"server_error"}`), want: "error.error: is required"},
		{rule: keep, frame: frame("error", "run-1", `{"error":null,"code":"server_error"}`), want: "error.error: must not be null"},
		{rule: keep, frame: frame("error", "run-1", `{"error":{"message":"x"},"code":"server_error"}`), want: "error.error: must be a JSON string"},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":503`), check: is("connection_failed", 503)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":100`), check: is("connection_failed", 100)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":599`), check: is("connection_failed", 599)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":99`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":600`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":-503`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":503.5`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":"503"`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":null`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":[503]`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed","http_status":99999999999999999999999`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"connection_failed"`), check: is("connection_failed", 0)},
		{rule: status, frame: errFrame(`,"code":"server_error","http_status":503`), check: is("server_error", 0)},
		{rule: status, frame: errFrame(`,"code":"request_timeout","http_status":408`), check: is("request_timeout", 0)},
		{rule: status, frame: errFrame(`,"code":"made_up","http_status":503`), check: is("", 0)},
		{rule: status, frame: errFrame(`,"http_status":503`), check: is("", 0)},
		// The status never rescues a frame that breaks another rule.
		{rule: status, frame: frame("error", "", `{"error":"x","code":"connection_failed","http_status":503}`), want: "error.id: must carry the Run ID"},
	}
}

// NormalizeEngineFailure is the same rule for Core's extraction, on raw values; it never fails.
func TestNormalizeEngineFailure(t *testing.T) {
	tests := []struct {
		code, status string // raw JSON; "" = missing
		wantCode     string
		wantStatus   int
	}{
		{`"connection_failed"`, `502`, "connection_failed", 502},
		{`"connection_failed"`, ` 502 `, "connection_failed", 502},
		{` "connection_failed" `, `502`, "connection_failed", 502},
		{`"connection_failed"`, `5e2`, "connection_failed", 0},
		{`"connection_failed"`, `"502"`, "connection_failed", 0},
		{`"connection_failed"`, ``, "connection_failed", 0},
		{`"authentication_error"`, `401`, "authentication_error", 0},
		{`"usage_limit_exceeded"`, ``, "usage_limit_exceeded", 0},
		{`"server_overloaded"`, ``, "server_overloaded", 0},
		{`"invalid_request"`, ``, "invalid_request", 0},
		{`"resource_not_found"`, ``, "resource_not_found", 0},
		{`"context_length_exceeded"`, ``, "context_length_exceeded", 0},
		{`"unknown"`, `502`, "", 0},
		{``, `502`, "", 0},
		{`7`, ``, "", 0},
		{`"conn\u0065ction_failed"`, `503`, "connection_failed", 503},
		{`"connection_failed`, `503`, "", 0},
		{`{`, `[`, "", 0},
	}
	for _, tt := range tests {
		var code, status json.RawMessage
		if tt.code != "" {
			code = json.RawMessage(tt.code)
		}
		if tt.status != "" {
			status = json.RawMessage(tt.status)
		}
		gotCode, gotStatus := proto.NormalizeEngineFailure(code, status)
		if gotCode != tt.wantCode || gotStatus != tt.wantStatus {
			t.Errorf("NormalizeEngineFailure(%s, %s) = %q, %d; want %q, %d", tt.code, tt.status, gotCode, gotStatus, tt.wantCode, tt.wantStatus)
		}
	}
}

func heartbeatCases() []frameCase {
	hb := func(payload string) string { return frame("heartbeat", "", payload) }
	kind := func(name string, available bool, caps string) string {
		b, _ := json.Marshal(available)
		return `{"kind":"` + name + `","available":` + string(b) + `,"capabilities":` + caps + `}`
	}
	advertised := func(f *proto.Frame) []string {
		var out []string
		for _, k := range payloadOf[proto.HeartbeatPayload](f).SupportedAgentKinds {
			out = append(out, k.Kind)
		}
		return out
	}
	const hbRule = "heartbeat: ts and active_requests are required; active_requests is non-negative"
	const kindRule = "heartbeat: each advertised kind has a non-empty unique kind, available and a complete capability object"
	return []frameCase{
		{rule: hbRule, frame: hb(`{"ts":1710000000,"active_requests":3,"daemon_version":"2.0.0-rc1"}`)},
		{rule: hbRule, frame: hb(`{"active_requests":0}`), want: "heartbeat.ts: is required"},
		{rule: hbRule, frame: hb(`{"ts":1}`), want: "heartbeat.active_requests: is required"},
		{rule: hbRule, frame: hb(`{"ts":1,"active_requests":-1}`), want: "heartbeat.active_requests: must not be negative"},
		{rule: hbRule, frame: hb(`{"ts":"now","active_requests":0}`), want: "heartbeat.ts: must be a JSON integer"},
		{rule: "heartbeat: without supported_agent_kinds it is valid and advertises nothing", frame: hb(`{"ts":1,"active_requests":0}`), check: expect(advertised, []string(nil))},
		{rule: "heartbeat: without supported_agent_kinds it is valid and advertises nothing", frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[]}`), check: expect(advertised, []string(nil))},
		{rule: "heartbeat: without supported_agent_kinds it is valid and advertises nothing", frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":null}`), want: "heartbeat.supported_agent_kinds: must not be null"},
		{rule: "heartbeat: unknown top-level members (e.g. legacy claude_available) are ignored, never inferred from", frame: hb(`{"ts":1,"active_requests":0,"claude_available":true}`), check: expect(advertised, []string(nil))},
		{rule: "heartbeat: unknown top-level members (e.g. legacy claude_available) are ignored, never inferred from", frame: hb(`{"ts":1,"claude_available":true}`), want: "heartbeat.active_requests: is required"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[` + kind("codex", true, "$CAPS") + `,` + kind("contract", false, "$CAPS") + `]}`), check: expect(advertised, []string{"codex", "contract"})},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[` + kind("", true, "$CAPS") + `]}`), want: "heartbeat.supported_agent_kinds[0].kind: must not be empty"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[` + kind("codex", true, "$CAPS") + `,` + kind("codex", false, "$CAPS") + `]}`), want: "heartbeat.supported_agent_kinds[1].kind: must be unique within a heartbeat"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[{"available":true,"capabilities":$CAPS}]}`), want: "heartbeat.supported_agent_kinds[0].kind: is required"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"codex","capabilities":$CAPS}]}`), want: "heartbeat.supported_agent_kinds[0].available: is required"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"codex","available":true}]}`), want: "heartbeat.supported_agent_kinds[0].capabilities: is required"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"codex","available":true,"capabilities":null}]}`), want: "heartbeat.supported_agent_kinds[0].capabilities: must not be null"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[null]}`), want: "heartbeat.supported_agent_kinds[0]: must not be null"},
		// An unavailable Harness still declares every capability.
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[` + kind("codex", false, strings.Replace(capsJSON, `"usage":false,`, ``, 1)) + `]}`), want: "heartbeat.supported_agent_kinds[0].capabilities.usage: is required: every capability must be present, including false"},
		{rule: kindRule, frame: hb(`{"ts":1,"active_requests":0,"supported_agent_kinds":[` + kind("codex", true, strings.Replace(capsJSON, `"streaming":true`, `"streaming":1`, 1)) + `]}`), want: "heartbeat.supported_agent_kinds[0].capabilities.streaming: must be true or false"},
	}
}

// A decoded heartbeat re-encodes to the same advertisement.
func TestHeartbeatRoundTrip(t *testing.T) {
	f, err := proto.ParseFrame([]byte(baseFrames()[proto.TypeHeartbeat]))
	if err != nil {
		t.Fatal(err)
	}
	env, err := proto.NewEnvelope(proto.TypeHeartbeat, "", f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := env.Encode()
	if err != nil {
		t.Fatal(err)
	}
	again, err := proto.ParseFrame(raw)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.Payload, again.Payload); diff != "" {
		t.Errorf("heartbeat round trip (-first +second):\n%s", diff)
	}
}
