package proto

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Run events (Runtime → Core, id = Run ID). A Turn emits only its own Run ID, in order, and exactly
// one terminal done; an error is always followed by done.

// DeltaPayload is a text fragment. ItemID names the native message when observe_messages is set.
type DeltaPayload struct {
	ItemID   string `json:"item_id,omitempty" wire:"opt"`
	Delta    string `json:"delta" wire:"req"`
	Sequence uint64 `json:"sequence" wire:"req"`
}

func (*DeltaPayload) Validate() error { return nil }

// ThinkingPayload is reasoning text.
type ThinkingPayload struct {
	Text     string `json:"text" wire:"req"`
	Sequence uint64 `json:"sequence,omitempty" wire:"opt"`
}

func (*ThinkingPayload) Validate() error { return nil }

// Output message statuses.
const (
	MessageInProgress = "in_progress"
	MessageCompleted  = "completed"
	MessageIncomplete = "incomplete"
)

// OutputMessagePayload reports a native message's start and completion (observe_messages).
type OutputMessagePayload struct {
	ID     string  `json:"id" wire:"req"`
	Status string  `json:"status" wire:"req"`
	Phase  string  `json:"phase,omitempty" wire:"opt"`
	Text   *string `json:"text,omitempty" wire:"opt,null"`
}

func (p *OutputMessagePayload) Validate() error {
	if p.ID == "" {
		return violation("id", "must not be empty")
	}
	switch p.Status {
	case MessageInProgress, MessageCompleted, MessageIncomplete:
		return nil
	}
	return violation("status", "must be one of in_progress, completed, incomplete")
}

// Tool call stages.
const (
	ToolStageBefore = "before"
	ToolStageAfter  = "after"
)

// ToolCallPayload is a native tool call; its decoding is strict.
type ToolCallPayload struct {
	Observation *ToolObservation `json:"observation,omitempty" wire:"opt"`
	ID          string           `json:"id" wire:"req"`
	Name        string           `json:"name" wire:"req"`
	Stage       string           `json:"stage" wire:"req"`
	Args        json.RawMessage  `json:"args,omitempty" wire:"opt,object"`
	Result      json.RawMessage  `json:"result,omitempty" wire:"opt,object"`
}

func (p *ToolCallPayload) Validate() error {
	switch {
	case p.ID == "":
		return violation("id", "must not be empty")
	case p.Name == "":
		return violation("name", "must not be empty")
	case p.Stage != ToolStageBefore && p.Stage != ToolStageAfter:
		return violation("stage", "must be before or after")
	}
	if p.Observation != nil {
		return within("observation", p.Observation.Validate())
	}
	return nil
}

// ToolObservation is the engine-neutral snapshot of a tool call.
type ToolObservation struct {
	Kind       string             `json:"kind" wire:"req"`
	Status     string             `json:"status" wire:"req"`
	Name       string             `json:"name,omitempty" wire:"opt"`
	Command    string             `json:"command,omitempty" wire:"opt"`
	Cwd        *string            `json:"cwd,omitempty" wire:"opt,null"`
	ExitCode   *int64             `json:"exit_code,omitempty" wire:"opt,null"`
	DurationMS *int64             `json:"duration_ms,omitempty" wire:"opt,null"`
	Server     string             `json:"server,omitempty" wire:"opt"`
	Arguments  json.RawMessage    `json:"arguments,omitempty" wire:"opt"`
	Output     json.RawMessage    `json:"output,omitempty" wire:"opt"`
	Error      json.RawMessage    `json:"error,omitempty" wire:"opt"`
	Content    []InputContent     `json:"content,omitempty" wire:"opt"`
	Action     *ObservationAction `json:"action,omitempty" wire:"opt"`
}

// ObservationAction describes a search or fetch a tool performed.
type ObservationAction struct {
	Type    string   `json:"type" wire:"req"`
	Query   string   `json:"query,omitempty" wire:"opt"`
	Queries []string `json:"queries,omitempty" wire:"opt"`
	URL     string   `json:"url,omitempty" wire:"opt"`
	Pattern string   `json:"pattern,omitempty" wire:"opt"`
}

func (o *ToolObservation) Validate() error {
	if o.Kind == "" {
		return violation("kind", "must not be empty")
	}
	if o.Status == "" {
		return violation("status", "must not be empty")
	}
	if o.DurationMS != nil && *o.DurationMS < 0 {
		return violation("duration_ms", "must not be negative")
	}
	for i, c := range o.Content {
		if err := c.Validate(); err != nil {
			return within(indexPath("content", i), err)
		}
	}
	return nil
}

// Usage is a cumulative measurement of the current execution. Each snapshot replaces the previous
// one; an absent measurement is unknown, not zero, so counters are pointers.
type Usage struct {
	Tokens       *TokenUsage     `json:"tokens,omitempty" wire:"opt"`
	Provider     string          `json:"provider,omitempty" wire:"opt"`
	Model        string          `json:"model,omitempty" wire:"opt"`
	InputTokens  *int32          `json:"input_tokens,omitempty" wire:"opt"`
	OutputTokens *int32          `json:"output_tokens,omitempty" wire:"opt"`
	CostUSD      *float64        `json:"cost_usd,omitempty" wire:"opt"`
	Raw          json.RawMessage `json:"raw,omitempty" wire:"opt,object"`
}

// TokenUsage is the token breakdown of a Usage snapshot.
type TokenUsage struct {
	InputTokens           int64 `json:"input_tokens" wire:"req"`
	CachedInputTokens     int64 `json:"cached_input_tokens" wire:"req"`
	OutputTokens          int64 `json:"output_tokens" wire:"req"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens" wire:"req"`
	TotalTokens           int64 `json:"total_tokens" wire:"req"`
}

// IsZero reports whether no measurement is present.
func (u *Usage) IsZero() bool {
	return u == nil || (u.Tokens == nil && u.Provider == "" && u.Model == "" && u.InputTokens == nil &&
		u.OutputTokens == nil && u.CostUSD == nil && len(u.Raw) == 0)
}

func (u *Usage) Validate() error {
	neg := func(p *int32) bool { return p != nil && *p < 0 }
	switch {
	case neg(u.InputTokens):
		return violation("input_tokens", "must not be negative")
	case neg(u.OutputTokens):
		return violation("output_tokens", "must not be negative")
	case u.CostUSD != nil && *u.CostUSD < 0:
		return violation("cost_usd", "must not be negative")
	}
	if t := u.Tokens; t != nil {
		if t.InputTokens < 0 || t.CachedInputTokens < 0 || t.OutputTokens < 0 || t.ReasoningOutputTokens < 0 || t.TotalTokens < 0 {
			return violation("tokens", "counts must not be negative")
		}
	}
	return nil
}

// UsagePayload carries a Usage snapshot with its members at the top level.
type UsagePayload struct {
	Usage
}

func (p *UsagePayload) Validate() error { return p.Usage.Validate() }

// ErrorPayload is an execution error. Code and HTTPStatus are optional engine classification,
// normalized on decode (EngineFailure): a malformed or unknown value leaves the error unclassified
// and never fails the frame.
type ErrorPayload struct {
	Error      string `json:"error" wire:"req"`
	Code       string `json:"code,omitempty" wire:"opt,any"`
	HTTPStatus int    `json:"http_status,omitempty" wire:"opt,any"`
}

func (p *ErrorPayload) UnmarshalJSON(data []byte) error {
	var raw struct {
		Error      string          `json:"error"`
		Code       json.RawMessage `json:"code"`
		HTTPStatus json.RawMessage `json:"http_status"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	p.Error = raw.Error
	p.Code, p.HTTPStatus = NormalizeEngineFailure(raw.Code, raw.HTTPStatus)
	return nil
}

func (*ErrorPayload) Validate() error { return nil }

// NormalizeEngineFailure applies §6.1: an unknown, non-string or missing code is unclassified ("")
// and drops the status; the status is kept only with connection_failed and only as an integer
// from 100 to 599. It never fails.
func NormalizeEngineFailure(code, status json.RawMessage) (string, int) {
	var c string
	if !isString(bytes.TrimSpace(code)) || json.Unmarshal(code, &c) != nil || !KnownEngineCode(c) {
		return "", 0
	}
	if c != EngineConnectionFailed {
		return c, 0
	}
	s := strings.TrimSpace(string(status))
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 599 {
		return c, 0
	}
	return c, n
}

// DonePayload closes a Run's stream, and is also the continuity snapshot of a cancellation receipt.
type DonePayload struct {
	SourceCompletedAtMS int64             `json:"source_completed_at_ms,omitempty" wire:"opt"`
	Content             string            `json:"content" wire:"req"`
	Transcript          string            `json:"transcript,omitempty" wire:"opt"`
	Usage               *Usage            `json:"usage,omitempty" wire:"opt"`
	Metadata            map[string]string `json:"metadata,omitempty" wire:"opt"`
}

// Done metadata keys.
const (
	MetaAgentSessionID   = "agent_session_id"
	MetaAgentSessionType = "agent_session_type"
)

func (p *DonePayload) Validate() error {
	if p.SourceCompletedAtMS < 0 {
		return violation("source_completed_at_ms", "must not be negative")
	}
	if p.Usage != nil {
		return within("usage", p.Usage.Validate())
	}
	return nil
}
