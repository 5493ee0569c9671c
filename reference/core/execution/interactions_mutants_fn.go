package execution

import (
	"bytes"
	"encoding/json"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The function mutants (FN) of what Core takes. Every one acts only once mutation.On says so, a
// constant false outside the wirecheck_mutants build.

// partsUnchecked is, under FN-06.6's mutant, a function result whose only fault is a content part
// that is not a valid InputContent, taken as the caller gave it (without delivery_id and call_id).
func partsUnchecked(in store.Interaction, answer json.RawMessage) (json.RawMessage, bool) {
	if in.Kind != store.InteractionFunction {
		return nil, false
	}
	var m map[string]json.RawMessage
	var parts []json.RawMessage
	if json.Unmarshal(answer, &m) != nil || json.Unmarshal(m["content"], &parts) != nil {
		return nil, false
	}
	kept := []json.RawMessage{}
	for _, part := range parts {
		var c proto.InputContent
		if json.Unmarshal(part, &c) == nil && c.Validate() == nil {
			kept = append(kept, part)
		}
	}
	if len(kept) == len(parts) {
		return nil, false
	}
	fixed := map[string]json.RawMessage{}
	for k, v := range m {
		fixed[k] = v
	}
	fixed["content"], _ = json.Marshal(kept)
	raw, _ := json.Marshal(fixed)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var p proto.FunctionResultPayload
	if dec.Decode(&p) != nil || !mutation.On(mutation.FNCoreContentPartsUnchecked) {
		return nil, false
	}
	if p.CallID != "" && p.CallID != in.ID {
		return nil, false
	}
	delete(m, "delivery_id")
	delete(m, "call_id")
	out, err := json.Marshal(m)
	return out, err == nil
}

// laxFunctionCall is, for a function_call that failed decoding, the payload an FN-05 mutant takes:
// one that breaks the mutant's one rule and no other, as the Runtime sent it.
func laxFunctionCall(env proto.Envelope, payload any, invalid error) (any, error) {
	if invalid == nil || env.Type != proto.TypeFunctionCall {
		return payload, invalid
	}
	var loose proto.FunctionCallPayload
	if json.Unmarshal(env.Payload, &loose) != nil {
		return payload, invalid
	}
	for _, f := range callFixes {
		var m map[string]any
		if json.Unmarshal(env.Payload, &m) != nil || !f.fix(m) {
			continue
		}
		fixed := env
		fixed.Payload, _ = json.Marshal(m)
		if _, err := proto.Decode[proto.FunctionCallPayload](fixed); err == nil && mutation.On(f.point) {
			return &loose, nil
		}
	}
	return payload, invalid
}

func blank(v any) bool {
	s, ok := v.(string)
	return !ok || len(bytes.TrimSpace([]byte(s))) == 0
}

var callFixes = []struct {
	point mutation.Point
	fix   func(m map[string]any) bool
}{
	{mutation.FNCoreCallWithoutIDTaken, func(m map[string]any) bool {
		if !blank(m["call_id"]) {
			return false
		}
		m["call_id"] = "call"
		return true
	}},
	{mutation.FNCoreCallWithoutNameTaken, func(m map[string]any) bool {
		if !blank(m["name"]) {
			return false
		}
		m["name"] = "unnamed"
		return true
	}},
	{mutation.FNCoreCallWithoutArgumentsTaken, func(m map[string]any) bool {
		if _, ok := m["arguments"]; ok {
			return false
		}
		m["arguments"] = map[string]any{}
		return true
	}},
}
