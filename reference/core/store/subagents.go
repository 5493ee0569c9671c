package store

import "encoding/json"

// SubagentEvent is one sub-agent observation frame of a Turn's Run (protocol-facts §4.17) that
// Core accepted: well formed and in order. Turn.Subagents keeps them in arrival order: what the
// Turn's native sub-agents did, as the Runtime reported it.
type SubagentEvent struct {
	Type    string          `json:"type"`    // subagent_identity, subagent_lifecycle, subagent_turn, subagent_item, subagent_coordination
	Payload json.RawMessage `json:"payload"` // the payload as decoded, every member encoded
}
