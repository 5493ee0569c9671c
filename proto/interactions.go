package proto

import (
	"encoding/json"
	"strings"
)

// PermissionRequestPayload asks Core to decide a permission (id = Run ID; the interaction ID is
// request_id, never the Run ID).
type PermissionRequestPayload struct {
	RequestID string          `json:"request_id" wire:"req"`
	Tool      string          `json:"tool" wire:"req"`
	Title     string          `json:"title" wire:"req"`
	Detail    string          `json:"detail,omitempty" wire:"opt"`
	Payload   json.RawMessage `json:"payload,omitempty" wire:"opt,object"`
}

func (p *PermissionRequestPayload) Validate() error { return nonBlank("request_id", p.RequestID) }

// PermissionDecisionPayload answers a permission request (id = request_id). delivery_id identifies
// one resolve attempt.
type PermissionDecisionPayload struct {
	DeliveryID   string          `json:"delivery_id" wire:"req"`
	Approved     bool            `json:"approved" wire:"req"`
	Message      string          `json:"message,omitempty" wire:"opt"`
	UpdatedInput json.RawMessage `json:"updated_input,omitempty" wire:"opt,object"`
}

func (p *PermissionDecisionPayload) Validate() error { return nonBlank("delivery_id", p.DeliveryID) }

// UserChoiceQuestion is one question of a prompt_for_user_choice. Its ID identifies answers; order
// and header never do.
type UserChoiceQuestion struct {
	ID          string             `json:"id" wire:"req"`
	Header      string             `json:"header,omitempty" wire:"opt"`
	Question    string             `json:"question" wire:"req"`
	MultiSelect bool               `json:"multi_select,omitempty" wire:"opt"`
	IsOther     bool               `json:"is_other,omitempty" wire:"opt"`
	IsSecret    bool               `json:"is_secret,omitempty" wire:"opt"`
	Options     []UserChoiceOption `json:"options" wire:"req"`
}

// UserChoiceOption is one option of a question.
type UserChoiceOption struct {
	Label       string `json:"label" wire:"req"`
	Description string `json:"description,omitempty" wire:"opt"`
}

// PromptForUserChoicePayload asks the user to choose (id = Run ID; the interaction ID is ask_id).
type PromptForUserChoicePayload struct {
	AskID            string               `json:"ask_id" wire:"req"`
	Questions        []UserChoiceQuestion `json:"questions" wire:"req"`
	ToolUseID        string               `json:"tool_use_id,omitempty" wire:"opt"`
	AutoResolutionMS uint64               `json:"auto_resolution_ms,omitempty" wire:"opt"`
}

func (p *PromptForUserChoicePayload) Validate() error {
	if err := nonBlank("ask_id", p.AskID); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, q := range p.Questions {
		qp := indexPath("questions", i)
		if strings.TrimSpace(q.ID) == "" {
			return violation(qp+".id", "must not be blank")
		}
		if seen[q.ID] {
			return violation(qp+".id", "must be unique")
		}
		seen[q.ID] = true
	}
	return nil
}

// QuestionAnswer answers one question by ID; an empty Answers is an explicit non-answer.
type QuestionAnswer struct {
	QuestionID string   `json:"question_id" wire:"req"`
	Answers    []string `json:"answers" wire:"req"`
}

// PromptForUserChoiceDecisionPayload answers a user-choice request (id = ask_id). Its decoding is
// strict at every depth.
type PromptForUserChoiceDecisionPayload struct {
	DeliveryID      string           `json:"delivery_id" wire:"req"`
	QuestionAnswers []QuestionAnswer `json:"question_answers,omitempty" wire:"opt"`
	Cancelled       bool             `json:"cancelled,omitempty" wire:"opt"`
	Reason          string           `json:"reason,omitempty" wire:"opt"`
}

func (p *PromptForUserChoiceDecisionPayload) Validate() error {
	if err := nonBlank("delivery_id", p.DeliveryID); err != nil {
		return err
	}
	if p.Cancelled && len(p.QuestionAnswers) > 0 {
		return violation("question_answers", "must be absent when cancelled is true")
	}
	seen := map[string]bool{}
	for i, a := range p.QuestionAnswers {
		ap := indexPath("question_answers", i)
		if strings.TrimSpace(a.QuestionID) == "" {
			return violation(ap+".question_id", "must not be blank")
		}
		if seen[a.QuestionID] {
			return violation(ap+".question_id", "must not repeat")
		}
		seen[a.QuestionID] = true
		if a.Answers == nil {
			return violation(ap+".answers", "must be an array ([] is an explicit non-answer)")
		}
	}
	return nil
}

// CheckAnswersBelongTo verifies that every answered question was emitted by the request; it runs
// before the pending interaction is consumed.
func (p *PromptForUserChoiceDecisionPayload) CheckAnswersBelongTo(req *PromptForUserChoicePayload) error {
	return ofType(TypePromptForUserChoiceDecision, p.checkAnswersBelongTo(req))
}

func (p *PromptForUserChoiceDecisionPayload) checkAnswersBelongTo(req *PromptForUserChoicePayload) error {
	emitted := map[string]bool{}
	for _, q := range req.Questions {
		emitted[q.ID] = true
	}
	for i, a := range p.QuestionAnswers {
		if !emitted[a.QuestionID] {
			return violation(indexPath("question_answers", i)+".question_id", "must name a question the request emitted")
		}
	}
	return nil
}

// InteractionDecisionAckPayload is the receipt of a decision, a cancellation or a function result.
// applied=true only after the operation settled (a cancellation also after native settlement).
type InteractionDecisionAckPayload struct {
	DeliveryID string       `json:"delivery_id" wire:"req"`
	Applied    bool         `json:"applied" wire:"req"`
	ErrorCode  string       `json:"error_code,omitempty" wire:"opt"`
	Error      string       `json:"error,omitempty" wire:"opt"`
	Outcome    *DonePayload `json:"outcome,omitempty" wire:"opt"`
}

func (p *InteractionDecisionAckPayload) Validate() error {
	if err := nonBlank("delivery_id", p.DeliveryID); err != nil {
		return err
	}
	if p.Applied && p.ErrorCode != "" {
		return violation("error_code", "must be empty when applied is true")
	}
	if p.ErrorCode != "" && !KnownAckCode(p.ErrorCode) {
		return violation("error_code", "must be a listed decision, function-result or cancellation code")
	}
	if p.Outcome != nil {
		return within("outcome", p.Outcome.Validate())
	}
	return nil
}

// PromptCancelPayload asks to cancel a Run (id = Run ID). Without delivery_id it is a legacy cancel
// and gets no receipt.
type PromptCancelPayload struct {
	DeliveryID string `json:"delivery_id,omitempty" wire:"opt"`
}

func (*PromptCancelPayload) Validate() error { return nil }

// DeviceShutdownPayload asks the daemon to cancel every Run and close preparations and idle
// Executors. It has no reply.
type DeviceShutdownPayload struct {
	Reason string `json:"reason,omitempty" wire:"opt"`
}

func (*DeviceShutdownPayload) Validate() error { return nil }

// PromptSteerPayload delivers one active input (id = Run ID).
type PromptSteerPayload struct {
	InputID        string       `json:"input_id" wire:"req"`
	Input          MessageInput `json:"input" wire:"req"`
	DurableReceipt bool         `json:"durable_receipt,omitempty" wire:"opt"`
}

func (p *PromptSteerPayload) Validate() error {
	if err := checkInputID(p.InputID); err != nil {
		return err
	}
	return within("input", p.Input.Validate())
}

func checkInputID(id string) error {
	if strings.TrimSpace(id) == "" {
		return violation("input_id", "must not be blank")
	}
	if len(id) > InputIDMaxBytes {
		return violation("input_id", "must be at most %d bytes", InputIDMaxBytes)
	}
	return nil
}

// PromptSteerAckPayload is an active-input receipt: written (the native write completed, not
// acceptance), accepted (native consumption confirmed), or an error code.
type PromptSteerAckPayload struct {
	InputID   string `json:"input_id" wire:"req"`
	Accepted  bool   `json:"accepted" wire:"req"`
	Written   bool   `json:"written,omitempty" wire:"opt"`
	ErrorCode string `json:"error_code,omitempty" wire:"opt"`
	Error     string `json:"error,omitempty" wire:"opt"`
}

func (p *PromptSteerAckPayload) Validate() error {
	if err := nonBlank("input_id", p.InputID); err != nil {
		return err
	}
	if p.ErrorCode != "" {
		if p.Accepted || p.Written {
			return violation("error_code", "must be empty on a written or accepted receipt")
		}
		if !KnownSteerCode(p.ErrorCode) {
			return violation("error_code", "must be a listed prompt_steer_ack code")
		}
	}
	if p.Accepted && p.Written {
		return violation("written", "is a separate phase: an accepted receipt does not also claim written")
	}
	if !p.Accepted && !p.Written && p.ErrorCode == "" {
		return violation("error_code", "is required when the input is neither written nor accepted")
	}
	return nil
}

// FunctionCallPayload asks Core to run a declared function (id = Run ID).
type FunctionCallPayload struct {
	CallID    string          `json:"call_id" wire:"req"`
	Name      string          `json:"name" wire:"req"`
	Arguments json.RawMessage `json:"arguments" wire:"req"`
}

func (p *FunctionCallPayload) Validate() error {
	return first(nonBlank("call_id", p.CallID), nonBlank("name", p.Name))
}

// FunctionResultPayload returns a function's result (id = Run ID).
type FunctionResultPayload struct {
	DeliveryID string         `json:"delivery_id" wire:"req"`
	CallID     string         `json:"call_id" wire:"req"`
	Success    bool           `json:"success" wire:"req"`
	Content    []InputContent `json:"content" wire:"req"`
}

func (p *FunctionResultPayload) Validate() error {
	if err := first(nonBlank("delivery_id", p.DeliveryID), nonBlank("call_id", p.CallID)); err != nil {
		return err
	}
	if p.Content == nil {
		return violation("content", "must be an array, not null")
	}
	for i, c := range p.Content {
		if err := c.Validate(); err != nil {
			return within(indexPath("content", i), err)
		}
	}
	return nil
}
