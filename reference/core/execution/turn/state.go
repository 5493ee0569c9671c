package turn

import (
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Spec is what a Turn was started with; it never changes.
type Spec struct {
	SessionID string
	RunID     string
	// Configuration is what execution_prepare carries. In memory only: it may hold MCP bearer
	// tokens.
	Configuration proto.PromptRequestPayload
	Environment   string
	Input         proto.MessageInput
	Policy        *policy.Policy
	// RetryBackoff is the first wait before a Turn left unclaimed is claimed again; it doubles up
	// to MaxRetryBackoff.
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
}

var defaultPolicy = policy.New()

func (sp *Spec) policy() *policy.Policy {
	if sp.Policy == nil {
		return defaultPolicy
	}
	return sp.Policy
}

func (sp *Spec) policyRequest() policy.Request {
	cfg := ToolSearchUnjudged(sp.Configuration)
	return policy.Request{Configuration: &cfg, Environment: sp.Environment, Input: sp.Input}
}

// Record is the part of the durable Turn record the machine owns; a Commit writes all of it.
type Record struct {
	Phase           string
	PrepareID       string // the current preparation request ID
	Handle          string // committed when the Turn moves to ready
	ExecutorID      string
	Claims          int  // execution_prepare attempts
	Recovered       bool // the single retry after executor_unavailable was used
	CancelRequested bool
	// Admitted is the declaration the Turn was admitted with at its last claim.
	Admitted *proto.AgentKindCapabilities
	// Inputs are the active inputs in the order the caller delivered them. The slice is never
	// changed in place (withInput copies it), so every committed Record stays as it was.
	Inputs []store.Input
	// InputCursor counts the accepted inputs: Inputs[InputCursor] is the one being delivered.
	InputCursor int
	// Interactions are the Run's requests a caller answers, in arrival order; never changed in
	// place (withInteraction copies).
	Interactions []store.Interaction
	// DecisionSeq counts the decisions sent; each draws its delivery ID from it.
	DecisionSeq int
	// Subagents are the sub-agent frames accepted, in order (subagents.go); never changed in place.
	Subagents []store.SubagentEvent
}

// ApplyTo writes the record into a stored Turn.
func (r Record) ApplyTo(t *store.Turn) {
	t.Phase, t.PrepareID, t.Handle, t.ExecutorID = r.Phase, r.PrepareID, r.Handle, r.ExecutorID
	t.Claims, t.Recovered, t.CancelRequested, t.Admitted = r.Claims, r.Recovered, r.CancelRequested, r.Admitted
	t.Inputs, t.InputCursor = append([]store.Input(nil), r.Inputs...), r.InputCursor
	t.Interactions, t.DecisionSeq = append([]store.Interaction(nil), r.Interactions...), r.DecisionSeq
	t.Subagents = append([]store.SubagentEvent(nil), r.Subagents...)
}

// Observation is what Core has seen of the Run so far: the outcome is merged from it.
type Observation struct {
	Deltas      Text   // every delta, in order
	LastMessage string // the text of the last completed output_message
	Usage       *proto.Usage
	Error       *proto.ErrorPayload // the last error frame
	Done        *proto.DonePayload
}

// Query is a question the machine asked the executor; its answer is the next event.
type Query string

// Queries.
const (
	AskedNothing   Query = ""
	AskedDevice    Query = "device"
	AskedPrepareID Query = "prepare-id"
)

// State is one Turn as the machine knows it: a value that Step never changes (the executor keeps
// the one from before a step whose effect failed).
type State struct {
	Spec *Spec
	Record
	// Handle and ExecutorID as the latest preparation status named them: release needs them
	// before start commits them.
	LearnedHandle   string
	LearnedExecutor string
	Backoff         time.Duration // the next retry's wait
	Timers          Timers        // armed timers
	Asked           Query
	Seen            Observation
}

// New is a Turn just recorded as queued.
func New(spec *Spec) State {
	return State{Spec: spec, Record: Record{Phase: store.PhaseQueued}, Backoff: spec.RetryBackoff}
}

// Restore is a Turn as a restart finds it in the store: only its committed record is known.
func Restore(spec *Spec, rec Record) State {
	s := New(spec)
	s.Record = rec
	return s
}

// ToolSearchUnjudged is the configuration the admission policy judges: itself, except under the
// tool-search-capability-ignored mutant (FN-03), which hides tool_search and defer_loading from
// it at selection and at every claim.
func ToolSearchUnjudged(cfg proto.PromptRequestPayload) proto.PromptRequestPayload {
	if !mutation.On(mutation.ToolSearchCapabilityIgnored) {
		return cfg
	}
	cfg.ToolSearch = false
	tools := append([]proto.FunctionTool(nil), cfg.FunctionTools...)
	for i := range tools {
		tools[i].DeferLoading = false
	}
	cfg.FunctionTools = tools
	return cfg
}
