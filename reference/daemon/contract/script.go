// Package contract is the `contract` Harness: a controlled agent whose native behaviour is
// scripted by the frames themselves, in `agent_options.contract` of prompt_request or
// execution_prepare. A certifiable Runtime registers it so wire scenarios can run against it
// from another process. docs/contract-harness.md specifies the script for other languages.
package contract

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
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
	if err := proto.DecodeStrict(raw, s); err != nil {
		return nil, fmt.Errorf("agent_options.contract: %w", err)
	}
	if s.Turn != nil {
		for i, e := range s.Turn.Events {
			if n := e.members(); n != 1 {
				return nil, fmt.Errorf("agent_options.contract.turn.events[%d]: needs exactly one member, has %d", i, n)
			}
		}
	}
	return s, nil
}

func (e EventStep) members() int {
	n := 0
	for _, set := range []bool{e.Delta != nil, e.Thinking != nil, e.OutputMessage != nil, e.ToolCall != nil, e.Usage != nil, e.Error != nil, e.DelayMS != nil} {
		if set {
			n++
		}
	}
	return n
}

func (s *Script) reusable() bool { return s.Reusable == nil || *s.Reusable }
