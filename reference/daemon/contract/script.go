// Package contract is the `contract` Harness: a controlled agent whose native behaviour is
// scripted by the frames themselves, in `agent_options.contract` of prompt_request or
// execution_prepare. A certifiable Runtime registers it so wire scenarios can run against it
// from another process. docs/contract-harness.md specifies the script for other languages.
package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Kind is the agent kind the contract Harness registers under.
const Kind = "contract"

// Script is agent_options.contract. Every member is optional; unknown members are an error, so a
// misspelt script fails loudly instead of silently running the default.
type Script struct {
	// Setup: native Executor setup.
	Setup *Setup `json:"setup,omitempty" wire:"opt"`
	// Turn: what a Turn emits and how it ends.
	Turn *TurnScript `json:"turn,omitempty" wire:"opt"`
	// Cancel: how native cancellation settles.
	Cancel *CancelScript `json:"cancel,omitempty" wire:"opt"`
	// Reusable: whether the Executor may serve a later Turn after this one settles (default true).
	Reusable *bool `json:"reusable,omitempty" wire:"opt"`
	// NativeSession is the native session ID the Executor retains (done metadata agent_session_id).
	NativeSession string `json:"native_session,omitempty" wire:"opt"`
	// CloseFails makes closing the Executor fail: cleanup stays unconfirmed.
	CloseFails bool `json:"close_fails,omitempty" wire:"opt"`
	// CloseDelayMS: every native close of the Executor takes this long (on the Runtime's clock), so
	// what must wait for the close (done after a release_on_completion release) is visible.
	CloseDelayMS int `json:"close_delay_ms,omitempty" wire:"opt"`
}

// Setup scripts native setup.
type Setup struct {
	Fail    bool `json:"fail,omitempty" wire:"opt"`     // setup fails: preparation_failed
	DelayMS int  `json:"delay_ms,omitempty" wire:"opt"` // setup takes this long (on the Runtime's clock)
}

// TurnScript scripts one Turn.
type TurnScript struct {
	// Events are emitted in order; each step holds exactly one member.
	Events []EventStep `json:"events,omitempty" wire:"opt"`
	// Content, Usage and Metadata make the final done frame.
	Content  string            `json:"content,omitempty" wire:"opt"`
	Usage    *proto.Usage      `json:"usage,omitempty" wire:"opt"`
	Metadata map[string]string `json:"metadata,omitempty" wire:"opt"`
	// WaitForCancel: after its events the Turn does not end until it is cancelled.
	WaitForCancel bool `json:"wait_for_cancel,omitempty" wire:"opt"`
	// StartFails: native start produces no Turn (executor_unavailable).
	StartFails bool `json:"start_fails,omitempty" wire:"opt"`
	// StartDelayMS: native start creates the Turn at once, then takes this long to return it;
	// cancelling the Run meanwhile aborts the start after the Turn exists (start_cancelled).
	StartDelayMS int `json:"start_delay_ms,omitempty" wire:"opt"`
	// Input: how the Turn answers active input (prompt_steer).
	Input *InputScript `json:"input,omitempty" wire:"opt"`
	// Inspect: done.metadata reports what the bound Environment holds when the Turn ends
	// (docs/contract-harness.md, "Environment preparation").
	Inspect *Inspect `json:"inspect,omitempty" wire:"opt"`
	// ReportDeliveries: done.metadata counts what the Runtime handed to the native side, per
	// interaction and per input (docs/contract-harness.md §3.4), so a scenario sees an answer or
	// an input taken once, or never.
	ReportDeliveries bool `json:"report_deliveries,omitempty" wire:"opt"`
}

// Inspect names what a Turn reports of the Environment in done.metadata.
type Inspect struct {
	Files   []string `json:"files,omitempty" wire:"opt"`   // logical paths: /workspace or below it, clean
	Env     []string `json:"env,omitempty" wire:"opt"`     // configured environment variable names
	Skills  bool     `json:"skills,omitempty" wire:"opt"`  // the installed skill names
	Plugins bool     `json:"plugins,omitempty" wire:"opt"` // the occupied plugin slots and their names
}

// MaxInspected bounds turn.inspect.files and turn.inspect.env each.
const MaxInspected = 64

func (in *Inspect) check() error {
	if in == nil {
		return nil
	}
	if len(in.Files) > MaxInspected || len(in.Env) > MaxInspected {
		return fmt.Errorf(": at most %d files and %d env names", MaxInspected, MaxInspected)
	}
	for i, f := range in.Files {
		if f != "/workspace" && (!strings.HasPrefix(f, "/workspace/") || path.Clean(f) != f || strings.ContainsAny(f, "\\\x00")) {
			return fmt.Errorf(".files[%d]: %q is not /workspace or a clean path below it", i, f)
		}
	}
	for i, n := range in.Env {
		if n == "" || strings.ContainsAny(n, "=\x00") {
			return fmt.Errorf(".env[%d]: %q is not a variable name (non-empty, no = or NUL)", i, n)
		}
	}
	return nil
}

// InputScript scripts how a Turn takes active input.
type InputScript struct {
	// ReadyMS: the Turn is not ready for input until this long after its native start.
	ReadyMS int `json:"ready_ms,omitempty" wire:"opt"`
	// Unimplemented: the Turn has no input path at all.
	Unimplemented bool `json:"unimplemented,omitempty" wire:"opt"`
	// Default is the behaviour of every input not named in ByID.
	Default *InputBehaviour `json:"default,omitempty" wire:"opt"`
	// ByID replaces Default for the inputs it names (by input_id).
	ByID map[string]InputBehaviour `json:"by_id,omitempty" wire:"opt"`
}

// InputBehaviour scripts the native write of one input and its consumption.
type InputBehaviour struct {
	WriteMS    int  `json:"write_ms,omitempty" wire:"opt"`    // the native write takes this long
	WriteHangs bool `json:"write_hangs,omitempty" wire:"opt"` // the native write never completes
	WriteFails bool `json:"write_fails,omitempty" wire:"opt"` // the write breaks after write_ms
	Reject     bool `json:"reject,omitempty" wire:"opt"`      // the adapter rejects it; nothing is written
	AcceptMS   int  `json:"accept_ms,omitempty" wire:"opt"`   // consumption is confirmed this long after the write
	NoAccept   bool `json:"no_accept,omitempty" wire:"opt"`   // consumption is never confirmed
	RejectLate bool `json:"reject_late,omitempty" wire:"opt"` // written, then rejected after accept_ms
}

// behaviour returns the script of one input: its ByID entry, else Default, else the zero value.
func (s *InputScript) behaviour(inputID string) InputBehaviour {
	if s == nil {
		return InputBehaviour{}
	}
	if b, ok := s.ByID[inputID]; ok {
		return b
	}
	if s.Default != nil {
		return *s.Default
	}
	return InputBehaviour{}
}

// EventStep is one scripted event: exactly one member is set.
type EventStep struct {
	Delta         *string                     `json:"delta,omitempty" wire:"opt"`
	Thinking      *string                     `json:"thinking,omitempty" wire:"opt"`
	OutputMessage *proto.OutputMessagePayload `json:"output_message,omitempty" wire:"opt"`
	ToolCall      *proto.ToolCallPayload      `json:"tool_call,omitempty" wire:"opt"`
	Usage         *proto.Usage                `json:"usage,omitempty" wire:"opt"`
	Error         *proto.ErrorPayload         `json:"error,omitempty" wire:"opt"`
	DelayMS       *int                        `json:"delay_ms,omitempty" wire:"opt"`
	// Interactions: emit the request, then wait for Core's answer (docs/contract-harness.md §3.3).
	Permission   *PermissionStep `json:"permission_request,omitempty" wire:"opt"`
	UserChoice   *UserChoiceStep `json:"prompt_for_user_choice,omitempty" wire:"opt"`
	FunctionCall *FunctionStep   `json:"function_call,omitempty" wire:"opt"`
	// Sub-agent observations (docs/contract-harness.md §3.6): the native frame's payload exactly as
	// written, every member spelt (nullables as null). The Turn emits them whatever the Run's
	// opt-in and order; the Runtime decides what reaches the wire (SA-06, SA-07).
	SubagentIdentity     *proto.SubagentIdentityPayload     `json:"subagent_identity,omitempty" wire:"opt"`
	SubagentLifecycle    *proto.SubagentLifecyclePayload    `json:"subagent_lifecycle,omitempty" wire:"opt"`
	SubagentTurn         *proto.SubagentTurnPayload         `json:"subagent_turn,omitempty" wire:"opt"`
	SubagentItem         *proto.SubagentItemPayload         `json:"subagent_item,omitempty" wire:"opt"`
	SubagentCoordination *proto.SubagentCoordinationPayload `json:"subagent_coordination,omitempty" wire:"opt"`
}

// subagent returns the sub-agent frame a step scripts (its type and payload), or "" and nil.
func (e EventStep) subagent() (string, interface{ Validate() error }) {
	switch {
	case e.SubagentIdentity != nil:
		return proto.TypeSubagentIdentity, e.SubagentIdentity
	case e.SubagentLifecycle != nil:
		return proto.TypeSubagentLifecycle, e.SubagentLifecycle
	case e.SubagentTurn != nil:
		return proto.TypeSubagentTurn, e.SubagentTurn
	case e.SubagentItem != nil:
		return proto.TypeSubagentItem, e.SubagentItem
	case e.SubagentCoordination != nil:
		return proto.TypeSubagentCoordination, e.SubagentCoordination
	}
	return "", nil
}

// PermissionStep emits a permission_request and waits for its decision.
type PermissionStep struct {
	Request proto.PermissionRequestPayload `json:"request" wire:"req"`
	// Native: how the native side answers each attempt to apply a decision, in order; the last
	// repeats. Absent: every attempt is applied.
	Native []string `json:"native,omitempty" wire:"opt"`
	// WithdrawMS: without an applied decision this long after the request, the Turn withdraws it
	// (permission_cancel) and goes on.
	WithdrawMS *int `json:"withdraw_ms,omitempty" wire:"opt"`
}

// UserChoiceStep emits a prompt_for_user_choice and waits for its decision.
type UserChoiceStep struct {
	Prompt proto.PromptForUserChoicePayload `json:"prompt" wire:"req"`
	Native []string                         `json:"native,omitempty" wire:"opt"`
}

// FunctionStep emits a function_call and waits for its result.
type FunctionStep struct {
	Call   proto.FunctionCallPayload `json:"call" wire:"req"`
	Native []string                  `json:"native,omitempty" wire:"opt"`
}

// Native answers to one attempt to apply a decision or a result.
const (
	NativeApplied       = "applied"       // applied: the Turn goes on
	NativeNotReady      = "not_ready"     // the native session is not yet published; nothing applied
	NativeFails         = "fails"         // a native failure; nothing applied
	NativeUnimplemented = "unimplemented" // the adapter has no path for this family
	NativeUnknown       = "unknown"       // the native side knows no such pending interaction
)

func checkNative(native []string) error {
	for i, n := range native {
		switch n {
		case NativeApplied, NativeNotReady, NativeFails, NativeUnimplemented, NativeUnknown:
		default:
			return fmt.Errorf(".native[%d]: %q is not one of applied, not_ready, fails, unimplemented, unknown", i, n)
		}
	}
	return nil
}

// check refuses an interaction step the Turn could not emit; the error starts with the member path.
func (e EventStep) check() error {
	switch {
	case e.Permission != nil:
		if err := e.Permission.Request.Validate(); err != nil {
			return fmt.Errorf(".permission_request.request: %w", err)
		}
		return prefixed(".permission_request", checkNative(e.Permission.Native))
	case e.UserChoice != nil:
		if err := e.UserChoice.Prompt.Validate(); err != nil {
			return fmt.Errorf(".prompt_for_user_choice.prompt: %w", err)
		}
		return prefixed(".prompt_for_user_choice", checkNative(e.UserChoice.Native))
	case e.FunctionCall != nil:
		if err := e.FunctionCall.Call.Validate(); err != nil {
			return fmt.Errorf(".function_call.call: %w", err)
		}
		return prefixed(".function_call", checkNative(e.FunctionCall.Native))
	}
	if typ, p := e.subagent(); p != nil {
		// A frame the wire could not carry is a script error, not a test of the Runtime.
		if err := p.Validate(); err != nil {
			return fmt.Errorf(".%s: %w", typ, err)
		}
	}
	return nil
}

func prefixed(path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s%w", path, err)
}

// CancelScript scripts native cancellation.
type CancelScript struct {
	SettleMS int                `json:"settle_ms,omitempty" wire:"opt"` // settlement takes this long
	Outcome  *proto.DonePayload `json:"outcome,omitempty" wire:"opt"`   // the continuity snapshot; nil: unavailable
	Fail     bool               `json:"fail,omitempty" wire:"opt"`      // native cancellation fails
}

// Parse extracts and strictly decodes agent_options.contract. No agent_options, or no contract
// member, is the empty script (a Turn that completes at once with empty content).
func Parse(agentOptions json.RawMessage) (*Script, error) {
	s := &Script{}
	if len(bytes.TrimSpace(agentOptions)) == 0 {
		return s, nil
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(agentOptions, &opts); err != nil {
		return nil, fmt.Errorf("agent_options: %w", err)
	}
	raw, ok := opts["contract"]
	if !ok {
		return s, nil
	}
	// As strict as the wire: exact member names, unknown members rejected at any depth, and the
	// wire types inside (usage, error, tool_call, done) with their required members.
	decode := proto.DecodeStrict
	if mutation.On(mutation.LenientContractScript) {
		decode = json.Unmarshal // unknown members ignored, names folded
	}
	if err := decode(raw, s); err != nil {
		return nil, fmt.Errorf("agent_options.contract: %w", err)
	}
	if s.Turn != nil {
		bendUnclassifiable(raw, s.Turn)
	}
	if s.Turn != nil {
		if err := s.Turn.Input.check(); err != nil {
			return nil, fmt.Errorf("agent_options.contract.turn.input%w", err)
		}
		if err := s.Turn.Inspect.check(); err != nil {
			return nil, fmt.Errorf("agent_options.contract.turn.inspect%w", err)
		}
		for i, e := range s.Turn.Events {
			if n := e.members(); n != 1 {
				return nil, fmt.Errorf("agent_options.contract.turn.events[%d]: needs exactly one member, has %d", i, n)
			}
			if err := e.check(); err != nil {
				return nil, fmt.Errorf("agent_options.contract.turn.events[%d]%w", i, err)
			}
		}
	}
	return s, nil
}

func (e EventStep) members() int {
	n := 0
	for _, set := range []bool{e.Delta != nil, e.Thinking != nil, e.OutputMessage != nil, e.ToolCall != nil, e.Usage != nil, e.Error != nil, e.DelayMS != nil,
		e.Permission != nil, e.UserChoice != nil, e.FunctionCall != nil,
		e.SubagentIdentity != nil, e.SubagentLifecycle != nil, e.SubagentTurn != nil, e.SubagentItem != nil, e.SubagentCoordination != nil} {
		if set {
			n++
		}
	}
	return n
}

func (s *Script) reusable() bool { return s.Reusable == nil || *s.Reusable }

// check refuses behaviours that contradict themselves; the error starts with the member path.
func (s *InputScript) check() error {
	if s == nil {
		return nil
	}
	if s.Default != nil {
		if err := s.Default.check(); err != nil {
			return fmt.Errorf(".default: %w", err)
		}
	}
	for id, b := range s.ByID {
		if err := b.check(); err != nil {
			return fmt.Errorf(".by_id[%q]: %w", id, err)
		}
	}
	return nil
}

func (b InputBehaviour) check() error {
	if count(b.WriteHangs, b.WriteFails, b.Reject) > 1 {
		return errors.New("at most one of write_hangs, write_fails and reject")
	}
	if count(b.NoAccept, b.RejectLate) > 1 {
		return errors.New("at most one of no_accept and reject_late")
	}
	return nil
}

func count(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// bendUnclassifiable is the EF-04 Runtime mutants' script: a scripted native failure whose code is
// unlisted or not a string, or whose http_status is not an integer from 100 to 599, is dropped
// (ef-rt-unclassifiable-error-dropped), or ends the Turn's scripted events after it
// (malformed-classification-fails), where §6.1 reads it unclassified and keeps the frame, its
// usage and done.
func bendUnclassifiable(raw json.RawMessage, t *TurnScript) {
	var s struct {
		Turn *struct {
			Events []struct {
				Error *struct {
					Code       json.RawMessage `json:"code"`
					HTTPStatus json.RawMessage `json:"http_status"`
				} `json:"error"`
			} `json:"events"`
		} `json:"turn"`
	}
	if json.Unmarshal(raw, &s) != nil || s.Turn == nil || len(s.Turn.Events) != len(t.Events) {
		return
	}
	var odd []int
	for i, e := range s.Turn.Events {
		if e.Error == nil {
			continue
		}
		var code string
		var status int
		codeOdd := len(e.Error.Code) > 0 && (json.Unmarshal(e.Error.Code, &code) != nil || !proto.KnownEngineCode(code))
		statusOdd := len(e.Error.HTTPStatus) > 0 && (json.Unmarshal(e.Error.HTTPStatus, &status) != nil || status < 100 || status > 599)
		if codeOdd || statusOdd {
			odd = append(odd, i)
		}
	}
	switch {
	case len(odd) == 0:
	case mutation.On(mutation.EFRTUnclassifiableErrorDropped):
		for k := len(odd) - 1; k >= 0; k-- {
			t.Events = append(t.Events[:odd[k]:odd[k]], t.Events[odd[k]+1:]...)
		}
	case mutation.On(mutation.MalformedClassificationFails):
		t.Events = t.Events[:odd[0]+1]
	}
}
