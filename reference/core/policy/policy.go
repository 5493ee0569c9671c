// Package policy is the reference Core's capability admission, written as data: the spec's table
// "Core requires it when" (runtime-protocol.md, Capability declarations) as a list of rules, each
// naming a capability and the condition under which an execution needs it.
//
// Evaluate answers ALLOW, or DENY with every missing capability, for an Agent configuration and an
// Environment type against the selected device's declaration. Core evaluates it at device selection
// and again right before it claims a Turn, and never falls back to another Harness. Preparation
// answers RETRY for a definite preparation_capacity rejection (the Turn stays unclaimed), DENY for
// any other rejection. CONDITIONAL (an operator decision) belongs to the interaction families and is
// not produced for admission.
package policy

import (
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// Verdict is a policy outcome (execution-protocol.md §14).
type Verdict string

const (
	Allow       Verdict = "ALLOW"
	Deny        Verdict = "DENY"
	Conditional Verdict = "CONDITIONAL"
	Retry       Verdict = "RETRY"
)

// Environment types.
const (
	EnvironmentNone         = "none"
	EnvironmentOpenAIHosted = "openai_hosted"
	EnvironmentSelfHosted   = "self_hosted"
)

// KnownEnvironment reports whether env is an Environment type.
func KnownEnvironment(env string) bool {
	return env == EnvironmentNone || env == EnvironmentOpenAIHosted || env == EnvironmentSelfHosted
}

// Request is what an execution needs: the Agent configuration Core will send, its Environment type
// and the facts about the Session and input that the table mentions.
type Request struct {
	Configuration *proto.PromptRequestPayload
	Environment   string
	// Input is the Turn's input (images in it need message_images).
	Input proto.MessageInput
	// NativeSessionRecovery: the Session has a started Turn but no recorded native Session ID.
	NativeSessionRecovery bool
	// IdleDirectoryRead: an idle Files directory read needs a read-only preparation.
	IdleDirectoryRead bool
	// FunctionResultImage: a function result Core delivers carries an image.
	FunctionResultImage bool
}

// Profile is a Harness's engine profile: what Core always requires of an execution on it, and
// the controls its engine declares (which then need web_search_control / text_verbosity).
type Profile struct {
	Always   []string
	Controls []string
}

// ProductionAlways is the spec's "Always, for every execution on that Harness" set.
var ProductionAlways = []string{"streaming", "steering", "durable_turns", "durable_input_receipts",
	"preparation", "execution_controls", "tool_observations"}

// ContractProfile is the engine profile of the `contract` Harness, the controlled Harness whose
// behaviour the scenario itself scripts. Its engine declares no controls, and the only lifecycle
// capability its executions use is preparation (Core runs every Turn through a prepared start);
// every conditional rule of the table still applies to it.
var ContractProfile = Profile{Always: []string{"preparation"}}

// Rule is one row of the table.
type Rule struct {
	Capability string
	When       string // the spec's words
	Applies    func(r Request, p Profile) bool
}

// Table is the spec's "Core requires it when" table, one rule per capability and condition.
var Table = func() []Rule {
	var t []Rule
	always := func(cap string) Rule {
		return Rule{cap, "always, for every execution on that Harness (per its engine profile)", func(_ Request, p Profile) bool { return has(p.Always, cap) }}
	}
	for _, c := range ProductionAlways {
		t = append(t, always(c))
	}
	hosted := func(r Request, _ Profile) bool {
		return r.Environment == EnvironmentOpenAIHosted || r.Environment == EnvironmentSelfHosted
	}
	cfg := func(f func(*proto.PromptRequestPayload) bool) func(Request, Profile) bool {
		return func(r Request, _ Profile) bool { return r.Configuration != nil && f(r.Configuration) }
	}
	jsonSchema := cfg(func(c *proto.PromptRequestPayload) bool {
		return c.ExecutionControls != nil && c.ExecutionControls.OutputFormat != nil && c.ExecutionControls.OutputFormat.Type == proto.OutputFormatJSONSchema
	})
	control := func(cap string) func(Request, Profile) bool {
		return func(_ Request, p Profile) bool { return has(p.Controls, cap) }
	}
	t = append(t,
		Rule{"environment_none", "the Environment type is none", func(r Request, _ Profile) bool { return r.Environment == EnvironmentNone }},
		Rule{"local_environment", "the Environment type is openai_hosted or self_hosted", hosted},
		Rule{"workspace_read_preparation", "the Environment type is openai_hosted or self_hosted", hosted},
		Rule{"workspace_output_export", "the Environment type is openai_hosted or self_hosted", hosted},
		Rule{"workspace_read_preparation", "an idle Files directory read needs a read-only preparation", func(r Request, _ Profile) bool { return r.IdleDirectoryRead }},
		Rule{"native_session_recovery", "a Session with a started Turn has no recorded native Session ID", func(r Request, _ Profile) bool { return r.NativeSessionRecovery }},
		Rule{"web_search_control", "the Harness's engine profile declares that control", control("web_search_control")},
		Rule{"text_verbosity", "the Harness's engine profile declares that control", control("text_verbosity")},
		Rule{"structured_output", "the Agent requests json_schema output", jsonSchema},
		Rule{"message_items", "the Agent requests json_schema output", jsonSchema},
		Rule{"subagent_observations", "multi_agent.enabled is true", cfg(func(c *proto.PromptRequestPayload) bool { return c.ObserveSubagentIdentities })},
		Rule{"subagent_control", "multi_agent.enabled is false", cfg(func(c *proto.PromptRequestPayload) bool { return c.DisableSubagents })},
		Rule{"tool_search", "the Agent enables tool search or defers function loading", cfg(func(c *proto.PromptRequestPayload) bool {
			if c.ToolSearch {
				return true
			}
			for _, f := range c.FunctionTools {
				if f.DeferLoading {
					return true
				}
			}
			return false
		})},
		Rule{"programmatic_tool_calling_disable", "the Agent explicitly disables programmatic tool calling", cfg(func(c *proto.PromptRequestPayload) bool {
			return c.ExecutionControls != nil && c.ExecutionControls.DisableProgrammaticToolCalling
		})},
		Rule{"function_tools", "the Agent declares function tools", cfg(func(c *proto.PromptRequestPayload) bool { return len(c.FunctionTools) > 0 })},
		Rule{"message_images", "a message carries an image", func(r Request, _ Profile) bool { return hasImage(r.Input) }},
		Rule{"function_result_images", "a function result carries an image", func(r Request, _ Profile) bool { return r.FunctionResultImage }},
		Rule{"mcp_http_tools", "the Agent declares HTTP MCP servers", cfg(func(c *proto.PromptRequestPayload) bool { return len(c.MCPHTTPServers) > 0 })},
		Rule{"mcp_http_required", "one HTTP MCP server is required", cfg(func(c *proto.PromptRequestPayload) bool {
			for _, s := range c.MCPHTTPServers {
				if s.Required {
					return true
				}
			}
			return false
		})},
		Rule{"mcp_http_bearer_auth", "a Vault credential is selected for an HTTP MCP server", cfg(func(c *proto.PromptRequestPayload) bool {
			for _, s := range c.MCPHTTPServers {
				if s.BearerToken != "" {
					return true
				}
			}
			return false
		})},
	)
	return t
}()

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasImage(in proto.MessageInput) bool {
	for _, m := range in {
		for _, c := range m.Content {
			if c.Type == proto.ContentInputImage {
				return true
			}
		}
	}
	return false
}

// Reasons a decision names.
const (
	ReasonAllowed            = "allowed"
	ReasonCapabilitiesMissed = "capability_missing"
	ReasonUnknown            = "capabilities_unknown" // no heartbeat yet: nothing may be inferred
	ReasonNotAdvertised      = "kind_not_advertised"
	ReasonUnavailable        = "kind_unavailable"
	ReasonEnvironment        = "unknown_environment"
	ReasonCapacity           = "preparation_capacity"
	ReasonRejected           = "preparation_rejected"
)

// Decision is a policy answer.
type Decision struct {
	Verdict Verdict
	Reason  string
	// Missing lists every capability the execution needs and the declaration lacks.
	Missing []string
}

func (d Decision) String() string {
	if len(d.Missing) > 0 {
		return fmt.Sprintf("%s (%s: %s)", d.Verdict, d.Reason, strings.Join(d.Missing, ", "))
	}
	return fmt.Sprintf("%s (%s)", d.Verdict, d.Reason)
}

// Policy evaluates admissions with per-Harness engine profiles.
type Policy struct {
	// Profiles by Harness kind; Default for any other kind.
	Profiles map[string]Profile
	Default  Profile
}

// New returns the reference Core's policy: the production profile for every Harness kind, and the
// contract profile for kind `contract`.
func New() *Policy {
	return &Policy{Default: Profile{Always: ProductionAlways}, Profiles: map[string]Profile{"contract": ContractProfile}}
}

// Profile returns the engine profile of a Harness kind.
func (p *Policy) Profile(kind string) Profile {
	if pr, ok := p.Profiles[kind]; ok {
		return pr
	}
	return p.Default
}

// Required lists the capabilities an execution needs, in table order, without duplicates.
func (p *Policy) Required(r Request) []string {
	pr := p.Profile(kindOf(r))
	var out []string
	for _, rule := range Table {
		if rule.Capability == "preparation" && mutation.On(mutation.CNPreparationNotRequired) ||
			rule.Capability == "environment_none" && mutation.On(mutation.CNEnvironmentNoneNotRequired) {
			continue
		}
		if rule.Applies(r, pr) && !has(out, rule.Capability) {
			out = append(out, rule.Capability)
		}
	}
	return out
}

func kindOf(r Request) string {
	if r.Configuration == nil {
		return ""
	}
	return r.Configuration.AgentKind
}

// Evaluate decides an execution against the declaration of the selected device. known is false
// before the device's first valid heartbeat; heartbeat is the latest valid one.
func (p *Policy) Evaluate(r Request, heartbeat *proto.HeartbeatPayload, known bool) Decision {
	if !KnownEnvironment(r.Environment) {
		return Decision{Verdict: Deny, Reason: ReasonEnvironment}
	}
	required := p.Required(r)
	if !known || heartbeat == nil {
		return Decision{Verdict: Deny, Reason: ReasonUnknown, Missing: required}
	}
	k := heartbeat.Kind(kindOf(r))
	if k == nil {
		return Decision{Verdict: Deny, Reason: ReasonNotAdvertised, Missing: required}
	}
	if !k.Available && !mutation.On(mutation.CNUnavailableKindAdmitted) {
		return Decision{Verdict: Deny, Reason: ReasonUnavailable, Missing: required}
	}
	return p.EvaluateDeclaration(r, k.Capabilities)
}

// EvaluateDeclaration decides an execution against one complete declaration (an admitted owner's
// snapshot, for instance).
func (p *Policy) EvaluateDeclaration(r Request, caps *proto.AgentKindCapabilities) Decision {
	var missing []string
	for _, c := range p.Required(r) {
		if caps == nil {
			missing = append(missing, c)
			continue
		}
		if v, ok := caps.Get(c); !ok || !v.Supported() {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return Decision{Verdict: Deny, Reason: ReasonCapabilitiesMissed, Missing: missing}
	}
	return Decision{Verdict: Allow, Reason: ReasonAllowed}
}

// Preparation decides what a definite execution_prepare rejection means for the queued Turn:
// RETRY for preparation_capacity (the Turn stays unclaimed for a later attempt), DENY otherwise
// (no other error authorizes a replay).
func (p *Policy) Preparation(code string) Decision {
	if code == proto.CodePreparationCapacity {
		return Decision{Verdict: Retry, Reason: ReasonCapacity}
	}
	return Decision{Verdict: Deny, Reason: ReasonRejected}
}
