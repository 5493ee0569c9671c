package proto_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// Execution admission (facts §4.3) and the execution configuration (§4.4, §4.19).

func TestRulesAdmission(t *testing.T)         { runCases(t, admissionCases()) }
func TestRulesConfiguration(t *testing.T)     { runCases(t, configurationCases()) }
func TestRulesPreparationStatus(t *testing.T) { runCases(t, preparationStatusCases()) }

// prepareFrame wraps configuration members (written between braces) in an execution_prepare.
func prepareFrame(configuration string) string {
	return frame("execution_prepare", "prep-1", `{"session_id":"sess-1","configuration":{`+configuration+`}}`)
}

// execConfig is the configuration Core sends with execution_prepare (facts §4.3, §4.4.4).
const execConfig = `"agent_kind":"contract","conversation_id":"","run_id":"","execution_controls":{"web_search":"disabled","text_verbosity":"medium"},"agent_state_key":"agents-api-sess-1","strict_resume":true,"observe_tool_observations":true,"disable_execution_environment":true`

// readOnlyConfig is the read-only preparation profile (facts §4.3).
const readOnlyConfig = `"agent_kind":"contract","conversation_id":"","run_id":"","workspace_read_only":true,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":null},"agent_state_key":"agents-api-sess-1","strict_resume":true,"release_on_completion":true`

func checkPrepare(f *proto.Frame) error {
	return payloadOf[proto.ExecutionPreparePayload](f).CheckPrepareConfiguration()
}

func checkReadOnly(f *proto.Frame) error {
	return payloadOf[proto.ExecutionPreparePayload](f).CheckReadOnlyPreparation()
}

func admissionCases() []frameCase {
	type c = frameCase
	cases := []frameCase{
		{rule: "execution_prepare: session_id is required and not blank", frame: prepareFrame(execConfig)},
		{rule: "execution_prepare: session_id is required and not blank", frame: frame("execution_prepare", "prep-1", `{"session_id":" ","configuration":{`+execConfig+`}}`), want: "execution_prepare.session_id: must not be blank"},
		{rule: "execution_prepare: session_id is required and not blank", frame: frame("execution_prepare", "prep-1", `{"configuration":{`+execConfig+`}}`), want: "execution_prepare.session_id: is required"},
		{rule: "execution_prepare: configuration is a required object", frame: prepareFrame(execConfig)},
		{rule: "execution_prepare: configuration is a required object", frame: frame("execution_prepare", "prep-1", `{"session_id":"sess-1"}`), want: "execution_prepare.configuration: is required"},
		{rule: "execution_prepare: configuration is a required object", frame: frame("execution_prepare", "prep-1", `{"session_id":"sess-1","configuration":null}`), want: "execution_prepare.configuration: must not be null"},
		{rule: "execution_prepare: configuration is a required object", frame: frame("execution_prepare", "prep-1", `{"session_id":"sess-1","configuration":"contract"}`), want: "execution_prepare.configuration: must be a JSON object"},
		{rule: "execution_prepare: configuration.agent_kind is required and not blank", frame: prepareFrame(execConfig)},
		{rule: "execution_prepare: configuration.agent_kind is required and not blank", frame: prepareFrame(`"conversation_id":"","run_id":"","strict_resume":true`), want: "execution_prepare.configuration.agent_kind: is required"},
		{rule: "execution_prepare: configuration.agent_kind is required and not blank", frame: prepareFrame(`"agent_kind":"  ","conversation_id":"","run_id":""`), want: "execution_prepare.configuration.agent_kind: must not be blank"},

		// CheckPrepareConfiguration: the configuration rules a Runtime answers with rejected/invalid_configuration.
		{rule: "execution_prepare: CheckPrepareConfiguration accepts Core's configuration", frame: prepareFrame(execConfig), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration accepts Core's configuration", frame: prepareFrame(strings.Replace(execConfig, `"strict_resume":true`, `"strict_resume":false`, 1)), check: checkPrepare,
			want: "execution_prepare.configuration.strict_resume: must be true in execution_prepare"},
		{rule: "execution_prepare: CheckPrepareConfiguration: run_id is empty", frame: prepareFrame(strings.Replace(execConfig, `"run_id":""`, `"run_id":"run-1"`, 1)), check: checkPrepare,
			want: "execution_prepare.configuration.run_id: must be empty in execution_prepare (the Run is chosen by execution_start)"},
		{rule: "execution_prepare: CheckPrepareConfiguration: run_id is empty", frame: prepareFrame(strings.Replace(execConfig, `"run_id":"",`, ``, 1)), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration: input is empty", frame: prepareFrame(execConfig + `,"input":[{"content":[{"type":"input_text","text":"hi"}]}]`), check: checkPrepare,
			want: "execution_prepare.configuration.input: must be empty in execution_prepare (input arrives with execution_start)"},
		{rule: "execution_prepare: CheckPrepareConfiguration: input is empty", frame: prepareFrame(execConfig), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration: conversation_id is empty", frame: prepareFrame(strings.Replace(execConfig, `"conversation_id":""`, `"conversation_id":"conv-1"`, 1)), check: checkPrepare,
			want: "execution_prepare.configuration.conversation_id: must be empty in execution_prepare"},
		{rule: "execution_prepare: CheckPrepareConfiguration: conversation_id is empty", frame: prepareFrame(execConfig), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration: workspace_authoring is false", frame: prepareFrame(execConfig + `,"workspace_authoring":false`), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration: workspace_authoring is false", frame: prepareFrame(execConfig + `,"workspace_authoring":true`), check: checkPrepare,
			want: "execution_prepare.configuration.workspace_authoring: must be false in execution_prepare"},
		{rule: "execution_prepare: CheckPrepareConfiguration: agent_state_key is agents-api-<session_id>", frame: prepareFrame(execConfig), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration: agent_state_key is agents-api-<session_id>", frame: prepareFrame(strings.Replace(execConfig, `agents-api-sess-1`, `agents-api-sess-2`, 1)), check: checkPrepare,
			want: `execution_prepare.configuration.agent_state_key: must be "agents-api-sess-1"`},
		{rule: "execution_prepare: CheckPrepareConfiguration: agent_state_key is agents-api-<session_id>", frame: prepareFrame(strings.Replace(execConfig, `"agent_state_key":"agents-api-sess-1",`, ``, 1)), check: checkPrepare,
			want: `execution_prepare.configuration.agent_state_key: must be "agents-api-sess-1"`},
		{rule: "execution_prepare: CheckPrepareConfiguration: strict_resume is true", frame: prepareFrame(execConfig), check: checkPrepare},
		{rule: "execution_prepare: CheckPrepareConfiguration: strict_resume is true", frame: prepareFrame(strings.Replace(execConfig, `,"strict_resume":true`, ``, 1)), check: checkPrepare,
			want: "execution_prepare.configuration.strict_resume: must be true in execution_prepare"},

		// CheckReadOnlyPreparation: the read-only preparation profile, member by member.
		{rule: "execution_prepare: CheckReadOnlyPreparation accepts the read-only profile", frame: prepareFrame(readOnlyConfig), check: checkReadOnly},
		{rule: "execution_prepare: CheckReadOnlyPreparation accepts the read-only profile", frame: prepareFrame(execConfig), check: checkReadOnly,
			want: "execution_prepare.configuration.workspace_read_only: must be true for a read-only preparation"},
	}
	readOnly := func(member, edit, want string) {
		rule := "execution_prepare: CheckReadOnlyPreparation: " + member
		cases = append(cases,
			c{rule: rule, frame: prepareFrame(readOnlyConfig), check: checkReadOnly},
			c{rule: rule, frame: prepareFrame(edit), check: checkReadOnly, want: "execution_prepare.configuration." + member + ": " + want},
		)
	}
	without := func(member string) string {
		out := readOnlyConfig
		for _, m := range []string{`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":null}`, `,"agent_state_key":"agents-api-sess-1"`, `,"strict_resume":true`, `,"release_on_completion":true`, `,"workspace_read_only":true`} {
			if strings.Contains(m, `"`+member+`"`) {
				out = strings.Replace(out, m, "", 1)
			}
		}
		return out
	}
	readOnly("workspace_read_only", without("workspace_read_only"), "must be true for a read-only preparation")
	readOnly("local_environment", without("local_environment"), "is required for a read-only preparation")
	readOnly("agent_state_key", without("agent_state_key"), "is required for a read-only preparation")
	readOnly("strict_resume", without("strict_resume"), "must be true for a read-only preparation")
	readOnly("release_on_completion", without("release_on_completion"), "must be true for a read-only preparation")
	readOnly("run_id", strings.Replace(readOnlyConfig, `"run_id":""`, `"run_id":"run-1"`, 1), "must be empty for a read-only preparation")
	readOnly("input", readOnlyConfig+`,"input":[{"content":[{"type":"input_text","text":"hi"}]}]`, "must be empty for a read-only preparation")
	readOnly("conversation_id", strings.Replace(readOnlyConfig, `"conversation_id":""`, `"conversation_id":"c"`, 1), "must be empty for a read-only preparation")
	readOnly("agent_session_id", readOnlyConfig+`,"agent_session_id":"native-1"`, "must be empty for a read-only preparation")
	readOnly("agent_options", readOnlyConfig+`,"agent_options":{"contract":{}}`, "must be absent for a read-only preparation")
	readOnly("execution_controls", readOnlyConfig+`,"execution_controls":{"web_search":"disabled","text_verbosity":"low"}`, "must be absent for a read-only preparation")
	readOnly("mcp_http_servers", readOnlyConfig+`,"mcp_http_servers":[{"connection_origin":"environment","server_label":"l","server_url":"https://m","allowed_tools":null}]`, "must be absent for a read-only preparation")
	readOnly("function_tools", readOnlyConfig+`,"function_tools":[{"name":"f","description":"d","parameters":{}}]`, "must be absent for a read-only preparation")
	readOnly("require_existing_native_session", readOnlyConfig+`,"require_existing_native_session":true`, "must be false for a read-only preparation")
	readOnly("workspace_authoring", readOnlyConfig+`,"workspace_authoring":true`, "must be false for a read-only preparation")
	readOnly("observe_messages", readOnlyConfig+`,"observe_messages":true`, "must be false for a read-only preparation")
	readOnly("observe_tool_observations", readOnlyConfig+`,"observe_tool_observations":true`, "must be false for a read-only preparation")
	readOnly("observe_subagent_identities", readOnlyConfig+`,"observe_subagent_identities":true`, "must be false for a read-only preparation")
	// tool_search and disable_execution_environment cannot reach the profile check from a valid
	// frame: the tool search rule needs a deferred function tool (rejected first as function_tools),
	// and disable_execution_environment forbids the local_environment the profile requires. They
	// are checked on the payload directly in TestCheckReadOnlyPreparationUnreachableMembers.

	cases = append(cases,
		c{rule: "execution_start: executor_id, handle and run_id are required and not blank", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"run-1","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`)},
		c{rule: "execution_start: executor_id, handle and run_id are required and not blank", frame: frame("execution_start", "prep-1", `{"executor_id":"","handle":"handle-1","run_id":"run-1","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`), want: "execution_start.executor_id: must not be blank"},
		c{rule: "execution_start: executor_id, handle and run_id are required and not blank", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":" ","run_id":"run-1","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`), want: "execution_start.handle: must not be blank"},
		c{rule: "execution_start: executor_id, handle and run_id are required and not blank", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"\t","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`), want: "execution_start.run_id: must not be blank"},
		c{rule: "execution_start: executor_id, handle and run_id are required and not blank", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`), want: "execution_start.run_id: is required"},
		c{rule: "execution_start: input is required and must validate", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"run-1","input":[{"content":[{"type":"input_image","image_url":"$PNG"}]}]}`)},
		c{rule: "execution_start: input is required and must validate", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"run-1"}`), want: "execution_start.input: is required"},
		c{rule: "execution_start: input is required and must validate", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"run-1","input":[]}`), want: "execution_start.input: must contain at least one message"},
		c{rule: "execution_start: input is required and must validate", frame: frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"run-1","input":[{"content":[{"type":"input_text","text":" "}]}]}`), want: "execution_start.input[0].content: must contain non-blank text or an image"},
		c{rule: "execution_release: handle is required and not blank", frame: frame("execution_release", "prep-1", `{"handle":"handle-1"}`)},
		c{rule: "execution_release: handle is required and not blank", frame: frame("execution_release", "prep-1", `{"handle":""}`), want: "execution_release.handle: must not be blank"},
		c{rule: "execution_release: handle is required and not blank", frame: frame("execution_release", "prep-1", `{}`), want: "execution_release.handle: is required"},
	)
	return cases
}

// The two members of the read-only profile that a valid frame cannot bring to the profile check.
func TestCheckReadOnlyPreparationUnreachableMembers(t *testing.T) {
	base := func() *proto.ExecutionPreparePayload {
		f, err := proto.ParseFrame([]byte(prepareFrame(readOnlyConfig)))
		if err != nil {
			t.Fatal(err)
		}
		return f.Payload.(*proto.ExecutionPreparePayload)
	}
	if err := base().CheckReadOnlyPreparation(); err != nil {
		t.Fatalf("read-only profile rejected: %v", err)
	}
	for _, tc := range []struct {
		edit func(*proto.PromptRequestPayload)
		want string
	}{
		{func(c *proto.PromptRequestPayload) { c.ToolSearch = true }, "execution_prepare.configuration.tool_search: must be false for a read-only preparation"},
		{func(c *proto.PromptRequestPayload) { c.DisableExecutionEnvironment = true }, "execution_prepare.configuration.disable_execution_environment: must be false for a read-only preparation"},
	} {
		p := base()
		tc.edit(&p.Configuration)
		got := ""
		if err := p.CheckReadOnlyPreparation(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func configurationCases() []frameCase {
	req := func(members string) string {
		return frame("prompt_request", "run-1", `{"agent_kind":"contract","conversation_id":"","run_id":"","input":[{"content":[{"type":"input_text","text":"hi"}]}]`+members+`}`)
	}
	controls := func(ctl string) string { return req(`,"execution_controls":` + ctl) }
	localEnv := `,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":null,"network_access":"enabled"}`
	mcp := func(origin, rest string) string {
		return `,"mcp_http_servers":[{"connection_origin":` + origin + `,"server_label":"docs","server_url":"https://mcp.example/docs","allowed_tools":["search"]` + rest + `}]`
	}
	tool := func(name string, deferred bool) string {
		return fmt.Sprintf(`{"name":%q,"description":"d","parameters":{"type":"object"},"defer_loading":%t}`, name, deferred)
	}
	servers := func(f *proto.Frame) []proto.MCPHTTPServer {
		return payloadOf[proto.PromptRequestPayload](f).MCPHTTPServers
	}
	allowed := func(f *proto.Frame) []string {
		return payloadOf[proto.PromptRequestPayload](f).MCPHTTPServers[0].AllowedTools
	}
	cases := []frameCase{
		{rule: "configuration: agent_kind is required and not blank", frame: req("")},
		{rule: "configuration: agent_kind is required and not blank", frame: frame("prompt_request", "run-1", `{"agent_kind":"","conversation_id":"","run_id":""}`), want: "prompt_request.agent_kind: must not be blank"},
		{rule: "configuration: max_concurrent_subagents is a non-negative integer or null", frame: req(`,"max_concurrent_subagents":4`)},
		{rule: "configuration: max_concurrent_subagents is a non-negative integer or null", frame: req(`,"max_concurrent_subagents":null`)},
		{rule: "configuration: max_concurrent_subagents is a non-negative integer or null", frame: req(`,"max_concurrent_subagents":-1`), want: "prompt_request.max_concurrent_subagents: must not be negative"},
		{rule: "configuration: agent_options is an object passed unchanged", frame: req(`,"agent_options":{"contract":{"deltas":["a","b"]}}`)},
		{rule: "configuration: agent_options is an object passed unchanged", frame: req(`,"agent_options":["contract"]`), want: "prompt_request.agent_options: must be a JSON object"},

		{rule: "execution_controls: web_search and text_verbosity are required when the block is present", frame: controls(`{"web_search":"disabled","text_verbosity":"medium"}`)},
		{rule: "execution_controls: web_search and text_verbosity are required when the block is present", frame: controls(`{"text_verbosity":"medium"}`), want: "prompt_request.execution_controls.web_search: is required"},
		{rule: "execution_controls: web_search and text_verbosity are required when the block is present", frame: controls(`{"web_search":"disabled"}`), want: "prompt_request.execution_controls.text_verbosity: is required"},
		{rule: "execution_controls: web_search and text_verbosity are required when the block is present", frame: controls(`null`), want: "prompt_request.execution_controls: must not be null"},
		{rule: "execution_controls: web_search is disabled, cached or live", frame: controls(`{"web_search":"cached","text_verbosity":"medium"}`)},
		{rule: "execution_controls: web_search is disabled, cached or live", frame: controls(`{"web_search":"live","text_verbosity":"medium"}`)},
		{rule: "execution_controls: web_search is disabled, cached or live", frame: controls(`{"web_search":"enabled","text_verbosity":"medium"}`), want: "prompt_request.execution_controls.web_search: must be one of disabled, cached, live"},
		{rule: "execution_controls: web_search is disabled, cached or live", frame: controls(`{"web_search":"","text_verbosity":"medium"}`), want: "prompt_request.execution_controls.web_search: must be one of disabled, cached, live"},
		{rule: "execution_controls: text_verbosity is low, medium or high", frame: controls(`{"web_search":"disabled","text_verbosity":"low"}`)},
		{rule: "execution_controls: text_verbosity is low, medium or high", frame: controls(`{"web_search":"disabled","text_verbosity":"high"}`)},
		{rule: "execution_controls: text_verbosity is low, medium or high", frame: controls(`{"web_search":"disabled","text_verbosity":"Medium"}`), want: "prompt_request.execution_controls.text_verbosity: must be one of low, medium, high"},
		{rule: "execution_controls: disable_programmatic_tool_calling is a boolean", frame: controls(`{"disable_programmatic_tool_calling":true,"web_search":"disabled","text_verbosity":"medium"}`)},
		{rule: "execution_controls: disable_programmatic_tool_calling is a boolean", frame: controls(`{"disable_programmatic_tool_calling":"yes","web_search":"disabled","text_verbosity":"medium"}`), want: "prompt_request.execution_controls.disable_programmatic_tool_calling: must be a JSON boolean"},
		{rule: "execution_controls: output_format is json_schema with a schema passed unchanged", frame: controls(`{"web_search":"disabled","text_verbosity":"medium","output_format":{"type":"json_schema","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`)},
		{rule: "execution_controls: output_format is json_schema with a schema passed unchanged", frame: controls(`{"web_search":"disabled","text_verbosity":"medium","output_format":{"type":"json_schema","schema":true}}`)},
		{rule: "execution_controls: output_format is json_schema with a schema passed unchanged", frame: controls(`{"web_search":"disabled","text_verbosity":"medium","output_format":{"type":"json_object","schema":{}}}`), want: "prompt_request.execution_controls.output_format.type: must be json_schema"},
		{rule: "execution_controls: output_format is json_schema with a schema passed unchanged", frame: controls(`{"web_search":"disabled","text_verbosity":"medium","output_format":{"type":"json_schema","schema":"object"}}`), want: "prompt_request.execution_controls.output_format.schema: must be a JSON Schema (an object or a boolean)"},
		{rule: "execution_controls: output_format is json_schema with a schema passed unchanged", frame: controls(`{"web_search":"disabled","text_verbosity":"medium","output_format":{"type":"json_schema"}}`), want: "prompt_request.execution_controls.output_format.schema: is required"},

		{rule: "mcp_http_servers: connection_origin is service or environment, with no default", frame: req(mcp(`"service"`, "") + `,"disable_execution_environment":true`)},
		{rule: "mcp_http_servers: connection_origin is service or environment, with no default", frame: req(mcp(`"environment"`, "") + localEnv)},
		{rule: "mcp_http_servers: connection_origin is service or environment, with no default", frame: req(`,"mcp_http_servers":[{"server_label":"docs","server_url":"https://m","allowed_tools":null}],"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].connection_origin: is required"},
		{rule: "mcp_http_servers: connection_origin is service or environment, with no default", frame: req(mcp(`""`, "") + `,"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].connection_origin: must be service or environment (there is no default)"},
		{rule: "mcp_http_servers: connection_origin is service or environment, with no default", frame: req(mcp(`"proxy"`, "") + `,"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].connection_origin: must be service or environment (there is no default)"},
		{rule: "mcp_http_servers: connection_origin is service or environment, with no default", frame: req(mcp(`null`, "") + `,"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].connection_origin: must not be null"},
		{rule: "mcp_http_servers: service requires disable_execution_environment and no local_environment", frame: req(mcp(`"service"`, `,"required":true,"bearer_token":"secret"`) + `,"disable_execution_environment":true`)},
		{rule: "mcp_http_servers: service requires disable_execution_environment and no local_environment", frame: req(mcp(`"service"`, "")), want: "prompt_request.mcp_http_servers[0].connection_origin: service requires disable_execution_environment true and no local_environment"},
		{rule: "mcp_http_servers: service requires disable_execution_environment and no local_environment", frame: req(mcp(`"service"`, "") + localEnv), want: "prompt_request.mcp_http_servers[0].connection_origin: service requires disable_execution_environment true and no local_environment"},
		{rule: "mcp_http_servers: environment requires a local_environment and disable_execution_environment false", frame: req(mcp(`"environment"`, "") + localEnv + `,"disable_execution_environment":false`)},
		{rule: "mcp_http_servers: environment requires a local_environment and disable_execution_environment false", frame: req(mcp(`"environment"`, "")), want: "prompt_request.mcp_http_servers[0].connection_origin: environment requires a local_environment and disable_execution_environment false"},
		{rule: "mcp_http_servers: environment requires a local_environment and disable_execution_environment false", frame: req(mcp(`"environment"`, "") + `,"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].connection_origin: environment requires a local_environment and disable_execution_environment false"},
		{rule: "mcp_http_servers: server_label and server_url are required and not blank", frame: req(mcp(`"service"`, "") + `,"disable_execution_environment":true`)},
		{rule: "mcp_http_servers: server_label and server_url are required and not blank", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":" ","server_url":"https://m","allowed_tools":null}],"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].server_label: must not be blank"},
		{rule: "mcp_http_servers: server_label and server_url are required and not blank", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"","allowed_tools":null}],"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].server_url: must not be blank"},
		{rule: "mcp_http_servers: server_label and server_url are required and not blank", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","allowed_tools":null}],"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].server_url: is required"},
		{rule: "mcp_http_servers: allowed_tools is required, and null and [] are distinct", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"https://m","allowed_tools":null}],"disable_execution_environment":true`),
			check: expect(allowed, []string(nil))},
		{rule: "mcp_http_servers: allowed_tools is required, and null and [] are distinct", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"https://m","allowed_tools":[]}],"disable_execution_environment":true`),
			check: expect(allowed, []string{})},
		{rule: "mcp_http_servers: allowed_tools is required, and null and [] are distinct", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"https://m"}],"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].allowed_tools: is required"},
		{rule: "mcp_http_servers: allowed_tools is required, and null and [] are distinct", frame: req(`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"https://m","allowed_tools":[null]}],"disable_execution_environment":true`), want: "prompt_request.mcp_http_servers[0].allowed_tools[0]: must not be null"},
		{rule: "mcp_http_servers: absent or null keeps existing behaviour, [] means no servers", frame: req(`,"mcp_http_servers":null`), check: expect(servers, []proto.MCPHTTPServer(nil))},
		{rule: "mcp_http_servers: absent or null keeps existing behaviour, [] means no servers", frame: req(`,"mcp_http_servers":[]`), check: expect(servers, []proto.MCPHTTPServer{})},
		{rule: "mcp_http_servers: absent or null keeps existing behaviour, [] means no servers", frame: req(`,"mcp_http_servers":{}`), want: "prompt_request.mcp_http_servers: must be a JSON array"},

		{rule: "tool search: tool_search and a deferred function tool go together", frame: req(`,"tool_search":true,"function_tools":[` + tool("a", false) + `,` + tool("b", true) + `]`)},
		{rule: "tool search: tool_search and a deferred function tool go together", frame: req(`,"function_tools":[` + tool("a", false) + `]`)},
		{rule: "tool search: tool_search and a deferred function tool go together", frame: req(`,"tool_search":true`), want: "prompt_request.tool_search: tool search needs both tool_search true and at least one function tool with defer_loading"},
		{rule: "tool search: tool_search and a deferred function tool go together", frame: req(`,"tool_search":true,"function_tools":[` + tool("a", false) + `]`), want: "prompt_request.tool_search: tool search needs both tool_search true and at least one function tool with defer_loading"},
		{rule: "tool search: tool_search and a deferred function tool go together", frame: req(`,"function_tools":[` + tool("a", true) + `]`), want: "prompt_request.tool_search: tool search needs both tool_search true and at least one function tool with defer_loading"},
		{rule: "function_tools: name, description and parameters are required; names are unique; parameters is a schema object", frame: req(`,"function_tools":[` + tool("a", false) + `,` + tool("b", false) + `]`)},
		{rule: "function_tools: name, description and parameters are required; names are unique; parameters is a schema object", frame: req(`,"function_tools":[` + tool("a", false) + `,` + tool("a", false) + `]`), want: "prompt_request.function_tools[1].name: must be unique"},
		{rule: "function_tools: name, description and parameters are required; names are unique; parameters is a schema object", frame: req(`,"function_tools":[{"name":" ","description":"d","parameters":{}}]`), want: "prompt_request.function_tools[0].name: must not be blank"},
		{rule: "function_tools: name, description and parameters are required; names are unique; parameters is a schema object", frame: req(`,"function_tools":[{"name":"f","parameters":{}}]`), want: "prompt_request.function_tools[0].description: is required"},
		{rule: "function_tools: name, description and parameters are required; names are unique; parameters is a schema object", frame: req(`,"function_tools":[{"name":"f","description":"d"}]`), want: "prompt_request.function_tools[0].parameters: is required"},
		{rule: "function_tools: name, description and parameters are required; names are unique; parameters is a schema object", frame: req(`,"function_tools":[{"name":"f","description":"d","parameters":"object"}]`), want: "prompt_request.function_tools[0].parameters: must be a JSON Schema object"},

		{rule: "local_environment: id, workspace_directory and capability_sources (nullable) are required", frame: req(localEnv)},
		{rule: "local_environment: id, workspace_directory and capability_sources (nullable) are required", frame: req(`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":{"skills":[{"type":"inline","name":"n","description":"d"}],"directories":["/opt/skills"]},"capabilities":true,"tool_environment":true,"allowed_domains":["example.com"]}`)},
		{rule: "local_environment: id, workspace_directory and capability_sources (nullable) are required", frame: req(`,"local_environment":{"id":"env-1","workspace_directory":"/workspace"}`), want: "prompt_request.local_environment.capability_sources: is required"},
		{rule: "local_environment: id, workspace_directory and capability_sources (nullable) are required", frame: req(`,"local_environment":{"id":"","workspace_directory":"/workspace","capability_sources":null}`), want: "prompt_request.local_environment.id: must not be blank"},
		{rule: "local_environment: id, workspace_directory and capability_sources (nullable) are required", frame: req(`,"local_environment":{"id":"env-1","workspace_directory":"workspace","capability_sources":null}`), want: "prompt_request.local_environment.workspace_directory: must be an absolute path"},
		{rule: "local_environment: id, workspace_directory and capability_sources (nullable) are required", frame: req(`,"local_environment":{"id":"env-1","capability_sources":null}`), want: "prompt_request.local_environment.workspace_directory: is required"},
		{rule: "local_environment: capability_sources follows the runtime_prepare sources rules", frame: req(`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":{"directories":` + jsonList(50, func(i int) string { return fmt.Sprintf(`"/d/%d"`, i) }) + `}}`)},
		{rule: "local_environment: capability_sources follows the runtime_prepare sources rules", frame: req(`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":{"directories":` + jsonList(51, func(i int) string { return fmt.Sprintf(`"/d/%d"`, i) }) + `}}`), want: "prompt_request.local_environment.capability_sources.directories: must have at most 50 entries"},
		{rule: "local_environment: capability_sources follows the runtime_prepare sources rules", frame: req(`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":{"plugins":[{"type":"inline","name":"p","description":""}]}}`), want: "prompt_request.local_environment.capability_sources.plugins[0].description: must be non-empty UTF-8"},
		{rule: "local_environment: absent when disable_execution_environment is true", frame: req(`,"disable_execution_environment":true`)},
		{rule: "local_environment: absent when disable_execution_environment is true", frame: req(localEnv + `,"disable_execution_environment":true`), want: "prompt_request.local_environment: must be absent when disable_execution_environment is true"},
	}
	return cases
}

func preparationStatusCases() []frameCase {
	type c = frameCase
	st := func(members string) string { return frame("preparation_status", "prep-1", "{"+members+"}") }
	cases := []frameCase{
		{rule: "preparation_status: state is preparing, ready, starting, started, released, expired, failed or rejected", frame: st(`"executor_id":"e","handle":"h","revision":1,"state":"preparing","expires_at":1800000000000`)},
		{rule: "preparation_status: state is preparing, ready, starting, started, released, expired, failed or rejected", frame: st(`"handle":"h","revision":1,"state":"paused"`), want: "preparation_status.state: must be one of preparing, ready, starting, started, released, expired, failed, rejected"},
		{rule: "preparation_status: state is preparing, ready, starting, started, released, expired, failed or rejected", frame: st(`"handle":"h","revision":1`), want: "preparation_status.state: is required"},
		{rule: "preparation_status: revision is a required non-negative integer", frame: st(`"handle":"h","revision":7,"state":"released"`)},
		{rule: "preparation_status: revision is a required non-negative integer", frame: st(`"handle":"h","state":"released"`), want: "preparation_status.revision: is required"},
		{rule: "preparation_status: revision is a required non-negative integer", frame: st(`"handle":"h","revision":-1,"state":"released"`), want: "preparation_status.revision: must not be negative"},
		{rule: "preparation_status: revision 0 only on rejected", frame: st(`"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"preparation_capacity"`)},
		{rule: "preparation_status: revision 0 only on rejected", frame: st(`"handle":"h","revision":0,"state":"preparing"`), want: "preparation_status.revision: must be at least 1 on preparing"},
		{rule: "preparation_status: revision 0 only on rejected", frame: st(`"handle":"h","revision":0,"state":"started","run_id":"r"`), want: "preparation_status.revision: must be at least 1 on started"},
		{rule: "preparation_status: revision 0 only on rejected", frame: st(`"handle":"h","revision":3,"state":"rejected","operation":"execution_start","error_code":"start_conflict"`), want: "preparation_status.revision: must be 0 on rejected (a rejection does not change the handle's revision)"},
		{rule: "preparation_status: operation is set only on rejected, naming the rejected request", frame: st(`"executor_id":"e","handle":"h","revision":0,"state":"rejected","operation":"execution_start","error_code":"executor_unavailable"`)},
		{rule: "preparation_status: operation is set only on rejected, naming the rejected request", frame: st(`"revision":0,"state":"rejected","operation":"execution_release","error_code":"unknown_preparation"`)},
		{rule: "preparation_status: operation is set only on rejected, naming the rejected request", frame: st(`"revision":0,"state":"rejected","error_code":"invalid_request"`), want: "preparation_status.operation: must name the rejected request: execution_prepare, execution_start or execution_release"},
		{rule: "preparation_status: operation is set only on rejected, naming the rejected request", frame: st(`"revision":0,"state":"rejected","operation":"prompt_request","error_code":"invalid_request"`), want: "preparation_status.operation: must name the rejected request: execution_prepare, execution_start or execution_release"},
		{rule: "preparation_status: operation is set only on rejected, naming the rejected request", frame: st(`"handle":"h","revision":2,"state":"ready","operation":"execution_prepare"`), want: "preparation_status.operation: is only set on rejected"},
		{rule: "preparation_status: rejected and failed carry an error_code; other states carry none", frame: st(`"executor_id":"e","handle":"h","revision":2,"state":"failed","error_code":"preparation_failed"`)},
		{rule: "preparation_status: rejected and failed carry an error_code; other states carry none", frame: st(`"revision":0,"state":"rejected","operation":"execution_prepare"`), want: "preparation_status.error_code: is required on rejected"},
		{rule: "preparation_status: rejected and failed carry an error_code; other states carry none", frame: st(`"handle":"h","revision":3,"state":"failed"`), want: "preparation_status.error_code: is required on failed"},
		{rule: "preparation_status: rejected and failed carry an error_code; other states carry none", frame: st(`"handle":"h","revision":2,"state":"expired","error_code":"preparation_failed"`), want: "preparation_status.error_code: is only set on failed and rejected"},
		{rule: "preparation_status: error_code is a listed preparation code", frame: st(`"handle":"h","revision":5,"state":"failed","run_id":"r","error_code":"start_cancelled"`)},
		{rule: "preparation_status: error_code is a listed preparation code", frame: st(`"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"runtime_preparation_capacity"`), want: "preparation_status.error_code: must be a listed preparation code"},
		{rule: "preparation_status: error_code is a listed preparation code", frame: st(`"handle":"h","revision":2,"state":"failed","error_code":"boom"`), want: "preparation_status.error_code: must be a listed preparation code"},
		{rule: "preparation_status: a handle is required on every state but rejected", frame: st(`"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"executor_capacity"`)},
		{rule: "preparation_status: a handle is required on every state but rejected", frame: st(`"executor_id":"e","revision":2,"state":"ready"`), want: "preparation_status.handle: is required on ready"},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"executor_id":"e","handle":"h","revision":3,"state":"starting","run_id":"run-1"`)},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"executor_id":"e","handle":"h","revision":4,"state":"started","run_id":"run-1"`)},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"handle":"h","revision":3,"state":"released"`)},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"handle":"h","revision":3,"state":"starting"`), want: "preparation_status.run_id: is required on starting"},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"handle":"h","revision":4,"state":"started"`), want: "preparation_status.run_id: is required on started"},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"handle":"h","revision":2,"state":"ready","run_id":"run-1"`), want: "preparation_status.run_id: must be empty before starting"},
		{rule: "preparation_status: run_id is set from starting on", frame: st(`"handle":"h","revision":1,"state":"preparing","run_id":"run-1"`), want: "preparation_status.run_id: must be empty before starting"},
		{rule: "preparation_status: reused only on ready at revision 1", frame: st(`"executor_id":"e","reused":true,"handle":"h","revision":1,"state":"ready","expires_at":1800000000000`)},
		{rule: "preparation_status: reused only on ready at revision 1", frame: st(`"executor_id":"e","reused":true,"handle":"h","revision":2,"state":"ready"`), want: "preparation_status.revision: must be 1 when ready reuses an Executor"},
		{rule: "preparation_status: reused only on ready at revision 1", frame: st(`"executor_id":"e","reused":true,"handle":"h","revision":1,"state":"preparing"`), want: "preparation_status.reused: is only set on ready"},
		{rule: "preparation_status: reused only on ready at revision 1", frame: st(`"executor_id":"e","reused":true,"handle":"h","revision":2,"state":"started","run_id":"r"`), want: "preparation_status.reused: is only set on ready"},
		{rule: "preparation_status: expires_at is Unix milliseconds, not negative", frame: st(`"handle":"h","revision":1,"state":"preparing","expires_at":0`)},
		{rule: "preparation_status: expires_at is Unix milliseconds, not negative", frame: st(`"handle":"h","revision":1,"state":"preparing","expires_at":-1`), want: "preparation_status.expires_at: must be Unix milliseconds, not negative"},
	}
	for _, code := range slices.Sorted(maps.Keys(proto.PreparationCodes)) {
		cases = append(cases, c{rule: "preparation_status: error_code is a listed preparation code",
			frame: st(`"revision":0,"state":"rejected","operation":"execution_prepare","error_code":` + jstr(code))})
	}
	return cases
}
