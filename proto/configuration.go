package proto

import (
	"encoding/json"
	"path"
	"strings"
	"unicode/utf8"
)

// PromptRequestPayload is the execution configuration: the whole payload of prompt_request and the
// `configuration` of execution_prepare (where it carries no Run input).
//
// MCPHTTPServers is omitted only when nil: absent (or null) keeps the existing behaviour, while []
// explicitly means no servers, so an empty list must reach the wire.
type PromptRequestPayload struct {
	MaxConcurrentSubagents       *int               `json:"max_concurrent_subagents,omitempty" wire:"opt,null"`
	AgentKind                    string             `json:"agent_kind" wire:"req"`
	ConversationID               string             `json:"conversation_id" wire:"opt"`
	RunID                        string             `json:"run_id" wire:"opt"`
	Input                        MessageInput       `json:"input,omitempty" wire:"opt"`
	WorkDir                      string             `json:"work_dir,omitempty" wire:"opt"`
	AgentOptions                 json.RawMessage    `json:"agent_options,omitempty" wire:"opt,object"`
	ExecutionControls            *ExecutionControls `json:"execution_controls,omitempty" wire:"opt"`
	MCPHTTPServers               []MCPHTTPServer    `json:"mcp_http_servers,omitzero" wire:"opt,null"`
	LocalEnvironment             *LocalEnvironment  `json:"local_environment,omitempty" wire:"opt"`
	AgentSessionID               string             `json:"agent_session_id,omitempty" wire:"opt"`
	WorkspaceReadOnly            bool               `json:"workspace_read_only,omitempty" wire:"opt"`
	AgentStateKey                string             `json:"agent_state_key,omitempty" wire:"opt"`
	WorkspaceAuthoring           bool               `json:"workspace_authoring,omitempty" wire:"opt"`
	ReleaseOnCompletion          bool               `json:"release_on_completion,omitempty" wire:"opt"`
	StrictResume                 bool               `json:"strict_resume,omitempty" wire:"opt"`
	RequireExistingNativeSession bool               `json:"require_existing_native_session,omitempty" wire:"opt"`
	ObserveMessages              bool               `json:"observe_messages,omitempty" wire:"opt"`
	ObserveToolObservations      bool               `json:"observe_tool_observations,omitempty" wire:"opt"`
	ObserveSubagentIdentities    bool               `json:"observe_subagent_identities,omitempty" wire:"opt"`
	FunctionTools                []FunctionTool     `json:"function_tools,omitempty" wire:"opt"`
	ToolSearch                   bool               `json:"tool_search,omitempty" wire:"opt"`
	DisableExecutionEnvironment  bool               `json:"disable_execution_environment,omitempty" wire:"opt"`
	DisableSubagents             bool               `json:"disable_subagents,omitempty" wire:"opt"`
}

// Validate checks the configuration's own shape rules. The rules that depend on how it is used
// (no input in execution_prepare, the read-only profile) are CheckPrepareConfiguration and
// CheckReadOnlyPreparation.
func (p *PromptRequestPayload) Validate() error {
	if strings.TrimSpace(p.AgentKind) == "" {
		return violation("agent_kind", "must not be blank")
	}
	if p.MaxConcurrentSubagents != nil && *p.MaxConcurrentSubagents < 0 {
		return violation("max_concurrent_subagents", "must not be negative")
	}
	if p.Input != nil {
		if err := p.Input.Validate(); err != nil {
			return within("input", err)
		}
	}
	if p.ExecutionControls != nil {
		if err := p.ExecutionControls.Validate(); err != nil {
			return within("execution_controls", err)
		}
	}
	if p.LocalEnvironment != nil {
		if err := p.LocalEnvironment.Validate(); err != nil {
			return within("local_environment", err)
		}
		if p.DisableExecutionEnvironment {
			return violation("local_environment", "must be absent when disable_execution_environment is true")
		}
	}
	for i := range p.MCPHTTPServers {
		if err := p.MCPHTTPServers[i].validateIn(p); err != nil {
			return within(indexPath("mcp_http_servers", i), err)
		}
	}
	deferred := false
	names := map[string]bool{}
	for i := range p.FunctionTools {
		t := &p.FunctionTools[i]
		if err := t.Validate(); err != nil {
			return within(indexPath("function_tools", i), err)
		}
		if names[t.Name] {
			return violation(indexPath("function_tools", i)+".name", "must be unique")
		}
		names[t.Name] = true
		deferred = deferred || t.DeferLoading
	}
	if p.ToolSearch != deferred {
		return violation("tool_search", "tool search needs both tool_search true and at least one function tool with defer_loading")
	}
	return nil
}

// ExecutionControls are the per-Run controls Core always sets. Native option names belong to the
// adapter.
type ExecutionControls struct {
	DisableProgrammaticToolCalling bool          `json:"disable_programmatic_tool_calling,omitempty" wire:"opt"`
	WebSearch                      string        `json:"web_search" wire:"req"`
	TextVerbosity                  string        `json:"text_verbosity" wire:"req"`
	OutputFormat                   *OutputFormat `json:"output_format,omitempty" wire:"opt"`
}

// Web search modes and text verbosities.
const (
	WebSearchDisabled = "disabled"
	WebSearchCached   = "cached"
	WebSearchLive     = "live"

	VerbosityLow    = "low"
	VerbosityMedium = "medium"
	VerbosityHigh   = "high"
)

// KnownWebSearch reports whether s is a web_search mode.
func KnownWebSearch(s string) bool {
	return s == WebSearchDisabled || s == WebSearchCached || s == WebSearchLive
}

// KnownTextVerbosity reports whether s is a text verbosity.
func KnownTextVerbosity(s string) bool {
	return s == VerbosityLow || s == VerbosityMedium || s == VerbosityHigh
}

func (c *ExecutionControls) Validate() error {
	if !KnownWebSearch(c.WebSearch) {
		return violation("web_search", "must be one of disabled, cached, live")
	}
	if !KnownTextVerbosity(c.TextVerbosity) {
		return violation("text_verbosity", "must be one of low, medium, high")
	}
	if c.OutputFormat != nil {
		return within("output_format", c.OutputFormat.Validate())
	}
	return nil
}

// OutputFormat requests structured output; the schema is passed unchanged.
type OutputFormat struct {
	Type   string          `json:"type" wire:"req"`
	Schema json.RawMessage `json:"schema" wire:"req"`
}

// OutputFormatJSONSchema is the only output format type.
const OutputFormatJSONSchema = "json_schema"

func (f *OutputFormat) Validate() error {
	if f.Type != OutputFormatJSONSchema {
		return violation("type", "must be json_schema")
	}
	if s := strings.TrimSpace(string(f.Schema)); s == "" || (s[0] != '{' && s != "true" && s != "false") {
		return violation("schema", "must be a JSON Schema (an object or a boolean)")
	}
	return nil
}

// MCP connection origins.
const (
	MCPOriginService     = "service"
	MCPOriginEnvironment = "environment"
)

// MCPHTTPServer is one HTTP MCP server a Run may use. BearerToken is a transient secret: never log
// or persist it.
type MCPHTTPServer struct {
	ConnectionOrigin string   `json:"connection_origin" wire:"req"`
	ServerLabel      string   `json:"server_label" wire:"req"`
	ServerURL        string   `json:"server_url" wire:"req"`
	AllowedTools     []string `json:"allowed_tools" wire:"req,null"`
	Required         bool     `json:"required,omitempty" wire:"opt"`
	BearerToken      string   `json:"bearer_token,omitempty" wire:"opt"`
}

func (s *MCPHTTPServer) validateIn(p *PromptRequestPayload) error {
	switch s.ConnectionOrigin {
	case MCPOriginService:
		if !p.DisableExecutionEnvironment || p.LocalEnvironment != nil {
			return violation("connection_origin", "service requires disable_execution_environment true and no local_environment")
		}
	case MCPOriginEnvironment:
		if p.DisableExecutionEnvironment || p.LocalEnvironment == nil {
			return violation("connection_origin", "environment requires a local_environment and disable_execution_environment false")
		}
	default:
		return violation("connection_origin", "must be service or environment (there is no default)")
	}
	if strings.TrimSpace(s.ServerLabel) == "" {
		return violation("server_label", "must not be blank")
	}
	if strings.TrimSpace(s.ServerURL) == "" {
		return violation("server_url", "must not be blank")
	}
	return nil
}

// LocalEnvironment is the exact Environment binding of a Run. The Runtime checks
// workspace_directory against its own binding.
type LocalEnvironment struct {
	ID                 string             `json:"id" wire:"req"`
	WorkspaceDirectory string             `json:"workspace_directory" wire:"req"`
	CapabilitySources  *CapabilitySources `json:"capability_sources" wire:"req,null"`
	Capabilities       bool               `json:"capabilities,omitempty" wire:"opt"`
	ToolEnvironment    bool               `json:"tool_environment,omitempty" wire:"opt"`
	NetworkAccess      string             `json:"network_access,omitempty" wire:"opt"`
	AllowedDomains     []string           `json:"allowed_domains,omitempty" wire:"opt"`
}

func (e *LocalEnvironment) Validate() error {
	if strings.TrimSpace(e.ID) == "" {
		return violation("id", "must not be blank")
	}
	if !strings.HasPrefix(e.WorkspaceDirectory, "/") {
		return violation("workspace_directory", "must be an absolute path")
	}
	if e.CapabilitySources != nil {
		return within("capability_sources", e.CapabilitySources.Validate())
	}
	return nil
}

// CapabilitySources is a frozen capability selection: inline skills and plugins and directories.
type CapabilitySources struct {
	Skills      []InlineCapability `json:"skills,omitempty" wire:"opt"`
	Plugins     []InlineCapability `json:"plugins,omitempty" wire:"opt"`
	Directories []string           `json:"directories,omitempty" wire:"opt"`
}

// InlineCapability is a skill or plugin carried inline.
type InlineCapability struct {
	Type        string `json:"type" wire:"req"`
	Name        string `json:"name" wire:"req"`
	Description string `json:"description" wire:"req"`
}

// InlineCapabilityType is the only capability source type.
const InlineCapabilityType = "inline"

func (c *InlineCapability) Validate() error {
	if c.Type != InlineCapabilityType {
		return violation("type", "must be inline")
	}
	if c.Name == "" || !utf8.ValidString(c.Name) {
		return violation("name", "must be non-empty UTF-8")
	}
	if c.Description == "" || !utf8.ValidString(c.Description) {
		return violation("description", "must be non-empty UTF-8")
	}
	return nil
}

func (s *CapabilitySources) Validate() error {
	if len(s.Skills) > MaxCapabilitySources {
		return violation("skills", "must have at most %d entries", MaxCapabilitySources)
	}
	if len(s.Plugins) > MaxCapabilitySources {
		return violation("plugins", "must have at most %d entries", MaxCapabilitySources)
	}
	if len(s.Directories) > MaxCapabilitySources {
		return violation("directories", "must have at most %d entries", MaxCapabilitySources)
	}
	for i := range s.Skills {
		if err := s.Skills[i].Validate(); err != nil {
			return within(indexPath("skills", i), err)
		}
	}
	for i := range s.Plugins {
		if err := s.Plugins[i].Validate(); err != nil {
			return within(indexPath("plugins", i), err)
		}
	}
	seen := map[string]bool{}
	for i, d := range s.Directories {
		p := indexPath("directories", i)
		if d == "" || len(d) > MaxPathBytes || !utf8.ValidString(d) || strings.ContainsAny(d, "\x00\r\n") {
			return violation(p, "must be a non-empty directory of at most %d bytes without NUL, CR or LF", MaxPathBytes)
		}
		if path.Clean(d) != d {
			return violation(p, "must be canonical (path.Clean-stable)")
		}
		if seen[d] {
			return violation(p, "must be unique")
		}
		seen[d] = true
	}
	return nil
}

// FunctionTool is a function a Run may call; parameters is a JSON schema passed unchanged.
type FunctionTool struct {
	Name         string          `json:"name" wire:"req"`
	Description  string          `json:"description" wire:"req"`
	Parameters   json.RawMessage `json:"parameters" wire:"req"`
	DeferLoading bool            `json:"defer_loading,omitempty" wire:"opt"`
}

func (t *FunctionTool) Validate() error {
	if strings.TrimSpace(t.Name) == "" {
		return violation("name", "must not be blank")
	}
	if s := strings.TrimSpace(string(t.Parameters)); s == "" || s[0] != '{' {
		return violation("parameters", "must be a JSON Schema object")
	}
	return nil
}
