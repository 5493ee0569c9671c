// Package wirefixtures holds valid frames for every registered message type and valid HTTP bodies,
// written as they travel, and the generated mutations of those frames that the reflective tests
// and the JSON Schema tests both check.
//
// Every fixture is canonical: decoding it and encoding the payload again yields the same JSON
// (up to member order), so optional members appear only with non-zero values and a nullable
// optional member is never written as null. Between them, the fixtures of a type set every member
// of its payload at least once; the reflective tests fail when a member is left out.
//
// It imports only the standard library and proto's own packages.
package wirefixtures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
)

// Fixture is one valid frame.
type Fixture struct {
	Name    string          // unique: the type, or "<type>/<variant>"
	Type    string          // the message type
	ID      string          // the envelope id; "" leaves it out
	Payload json.RawMessage // compact JSON; nil leaves the payload member out
}

// Frame encodes the fixture as one frame.
func (f Fixture) Frame() []byte {
	b, err := json.Marshal(proto.Envelope{Type: f.Type, ID: f.ID, Payload: f.Payload})
	if err != nil {
		panic(err)
	}
	return b
}

// Body is one valid HTTP body.
type Body struct {
	Name  string          // the schema's base name: bootstrap_request, bootstrap_response, http_error, …
	Value json.RawMessage // compact JSON
}

// Fixed identities used by the fixtures.
const (
	TransferID    = "5f0c3d6e-8a1b-4c2d-9e3f-1a2b3c4d5e6f"
	MutationID    = "0b8e2f4a-3c5d-4e6f-8a9b-0c1d2e3f4a5b"
	EnvironmentID = "7d3e1c2b-4a5f-4b6c-8d9e-0f1a2b3c4d5e"
	SessionID     = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
	HelloSHA256   = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" // sha256("hello")
	HelloBase64   = "aGVsbG8="                                                         // "hello"
	// PNGDataURL is the smallest image the inline profile accepts: the PNG signature.
	PNGDataURL = "data:image/png;base64,iVBORw0KGgo="
)

// CapabilitiesJSON is a complete capability declaration: every capability decided, alternately
// true and false, in declaration order.
func CapabilitiesJSON() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range proto.CapabilityNames() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%t", name, i%2 == 0)
	}
	b.WriteByte('}')
	return b.String()
}

var usageJSON = `{
	"tokens": {"input_tokens": 120, "cached_input_tokens": 20, "output_tokens": 40, "reasoning_output_tokens": 8, "total_tokens": 160},
	"provider": "openai", "model": "gpt-test", "input_tokens": 120, "output_tokens": 40, "cost_usd": 0.25,
	"raw": {"vendor": {"requests": 2}}
}`

var inputJSON = `[
	{"content": [{"type": "input_text", "text": "Summarize the report."}, {"type": "input_image", "image_url": "` + PNGDataURL + `"}]},
	{"content": [{"type": "input_text", "text": "Then list the open questions."}]}
]`

var sourcesJSON = `{
	"skills": [{"type": "inline", "name": "review", "description": "Reviews a change"}],
	"plugins": [{"type": "inline", "name": "linter", "description": "Lints the workspace"}],
	"directories": ["/workspace/.skills", "/opt/capabilities"]
}`

// configurationJSON sets every member of the execution configuration (with a bound local
// Environment, so MCP servers have the environment origin).
var configurationJSON = `{
	"max_concurrent_subagents": 2,
	"agent_kind": "contract",
	"conversation_id": "conversation-1",
	"run_id": "run-1",
	"input": ` + inputJSON + `,
	"work_dir": "/workspace/project",
	"agent_options": {"contract": {"deltas": ["a", "b"]}},
	"execution_controls": {
		"disable_programmatic_tool_calling": true,
		"web_search": "cached",
		"text_verbosity": "high",
		"output_format": {"type": "json_schema", "schema": {"type": "object", "properties": {"answer": {"type": "string"}}}}
	},
	"mcp_http_servers": [{
		"connection_origin": "environment", "server_label": "docs", "server_url": "https://mcp.example.test/docs",
		"allowed_tools": ["search", "fetch"], "required": true, "bearer_token": "secret-token"
	}],
	"local_environment": {
		"id": "` + EnvironmentID + `", "workspace_directory": "/workspace",
		"capability_sources": ` + sourcesJSON + `,
		"capabilities": true, "tool_environment": true, "network_access": "enabled", "allowed_domains": ["example.test"]
	},
	"agent_session_id": "native-session-1",
	"workspace_read_only": true,
	"agent_state_key": "agents-api-session-1",
	"workspace_authoring": true,
	"release_on_completion": true,
	"strict_resume": true,
	"require_existing_native_session": true,
	"observe_messages": true,
	"observe_tool_observations": true,
	"observe_subagent_identities": true,
	"function_tools": [
		{"name": "lookup", "description": "Looks a word up", "parameters": {"type": "object"}, "defer_loading": true},
		{"name": "convert", "description": "Converts units", "parameters": {"type": "object", "required": ["value"]}}
	],
	"tool_search": true,
	"disable_subagents": true
}`

// noEnvironmentJSON is a configuration for Environment type none: service-origin MCP servers
// with allowed_tools null.
var noEnvironmentJSON = `{
	"agent_kind": "contract", "conversation_id": "", "run_id": "run-2",
	"input": [{"content": [{"type": "input_text", "text": "hello"}]}],
	"execution_controls": {"web_search": "disabled", "text_verbosity": "medium"},
	"mcp_http_servers": [{"connection_origin": "service", "server_label": "search", "server_url": "https://mcp.example.test/search", "allowed_tools": null}],
	"strict_resume": true, "observe_tool_observations": true, "disable_execution_environment": true
}`

var outcomeJSON = `{
	"source_completed_at_ms": 1710000000123, "content": "partial answer", "transcript": "user: hi\nassistant: partial answer",
	"usage": ` + usageJSON + `,
	"metadata": {"agent_session_id": "native-session-1", "agent_session_type": "codex"}
}`

func fx(name, id, payload string) Fixture {
	typ, _, _ := strings.Cut(name, "/")
	f := Fixture{Name: name, Type: typ, ID: id}
	if payload != "" {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(payload)); err != nil {
			panic(fmt.Sprintf("wirefixtures: %s: %v", name, err))
		}
		f.Payload = b.Bytes()
	}
	return f
}

// Messages returns the fixtures in registry order, several per type where the payload has variants.
func Messages() []Fixture {
	uuid, mut := TransferID, MutationID
	env, ses := EnvironmentID, SessionID
	begin := `"step": "begin", "environment_id": "` + env + `", "session_id": "` + ses + `", `
	return []Fixture{
		fx("runtime_prepare/begin-skill", uuid, `{`+begin+`"action": "skill", "skill": {"type": "inline", "name": "review", "description": "Reviews a change"}, "size_bytes": 5, "sha256": "`+HelloSHA256+`"}`),
		fx("runtime_prepare/begin-plugin", uuid, `{`+begin+`"action": "plugin", "slot": 3, "plugin": {"type": "inline", "name": "linter", "description": "Lints"}, "size_bytes": 5, "sha256": "`+HelloSHA256+`"}`),
		fx("runtime_prepare/begin-file", uuid, `{`+begin+`"action": "file", "file": {"path": "/workspace/notes/a.txt"}, "size_bytes": 5, "sha256": "`+HelloSHA256+`"}`),
		fx("runtime_prepare/begin-initialize-configure", uuid, `{`+begin+`"action": "initialize", "initialization": {"action": "configure", "env": {"GOFLAGS": "-mod=mod", "LANG": "C.UTF-8"}}}`),
		fx("runtime_prepare/begin-initialize-npm", uuid, `{`+begin+`"action": "initialize", "initialization": {"action": "npm", "packages": ["left-pad@1.3.0", "typescript"]}}`),
		fx("runtime_prepare/begin-initialize-setup", uuid, `{`+begin+`"action": "initialize", "initialization": {"action": "setup", "command": "make deps", "cwd": "/workspace/project"}}`),
		fx("runtime_prepare/begin-finalize", uuid, `{`+begin+`"action": "finalize", "sources": `+sourcesJSON+`}`),
		fx("runtime_prepare/chunk", uuid, `{"step": "chunk", "offset": 65536, "data": "`+HelloBase64+`"}`),
		fx("runtime_prepare/commit", uuid, `{"step": "commit"}`),

		fx("runtime_prepare_result/ready", uuid, `{"outcome": "ready"}`),
		fx("runtime_prepare_result/received", uuid, `{"outcome": "received", "offset": 65541}`),
		fx("runtime_prepare_result/completed", uuid, `{"outcome": "completed", "size_bytes": 65541}`),
		fx("runtime_prepare_result/rejected", uuid, `{"outcome": "rejected", "error_code": "runtime_preparation_capacity"}`),
		fx("runtime_prepare_result/failed", uuid, `{"outcome": "failed", "error_code": "runtime_preparation_failed", "exit_code": 42}`),
		fx("runtime_prepare_result/unknown", uuid, `{"outcome": "unknown", "error_code": "runtime_preparation_unconfirmed"}`),

		fx("execution_prepare/every-member", "prepare-1", `{"session_id": "session-1", "configuration": `+configurationJSON+`}`),
		fx("execution_prepare/prepare", "prepare-2", `{"session_id": "session-2", "configuration": {
			"agent_kind": "contract", "conversation_id": "", "run_id": "", "agent_state_key": "agents-api-session-2",
			"execution_controls": {"web_search": "disabled", "text_verbosity": "medium"},
			"strict_resume": true, "observe_tool_observations": true, "disable_execution_environment": true}}`),
		fx("execution_prepare/read-only", "prepare-3", `{"session_id": "session-3", "configuration": {
			"agent_kind": "contract", "conversation_id": "", "run_id": "", "agent_state_key": "agents-api-session-3",
			"local_environment": {"id": "`+env+`", "workspace_directory": "/workspace", "capability_sources": null},
			"workspace_read_only": true, "release_on_completion": true, "strict_resume": true}}`),
		fx("execution_start", "prepare-2", `{"executor_id": "executor-1", "handle": "handle-1", "run_id": "run-1", "input": `+inputJSON+`}`),
		fx("execution_release", "prepare-2", `{"handle": "handle-1"}`),

		fx("preparation_status/preparing", "prepare-2", `{"executor_id": "executor-1", "handle": "handle-1", "revision": 1, "state": "preparing", "expires_at": 1800000000000}`),
		fx("preparation_status/ready-reused", "prepare-2", `{"executor_id": "executor-1", "reused": true, "handle": "handle-1", "revision": 1, "state": "ready", "expires_at": 1800000000000}`),
		fx("preparation_status/starting", "prepare-2", `{"executor_id": "executor-1", "handle": "handle-1", "revision": 3, "state": "starting", "expires_at": 1800000000000, "run_id": "run-1"}`),
		fx("preparation_status/failed", "prepare-2", `{"executor_id": "executor-1", "handle": "handle-1", "revision": 2, "state": "failed", "error_code": "preparation_failed"}`),
		fx("preparation_status/rejected", "prepare-2", `{"executor_id": "executor-1", "handle": "handle-1", "revision": 0, "state": "rejected", "error_code": "executor_unavailable", "operation": "execution_start"}`),

		fx("prompt_request/every-member", "run-1", configurationJSON),
		fx("prompt_request/no-environment", "run-2", noEnvironmentJSON),
		fx("prompt_request/run-id-in-payload", "", `{"agent_kind": "contract", "conversation_id": "", "run_id": "run-3", "input": [{"content": [{"type": "input_text", "text": "hi"}]}]}`),
		fx("prompt_cancel/receipt", "run-1", `{"delivery_id": "cancel:run-1"}`),
		fx("prompt_cancel/legacy", "run-1", ``),
		fx("device_shutdown/reason", "", `{"reason": "host shutting down"}`),
		fx("device_shutdown/no-body", "", ``),

		fx("delta", "run-1", `{"item_id": "msg-1", "delta": "Hel", "sequence": 1}`),
		fx("thinking", "run-1", `{"text": "Considering the question", "sequence": 2}`),
		fx("output_message", "run-1", `{"id": "msg-1", "status": "completed", "phase": "commentary", "text": "Hello"}`),
		fx("tool_call/every-member", "run-1", `{
			"observation": {
				"kind": "command", "status": "completed", "name": "shell", "command": "ls -la", "cwd": "/workspace",
				"exit_code": 0, "duration_ms": 12, "server": "local",
				"arguments": {"argv": ["ls", "-la"]}, "output": "total 0", "error": "ls: cannot access one entry",
				"content": [{"type": "input_text", "text": "total 0"}],
				"action": {"type": "search", "query": "go test", "queries": ["go test", "go vet"], "url": "https://example.test/s", "pattern": "*.go"}
			},
			"id": "call-1", "name": "shell", "stage": "after", "args": {"cmd": "ls -la"}, "result": {"exit_code": 0}}`),
		fx("tool_call/before", "run-1", `{"id": "call-2", "name": "shell", "stage": "before", "args": {"cmd": "pwd"}}`),
		fx("usage", "run-1", usageJSON),
		fx("error/classified", "run-1", `{"error": "upstream refused the connection", "code": "connection_failed", "http_status": 503}`),
		fx("error/unclassified", "run-1", `{"error": "boom"}`),
		fx("done", "run-1", outcomeJSON),
		fx("heartbeat", "", `{"ts": 1710000000, "active_requests": 1, "daemon_version": "1.4.2", "supported_agent_kinds": [
			{"kind": "contract", "available": true, "version": "0.3.0", "capabilities": `+CapabilitiesJSON()+`},
			{"kind": "codex", "available": false, "capabilities": `+CapabilitiesJSON()+`}]}`),

		fx("permission_decision", "request-1", `{"delivery_id": "delivery-1", "approved": true, "message": "approved with a narrower path", "updated_input": {"path": "/workspace/a"}}`),
		fx("prompt_for_user_choice_decision/answered", "ask-1", `{"delivery_id": "delivery-2", "question_answers": [{"question_id": "q1", "answers": ["Blue"]}, {"question_id": "q2", "answers": []}], "reason": "answered"}`),
		fx("prompt_for_user_choice_decision/cancelled", "ask-1", `{"delivery_id": "delivery-3", "cancelled": true, "reason": "timeout"}`),
		fx("permission_request", "run-1", `{"request_id": "request-1", "tool": "write_file", "title": "Write a.txt", "detail": "Creates /workspace/a.txt", "payload": {"path": "/workspace/a.txt"}}`),
		fx("permission_cancel", "request-1", ``),
		fx("prompt_for_user_choice", "run-1", `{"ask_id": "ask-1", "questions": [
			{"id": "q1", "header": "Colour", "question": "Which colour?", "multi_select": true, "is_other": true, "is_secret": true,
			 "options": [{"label": "Blue", "description": "The sea"}, {"label": "Red"}]},
			{"id": "q2", "question": "Anything else?", "options": []}],
			"tool_use_id": "tool-use-1", "auto_resolution_ms": 60000}`),
		fx("interaction_decision_ack/cancellation", "run-1", `{"delivery_id": "cancel:run-1", "applied": true, "outcome": `+outcomeJSON+`}`),
		fx("interaction_decision_ack/refused", "request-1", `{"delivery_id": "delivery-1", "applied": false, "error_code": "not_pending", "error": "the request is no longer pending"}`),

		fx("prompt_steer", "run-1", `{"input_id": "1", "input": `+inputJSON+`, "durable_receipt": true}`),
		fx("prompt_steer_ack/written", "run-1", `{"input_id": "1", "accepted": false, "written": true}`),
		fx("prompt_steer_ack/accepted", "run-1", `{"input_id": "1", "accepted": true}`),
		fx("prompt_steer_ack/busy", "run-1", `{"input_id": "2", "accepted": false, "error_code": "busy", "error": "another input awaits its receipt"}`),
		fx("function_result", "run-1", `{"delivery_id": "delivery-4", "call_id": "fn-1", "success": true, "content": [{"type": "input_text", "text": "42"}, {"type": "input_image", "image_url": "`+PNGDataURL+`"}]}`),
		fx("function_call", "run-1", `{"call_id": "fn-1", "name": "lookup", "arguments": {"word": "wire"}}`),

		fx("workspace_read/bytes", "read-1", `{"handle": "handle-1", "environment_id": "`+env+`", "path": "notes/a.txt", "max_bytes": 4096}`),
		fx("workspace_read/directory", "read-2", `{"run_id": "run-1", "environment_id": "`+env+`", "path": "", "max_bytes": 0, "operation": "directory", "max_entries": 100}`),
		fx("workspace_read_result/bytes", "read-1", `{"outcome": "completed", "data": "`+HelloBase64+`", "truncated": true, "close_acknowledged": true}`),
		fx("workspace_read_result/directory", "read-2", `{"outcome": "completed", "close_acknowledged": true, "directory": {"entries": [
			{"name": "a.txt", "kind": "file", "size_bytes": 5}, {"name": "notes", "kind": "directory", "size_bytes": null}], "truncated": false}}`),
		fx("workspace_read_result/rejected", "read-3", `{"outcome": "rejected", "error_code": "not_found"}`),
		fx("workspace_write/begin", mut, `{"step": "begin", "environment_id": "`+env+`", "session_id": "`+ses+`", "path": "notes/a.txt", "size_bytes": 5, "sha256": "`+HelloSHA256+`"}`),
		fx("workspace_write/chunk", mut, `{"step": "chunk", "offset": 65536, "data": "`+HelloBase64+`"}`),
		fx("workspace_write/commit", mut, `{"step": "commit"}`),
		fx("workspace_write_result/received", mut, `{"outcome": "received", "offset": 65541}`),
		fx("workspace_write_result/completed", mut, `{"outcome": "completed", "size_bytes": 65541}`),
		fx("workspace_write_result/rejected", mut, `{"outcome": "rejected", "error_code": "write_rejected", "reason": "destination_directory"}`),
		fx("workspace_export/begin", "export-1", `{"step": "begin", "handle": "handle-1", "environment_id": "`+env+`"}`),
		fx("workspace_export/next", "export-1", `{"step": "next", "offset": 65536}`),
		fx("workspace_export/cancel", "export-1", `{"step": "cancel"}`),
		fx("workspace_export_result/chunk", "export-1", `{"outcome": "chunk", "offset": 0, "data": "`+HelloBase64+`"}`),
		fx("workspace_export_result/completed", "export-1", `{"outcome": "completed", "offset": 65541}`),
		fx("workspace_export_result/failed", "export-1", `{"outcome": "failed", "offset": 0, "error_code": "export_failed"}`),

		fx("environment_quiesce", "suspend-1", `{"rollback": true, "environment_id": "`+env+`", "suspend_id": "suspend-attempt-1"}`),
		fx("environment_resume", "suspend-2", `{"rollback": true, "environment_id": "`+env+`", "suspend_id": "suspend-attempt-1"}`),
		fx("environment_quiesced/busy", "suspend-1", `{"environment_id": "`+env+`", "suspend_id": "suspend-attempt-1", "accepted": false, "error_code": "resource_busy"}`),
		fx("environment_quiesced/accepted", "suspend-1", `{"environment_id": "`+env+`", "suspend_id": "suspend-attempt-1", "accepted": true}`),
		fx("environment_resumed/accepted", "suspend-2", `{"environment_id": "`+env+`", "suspend_id": "suspend-attempt-1", "accepted": true}`),
		fx("environment_resumed/not-suspended", "suspend-2", `{"environment_id": "`+env+`", "suspend_id": "suspend-attempt-1", "accepted": false, "error_code": "not_suspended"}`),

		fx("subagent_identity/named", "run-1", `{"native_id": "agent-2", "parent_native_id": "agent-1", "native_created_at": 1710000000, "parent_turn_id": "turn-1", "source_item_id": "item-1", "name": "researcher", "instructions": "Find sources"}`),
		fx("subagent_identity/anonymous", "run-1", `{"native_id": "agent-3", "parent_native_id": "agent-1", "native_created_at": 1710000001, "parent_turn_id": "turn-1", "source_item_id": "item-2", "name": null, "instructions": null}`),
		fx("subagent_lifecycle", "run-1", `{"native_id": "agent-2", "effect_id": "effect-1", "status": "running", "occurred_at_ms": 1710000000500}`),
		fx("subagent_turn/completed", "run-1", `{"native_id": "agent-2", "turn_id": "turn-2", "status": "completed", "created_at_ms": 1710000000000, "started_at_ms": 1710000000100, "completed_at_ms": 1710000000900, "usage": `+usageJSON+`}`),
		fx("subagent_turn/pending", "run-1", `{"native_id": "agent-2", "turn_id": "turn-3", "status": "pending", "created_at_ms": 1710000001000, "started_at_ms": null, "completed_at_ms": null, "usage": null}`),
		fx("subagent_item", "run-1", `{"native_id": "agent-2", "turn_id": "turn-2", "item_id": "item-9", "position": 3, "kind": "output_message", "payload": {"status": "completed", "text": "found 3 sources"}}`),
		fx("subagent_coordination/message", "run-1", `{"id": "coord-1", "kind": "message", "status": "delivered", "actor_id": "agent-1", "recipients": ["agent-2", "agent-3"], "text": "split the work", "model": "gpt-test", "reasoning_effort": "low"}`),
		fx("subagent_coordination/spawn", "run-1", `{"id": "coord-2", "kind": "spawn", "status": "pending", "actor_id": "agent-1", "recipients": [], "text": null, "model": null, "reasoning_effort": null}`),
	}
}

// ForType returns the fixtures of one message type, in order.
func ForType(typ string) []Fixture {
	var out []Fixture
	for _, f := range Messages() {
		if f.Type == typ {
			out = append(out, f)
		}
	}
	return out
}

// Bodies returns a valid value of every HTTP body.
func Bodies() []Body {
	b := func(name, v string) Body {
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(v)); err != nil {
			panic(fmt.Sprintf("wirefixtures: %s: %v", name, err))
		}
		return Body{Name: name, Value: buf.Bytes()}
	}
	return []Body{
		b("bootstrap_request", `{"device_id": "device-1"}`),
		b("bootstrap_response", `{"device_id": "device-1", "workspace_id": "workspace-1", "ws_url": "wss://core.example.test/api/v1/agent-daemon/ws", "heartbeat_seconds": 15, "protocol_version": "`+proto.Version+`"}`),
		b("device_status_response", `{"device_id": "device-1", "online": true}`),
		b("http_error", `{"error": "incompatible_version", "detail": "wire version 0.10.0 is not 0.11.0"}`),
	}
}
