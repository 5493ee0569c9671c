package proto

import "encoding/json"

// Sub-agent observation frames (Runtime → Core, id = Run ID), sent when observe_subagent_identities
// is set: an identity first, then an active Turn, its Items and its terminal snapshot. Every member
// is always encoded.

type SubagentIdentityPayload struct {
	NativeID        string  `json:"native_id" wire:"req"`
	ParentNativeID  string  `json:"parent_native_id" wire:"req"`
	NativeCreatedAt int64   `json:"native_created_at" wire:"req"`
	ParentTurnID    string  `json:"parent_turn_id" wire:"req"`
	SourceItemID    string  `json:"source_item_id" wire:"req"`
	Name            *string `json:"name" wire:"req,null"`
	Instructions    *string `json:"instructions" wire:"req,null"`
}

func (p *SubagentIdentityPayload) Validate() error { return nonBlank("native_id", p.NativeID) }

type SubagentLifecyclePayload struct {
	NativeID     string `json:"native_id" wire:"req"`
	EffectID     string `json:"effect_id" wire:"req"`
	Status       string `json:"status" wire:"req"`
	OccurredAtMS int64  `json:"occurred_at_ms" wire:"req"`
}

func (p *SubagentLifecyclePayload) Validate() error { return nonBlank("native_id", p.NativeID) }

type SubagentTurnPayload struct {
	NativeID      string `json:"native_id" wire:"req"`
	TurnID        string `json:"turn_id" wire:"req"`
	Status        string `json:"status" wire:"req"`
	CreatedAtMS   int64  `json:"created_at_ms" wire:"req"`
	StartedAtMS   *int64 `json:"started_at_ms" wire:"req,null"`
	CompletedAtMS *int64 `json:"completed_at_ms" wire:"req,null"`
	Usage         *Usage `json:"usage" wire:"req,null"`
}

func (p *SubagentTurnPayload) Validate() error {
	if err := first(nonBlank("native_id", p.NativeID), nonBlank("turn_id", p.TurnID)); err != nil {
		return err
	}
	if p.Usage != nil {
		return within("usage", p.Usage.Validate())
	}
	return nil
}

type SubagentItemPayload struct {
	NativeID string          `json:"native_id" wire:"req"`
	TurnID   string          `json:"turn_id" wire:"req"`
	ItemID   string          `json:"item_id" wire:"req"`
	Position int32           `json:"position" wire:"req"`
	Kind     string          `json:"kind" wire:"req"`
	Payload  json.RawMessage `json:"payload" wire:"req"`
}

func (p *SubagentItemPayload) Validate() error {
	if p.Position < 0 {
		return violation("position", "must not be negative")
	}
	return first(nonBlank("native_id", p.NativeID), nonBlank("item_id", p.ItemID))
}

type SubagentCoordinationPayload struct {
	ID              string   `json:"id" wire:"req"`
	Kind            string   `json:"kind" wire:"req"`
	Status          string   `json:"status" wire:"req"`
	ActorID         string   `json:"actor_id" wire:"req"`
	Recipients      []string `json:"recipients" wire:"req"`
	Text            *string  `json:"text" wire:"req,null"`
	Model           *string  `json:"model" wire:"req,null"`
	ReasoningEffort *string  `json:"reasoning_effort" wire:"req,null"`
}

func (p *SubagentCoordinationPayload) Validate() error { return nonBlank("id", p.ID) }
