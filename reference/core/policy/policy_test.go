package policy_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/policy"
)

func heartbeat(kind string, available bool, supported ...string) *proto.HeartbeatPayload {
	caps := proto.MustDeclareCapabilities(supported...)
	return &proto.HeartbeatPayload{SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: kind, Available: available, Capabilities: &caps}}}
}

func TestEveryCapabilityWithAnAdmissionRuleIsInTheTable(t *testing.T) {
	// The spec: Core has no admission rule for permissions, workspace_authoring (gated inside the
	// Runtime), usage and resume. Every other capability has at least one rule.
	noRule := map[string]bool{"permissions": true, "workspace_authoring": true, "usage": true, "resume": true}
	inTable := map[string]bool{}
	for _, r := range policy.Table {
		inTable[r.Capability] = true
	}
	for _, c := range proto.CapabilityNames() {
		if inTable[c] == noRule[c] {
			t.Errorf("capability %s: in table %v, but the spec says rule=%v", c, inTable[c], !noRule[c])
		}
	}
}

func TestAdmission(t *testing.T) {
	p := policy.New()
	withSchema := &proto.PromptRequestPayload{AgentKind: "codex", ExecutionControls: &proto.ExecutionControls{
		WebSearch: "disabled", TextVerbosity: "medium", OutputFormat: &proto.OutputFormat{Type: "json_schema", Schema: json.RawMessage(`{}`)}}}
	cases := []struct {
		name    string
		req     policy.Request
		hb      *proto.HeartbeatPayload
		known   bool
		verdict policy.Verdict
		reason  string
		missing []string
	}{
		{"contract, none, declared", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "none"},
			heartbeat("contract", true, "preparation", "environment_none"), true, policy.Allow, policy.ReasonAllowed, nil},
		{"no heartbeat yet: nothing inferred", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "none"},
			nil, false, policy.Deny, policy.ReasonUnknown, []string{"preparation", "environment_none"}},
		{"kind not advertised: no other Harness is chosen", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "none"},
			heartbeat("codex", true, proto.CapabilityNames()...), true, policy.Deny, policy.ReasonNotAdvertised, []string{"preparation", "environment_none"}},
		{"unavailable", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "none"},
			heartbeat("contract", false, proto.CapabilityNames()...), true, policy.Deny, policy.ReasonUnavailable, []string{"preparation", "environment_none"}},
		{"hosted environment", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "self_hosted"},
			heartbeat("contract", true, "preparation", "local_environment"), true, policy.Deny, policy.ReasonCapabilitiesMissed,
			[]string{"workspace_read_preparation", "workspace_output_export"}},
		{"production harness needs the always set, json_schema needs two more", policy.Request{Configuration: withSchema, Environment: "none"},
			heartbeat("codex", true, "streaming", "steering", "durable_turns", "preparation", "execution_controls", "tool_observations", "environment_none", "structured_output"), true,
			policy.Deny, policy.ReasonCapabilitiesMissed, []string{"durable_input_receipts", "message_items"}},
		{"image input", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "none",
			Input: proto.MessageInput{{Content: []proto.InputContent{proto.Image("data:image/png;base64,AA==")}}}},
			heartbeat("contract", true, "preparation", "environment_none"), true, policy.Deny, policy.ReasonCapabilitiesMissed, []string{"message_images"}},
		{"MCP with a bearer", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract", DisableExecutionEnvironment: true,
			MCPHTTPServers: []proto.MCPHTTPServer{{ConnectionOrigin: "service", ServerLabel: "m", ServerURL: "u", Required: true, BearerToken: "t"}}}, Environment: "none"},
			heartbeat("contract", true, "preparation", "environment_none", "mcp_http_tools"), true, policy.Deny, policy.ReasonCapabilitiesMissed,
			[]string{"mcp_http_required", "mcp_http_bearer_auth"}},
		{"unknown environment", policy.Request{Configuration: &proto.PromptRequestPayload{AgentKind: "contract"}, Environment: "moon"},
			heartbeat("contract", true, proto.CapabilityNames()...), true, policy.Deny, policy.ReasonEnvironment, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := p.Evaluate(c.req, c.hb, c.known)
			if d.Verdict != c.verdict || d.Reason != c.reason || !reflect.DeepEqual(d.Missing, c.missing) {
				t.Fatalf("got %s, want %s (%s: %v)", d, c.verdict, c.reason, c.missing)
			}
		})
	}
}

func TestPreparationRejections(t *testing.T) {
	p := policy.New()
	if d := p.Preparation(proto.CodePreparationCapacity); d.Verdict != policy.Retry {
		t.Fatalf("preparation_capacity: %s", d)
	}
	for _, code := range []string{proto.CodeExecutorCapacity, proto.CodeResourceUnavailable, proto.CodeInvalidConfiguration} {
		if d := p.Preparation(code); d.Verdict != policy.Deny {
			t.Fatalf("%s: %s", code, d)
		}
	}
}
