package turn

import (
	"encoding/json"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The function-result mutants (FN-06) of what Core sends. Every one acts only once mutation.On
// says so, a constant false outside the wirecheck_mutants build.

// functionResultEnvelope is the function_result frame of p under id.
func functionResultEnvelope(id string, p *proto.FunctionResultPayload) (proto.Envelope, error) {
	if mutation.On(mutation.FNCoreResultWithoutDelivery) {
		p.DeliveryID = ""
	}
	if mutation.On(mutation.FNCoreResultWithoutCallID) {
		p.CallID = ""
	}
	if len(p.Content) == 0 && mutation.On(mutation.FNCoreEmptyContentNull) {
		p.Content = nil
	}
	env, err := proto.NewEnvelope(proto.TypeFunctionResult, id, p)
	if err == nil && !p.Success && mutation.On(mutation.FNCoreFalseSuccessOmitted) {
		var m map[string]json.RawMessage
		if json.Unmarshal(env.Payload, &m) == nil {
			delete(m, "success")
			env.Payload, err = json.Marshal(m)
		}
	}
	return env, err
}

// uncheckedResult is, under FN-06.6's mutant, the frame payload of an answer whose content parts
// were not checked: the caller's members as given, with Core's delivery_id and call_id.
func uncheckedResult(in store.Interaction) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(in.Answer, &m) != nil || !mutation.On(mutation.FNCoreContentPartsUnchecked) {
		return nil, false
	}
	m["delivery_id"], _ = json.Marshal(in.DeliveryID)
	m["call_id"], _ = json.Marshal(in.ID)
	raw, err := json.Marshal(m)
	return raw, err == nil
}

// functionToolMutants rewrites the function_tools of a prepare configuration c (decoded) as the
// FN-01 shape mutants send them.
func functionToolMutants(c map[string]any) {
	tools, _ := c["function_tools"].([]any)
	for _, v := range tools {
		t, _ := v.(map[string]any)
		switch {
		case t == nil:
		case t["description"] == "" && mutation.On(mutation.FNCoreEmptyDescriptionOmitted):
			delete(t, "description")
		case t["defer_loading"] == true && mutation.On(mutation.FNCoreDeferLoadingAsString):
			t["defer_loading"] = "true"
		}
	}
}
