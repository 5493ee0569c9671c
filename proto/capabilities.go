package proto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// CapabilitySupport is one capability decision. The zero value is unspecified and invalid, even for
// an unavailable Harness: there is no implicit default. On the wire it is exactly `true` or `false`.
type CapabilitySupport uint8

const (
	Unspecified CapabilitySupport = iota
	Unsupported
	Supported
)

// Support converts a boolean decision.
func Support(b bool) CapabilitySupport {
	if b {
		return Supported
	}
	return Unsupported
}

// Supported reports whether the capability is declared supported.
func (c CapabilitySupport) Supported() bool { return c == Supported }

func (c CapabilitySupport) String() string {
	switch c {
	case Supported:
		return "supported"
	case Unsupported:
		return "unsupported"
	default:
		return "unspecified"
	}
}

// A capability decision checks its own JSON (exactly true or false) wherever it appears.
func (*CapabilitySupport) selfShaped() {}

func (c CapabilitySupport) MarshalJSON() ([]byte, error) {
	switch c {
	case Supported:
		return []byte("true"), nil
	case Unsupported:
		return []byte("false"), nil
	default:
		return nil, &RuleError{Rule: "capability is unspecified: every field needs an explicit decision"}
	}
}

// UnmarshalJSON accepts only the tokens true and false. Its error never echoes the value.
func (c *CapabilitySupport) UnmarshalJSON(data []byte) error {
	switch string(bytes.TrimSpace(data)) {
	case "true":
		*c = Supported
	case "false":
		*c = Unsupported
	default:
		return &RuleError{Rule: "must be true or false"}
	}
	return nil
}

// AgentKindCapabilities is the complete declaration of one composed Runtime and Harness, independent
// of availability. Every one of the 30 fields must be decided; see runtime-protocol.md
// "Capability declarations" for when Core requires each.
type AgentKindCapabilities struct {
	SubagentObservations           CapabilitySupport `json:"subagent_observations"`
	Streaming                      CapabilitySupport `json:"streaming"`
	Permissions                    CapabilitySupport `json:"permissions"`
	Usage                          CapabilitySupport `json:"usage"`
	Resume                         CapabilitySupport `json:"resume"`
	NativeSessionRecovery          CapabilitySupport `json:"native_session_recovery"`
	WorkspaceAuthoring             CapabilitySupport `json:"workspace_authoring"`
	Steering                       CapabilitySupport `json:"steering"`
	MessageItems                   CapabilitySupport `json:"message_items"`
	ToolObservations               CapabilitySupport `json:"tool_observations"`
	EnvironmentNone                CapabilitySupport `json:"environment_none"`
	LocalEnvironment               CapabilitySupport `json:"local_environment"`
	Preparation                    CapabilitySupport `json:"preparation"`
	WorkspaceReadPreparation       CapabilitySupport `json:"workspace_read_preparation"`
	WorkspaceOutputExport          CapabilitySupport `json:"workspace_output_export"`
	ProgrammaticToolCallingDisable CapabilitySupport `json:"programmatic_tool_calling_disable"`
	WebSearchControl               CapabilitySupport `json:"web_search_control"`
	ExecutionControls              CapabilitySupport `json:"execution_controls"`
	TextVerbosity                  CapabilitySupport `json:"text_verbosity"`
	StructuredOutput               CapabilitySupport `json:"structured_output"`
	ToolSearch                     CapabilitySupport `json:"tool_search"`
	MessageImages                  CapabilitySupport `json:"message_images"`
	FunctionResultImages           CapabilitySupport `json:"function_result_images"`
	SubagentControl                CapabilitySupport `json:"subagent_control"`
	DurableInputReceipts           CapabilitySupport `json:"durable_input_receipts"`
	DurableTurns                   CapabilitySupport `json:"durable_turns"`
	FunctionTools                  CapabilitySupport `json:"function_tools"`
	MCPHTTPTools                   CapabilitySupport `json:"mcp_http_tools"`
	MCPHTTPRequired                CapabilitySupport `json:"mcp_http_required"`
	MCPHTTPBearerAuth              CapabilitySupport `json:"mcp_http_bearer_auth"`
}

func (*AgentKindCapabilities) selfShaped() {}

// capabilityFields lists the JSON names in declaration order with their struct index.
var capabilityFields = func() []struct {
	name  string
	index int
} {
	t := reflect.TypeFor[AgentKindCapabilities]()
	out := make([]struct {
		name  string
		index int
	}, t.NumField())
	for i := range t.NumField() {
		out[i].name = t.Field(i).Tag.Get("json")
		out[i].index = i
	}
	return out
}()

// CapabilityNames returns the JSON names of every capability field, in declaration order.
func CapabilityNames() []string {
	names := make([]string, len(capabilityFields))
	for i, f := range capabilityFields {
		names[i] = f.name
	}
	return names
}

// Get returns the decision for a capability by JSON name; ok is false for an unknown name.
func (c *AgentKindCapabilities) Get(name string) (CapabilitySupport, bool) {
	for _, f := range capabilityFields {
		if f.name == name {
			return CapabilitySupport(reflect.ValueOf(c).Elem().Field(f.index).Uint()), true
		}
	}
	return Unspecified, false
}

// Set records the decision for a capability by JSON name; it reports false for an unknown name.
func (c *AgentKindCapabilities) Set(name string, v CapabilitySupport) bool {
	for _, f := range capabilityFields {
		if f.name == name {
			reflect.ValueOf(c).Elem().Field(f.index).SetUint(uint64(v))
			return true
		}
	}
	return false
}

// Validate fails on the first unspecified field.
func (c AgentKindCapabilities) Validate() error {
	v := reflect.ValueOf(c)
	for _, f := range capabilityFields {
		if CapabilitySupport(v.Field(f.index).Uint()) == Unspecified {
			return violation(f.name, "is unspecified: every capability needs an explicit true or false")
		}
	}
	return nil
}

// MarshalJSON fails unless every field is decided.
func (c AgentKindCapabilities) MarshalJSON() ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	v := reflect.ValueOf(c)
	for i, f := range capabilityFields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%t", f.name, CapabilitySupport(v.Field(f.index).Uint()) == Supported)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON rejects a missing or null object, an omitted field, any value other than true/false
// and any unknown member. Its errors name our own field names only: an unknown key or a bad value
// sent by a peer is never echoed.
func (c *AgentKindCapabilities) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || isNull(data) {
		return violation("", "capability object is required")
	}
	if data[0] != '{' {
		return violation("", "must be a JSON object")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return violation("", "must be a JSON object")
	}
	var out AgentKindCapabilities
	v := reflect.ValueOf(&out).Elem()
	seen := 0
	for _, f := range capabilityFields {
		raw, ok := members[f.name]
		if !ok {
			return violation(f.name, "is required: every capability must be present, including false")
		}
		seen++
		var s CapabilitySupport
		if err := s.UnmarshalJSON(raw); err != nil {
			return violation(f.name, "must be true or false")
		}
		v.Field(f.index).SetUint(uint64(s))
	}
	if len(members) != seen {
		return violation("", "has an unknown member (names withheld)")
	}
	*c = out
	return nil
}

// SupportedAgentKind is one Harness kind a heartbeat advertises.
type SupportedAgentKind struct {
	Kind         string                 `json:"kind" wire:"req"`
	Available    bool                   `json:"available" wire:"req"`
	Version      string                 `json:"version,omitempty" wire:"opt"`
	Capabilities *AgentKindCapabilities `json:"capabilities" wire:"req"`
}

func (k *SupportedAgentKind) Validate() error {
	if k.Kind == "" {
		return violation("kind", "must not be empty")
	}
	if k.Capabilities == nil {
		return violation("capabilities", "capability object is required")
	}
	return within("capabilities", k.Capabilities.Validate())
}

// HeartbeatPayload establishes liveness and declares the Runtime's capabilities. Each heartbeat
// replaces the whole snapshot; a kind missing from it is not advertised.
type HeartbeatPayload struct {
	TS                  int64                `json:"ts" wire:"req"`
	ActiveRequests      int                  `json:"active_requests" wire:"req"`
	DaemonVersion       string               `json:"daemon_version,omitempty" wire:"opt"`
	SupportedAgentKinds []SupportedAgentKind `json:"supported_agent_kinds,omitempty" wire:"opt"`
}

func (h *HeartbeatPayload) Validate() error {
	if h.ActiveRequests < 0 {
		return violation("active_requests", "must not be negative")
	}
	seen := map[string]bool{}
	for i := range h.SupportedAgentKinds {
		k := &h.SupportedAgentKinds[i]
		p := indexPath("supported_agent_kinds", i)
		if err := k.Validate(); err != nil {
			return within(p, err)
		}
		if seen[k.Kind] {
			return violation(p+".kind", "must be unique within a heartbeat")
		}
		seen[k.Kind] = true
	}
	return nil
}

// Kind returns the advertised entry for a kind, or nil.
func (h *HeartbeatPayload) Kind(kind string) *SupportedAgentKind {
	for i := range h.SupportedAgentKinds {
		if h.SupportedAgentKinds[i].Kind == kind {
			return &h.SupportedAgentKinds[i]
		}
	}
	return nil
}

// CapabilityProblems lists every member of a capability object that is missing or not true/false,
// in declaration order, and counts the unknown ones (never named: a peer's key is not echoed).
// UnmarshalJSON stops at the first problem; a person fixing a declaration wants them all at once.
// ok is false when data is not a JSON object at all.
func CapabilityProblems(data []byte) (missing, malformed []string, unknown int, ok bool) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil || members == nil {
		return nil, nil, 0, false
	}
	known := 0
	for _, f := range capabilityFields {
		raw, present := members[f.name]
		if !present {
			missing = append(missing, f.name)
			continue
		}
		known++
		var s CapabilitySupport
		if err := s.UnmarshalJSON(raw); err != nil {
			malformed = append(malformed, f.name)
		}
	}
	return missing, malformed, len(members) - known, true
}
