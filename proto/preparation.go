package proto

import "strings"

// ExecutionPreparePayload reserves a per-Turn admission: an explicit Session identity and the
// immutable configuration, without Run input or a Run ID.
type ExecutionPreparePayload struct {
	SessionID     string               `json:"session_id" wire:"req"`
	Configuration PromptRequestPayload `json:"configuration" wire:"req"`
}

func (p *ExecutionPreparePayload) Validate() error {
	if strings.TrimSpace(p.SessionID) == "" {
		return violation("session_id", "must not be blank")
	}
	return within("configuration", p.Configuration.Validate())
}

// CheckPrepareConfiguration applies the execution_prepare rules a Runtime answers with
// rejected/invalid_configuration: no Run identity or input, no legacy conversation, no authoring,
// the native state key derived from the Session, strict resume.
func (p *ExecutionPreparePayload) CheckPrepareConfiguration() error {
	return ofType(TypeExecutionPrepare, p.checkPrepareConfiguration())
}

func (p *ExecutionPreparePayload) checkPrepareConfiguration() error {
	c := &p.Configuration
	switch {
	case strings.TrimSpace(p.SessionID) == "":
		return violation("session_id", "must not be blank")
	case c.RunID != "":
		return violation("configuration.run_id", "must be empty in execution_prepare (the Run is chosen by execution_start)")
	case len(c.Input) > 0:
		return violation("configuration.input", "must be empty in execution_prepare (input arrives with execution_start)")
	case c.ConversationID != "":
		return violation("configuration.conversation_id", "must be empty in execution_prepare")
	case c.WorkspaceAuthoring:
		return violation("configuration.workspace_authoring", "must be false in execution_prepare")
	case c.AgentStateKey != StateKeyFor(p.SessionID):
		return violation("configuration.agent_state_key", "must be %q", StateKeyFor(p.SessionID))
	case !c.StrictResume:
		return violation("configuration.strict_resume", "must be true in execution_prepare")
	}
	return nil
}

// StateKeyFor is the native state key Core derives for a Session.
func StateKeyFor(sessionID string) string { return "agents-api-" + sessionID }

// CheckReadOnlyPreparation applies the read-only preparation profile (workspace_read_only): the
// bound Environment and resource identity only, nothing that could run a model or a tool.
func (p *ExecutionPreparePayload) CheckReadOnlyPreparation() error {
	return ofType(TypeExecutionPrepare, p.checkReadOnlyPreparation())
}

func (p *ExecutionPreparePayload) checkReadOnlyPreparation() error {
	c := &p.Configuration
	bad := func(member, rule string) error { return violation("configuration."+member, "%s", rule) }
	switch {
	case !c.WorkspaceReadOnly:
		return bad("workspace_read_only", "must be true for a read-only preparation")
	case c.LocalEnvironment == nil:
		return bad("local_environment", "is required for a read-only preparation")
	case c.AgentStateKey == "":
		return bad("agent_state_key", "is required for a read-only preparation")
	case !c.StrictResume:
		return bad("strict_resume", "must be true for a read-only preparation")
	case !c.ReleaseOnCompletion:
		return bad("release_on_completion", "must be true for a read-only preparation")
	case c.RunID != "":
		return bad("run_id", "must be empty for a read-only preparation")
	case len(c.Input) > 0:
		return bad("input", "must be empty for a read-only preparation")
	case c.ConversationID != "":
		return bad("conversation_id", "must be empty for a read-only preparation")
	case c.AgentSessionID != "":
		return bad("agent_session_id", "must be empty for a read-only preparation")
	case len(c.AgentOptions) > 0:
		return bad("agent_options", "must be absent for a read-only preparation")
	case c.ExecutionControls != nil:
		return bad("execution_controls", "must be absent for a read-only preparation")
	case c.MCPHTTPServers != nil:
		return bad("mcp_http_servers", "must be absent for a read-only preparation")
	case len(c.FunctionTools) > 0:
		return bad("function_tools", "must be absent for a read-only preparation")
	case c.RequireExistingNativeSession:
		return bad("require_existing_native_session", "must be false for a read-only preparation")
	case c.WorkspaceAuthoring:
		return bad("workspace_authoring", "must be false for a read-only preparation")
	case c.DisableExecutionEnvironment:
		return bad("disable_execution_environment", "must be false for a read-only preparation")
	case c.ToolSearch:
		return bad("tool_search", "must be false for a read-only preparation")
	case c.ObserveMessages:
		return bad("observe_messages", "must be false for a read-only preparation")
	case c.ObserveToolObservations:
		return bad("observe_tool_observations", "must be false for a read-only preparation")
	case c.ObserveSubagentIdentities:
		return bad("observe_subagent_identities", "must be false for a read-only preparation")
	}
	return nil
}

// ExecutionStartPayload transfers a ready admission to a Run, once, with its ordered input.
type ExecutionStartPayload struct {
	ExecutorID string       `json:"executor_id" wire:"req"`
	Handle     string       `json:"handle" wire:"req"`
	RunID      string       `json:"run_id" wire:"req"`
	Input      MessageInput `json:"input" wire:"req"`
}

func (p *ExecutionStartPayload) Validate() error {
	return first(
		nonBlank("executor_id", p.ExecutorID),
		nonBlank("handle", p.Handle),
		nonBlank("run_id", p.RunID),
		within("input", p.Input.Validate()),
	)
}

// ExecutionReleasePayload abandons an admission before start. It never cancels a Run.
type ExecutionReleasePayload struct {
	Handle string `json:"handle" wire:"req"`
}

func (p *ExecutionReleasePayload) Validate() error { return nonBlank("handle", p.Handle) }

// Preparation states.
const (
	StatePreparing = "preparing"
	StateReady     = "ready"
	StateStarting  = "starting"
	StateStarted   = "started"
	StateReleased  = "released"
	StateExpired   = "expired"
	StateFailed    = "failed"
	StateRejected  = "rejected"
)

var preparationStates = newCodeSet(StatePreparing, StateReady, StateStarting, StateStarted,
	StateReleased, StateExpired, StateFailed, StateRejected)

// KnownPreparationState reports whether s is a preparation state.
func KnownPreparationState(s string) bool { return preparationStates.Has(s) }

// TerminalPreparationState reports whether a status in state s closes the preparation
// subscription: started, released, expired, failed.
func TerminalPreparationState(s string) bool {
	return s == StateStarted || s == StateReleased || s == StateExpired || s == StateFailed
}

// Operations a rejection names.
const (
	OperationPrepare = TypeExecutionPrepare
	OperationStart   = TypeExecutionStart
	OperationRelease = TypeExecutionRelease
)

// PreparationStatusPayload is one observation of an admission handle. Revisions are per handle,
// start at 1 and grow by one per state change; a rejection answers one control operation, carries
// revision 0 and does not change the handle's state.
type PreparationStatusPayload struct {
	ExecutorID string `json:"executor_id,omitempty" wire:"opt"`
	Reused     bool   `json:"reused,omitempty" wire:"opt"`
	Handle     string `json:"handle,omitempty" wire:"opt"`
	Revision   uint64 `json:"revision" wire:"req"`
	State      string `json:"state" wire:"req"`
	ExpiresAt  int64  `json:"expires_at,omitempty" wire:"opt"`
	RunID      string `json:"run_id,omitempty" wire:"opt"`
	ErrorCode  string `json:"error_code,omitempty" wire:"opt"`
	Operation  string `json:"operation,omitempty" wire:"opt"`
}

func (p *PreparationStatusPayload) Validate() error {
	if !KnownPreparationState(p.State) {
		return violation("state", "must be one of preparing, ready, starting, started, released, expired, failed, rejected")
	}
	if p.ErrorCode != "" && !KnownPreparationCode(p.ErrorCode) {
		return violation("error_code", "must be a listed preparation code")
	}
	if p.ExpiresAt < 0 {
		return violation("expires_at", "must be Unix milliseconds, not negative")
	}
	if p.State == StateRejected {
		switch {
		case p.Revision != 0:
			return violation("revision", "must be 0 on rejected (a rejection does not change the handle's revision)")
		case p.Operation != OperationPrepare && p.Operation != OperationStart && p.Operation != OperationRelease:
			return violation("operation", "must name the rejected request: execution_prepare, execution_start or execution_release")
		case p.ErrorCode == "":
			return violation("error_code", "is required on rejected")
		}
		return nil
	}
	switch {
	case p.Revision == 0:
		return violation("revision", "must be at least 1 on %s", p.State)
	case p.Handle == "":
		return violation("handle", "is required on %s", p.State)
	case p.Operation != "":
		return violation("operation", "is only set on rejected")
	case p.State == StateFailed && p.ErrorCode == "":
		return violation("error_code", "is required on failed")
	case p.State != StateFailed && p.ErrorCode != "":
		return violation("error_code", "is only set on failed and rejected")
	case (p.State == StateStarting || p.State == StateStarted) && p.RunID == "":
		return violation("run_id", "is required on %s", p.State)
	case (p.State == StatePreparing || p.State == StateReady) && p.RunID != "":
		return violation("run_id", "must be empty before starting")
	case p.Reused && p.State != StateReady:
		return violation("reused", "is only set on ready")
	case p.Reused && p.Revision != 1:
		return violation("revision", "must be 1 when ready reuses an Executor")
	}
	return nil
}

func nonBlank(path, s string) error {
	if strings.TrimSpace(s) == "" {
		return violation(path, "must not be blank")
	}
	return nil
}
