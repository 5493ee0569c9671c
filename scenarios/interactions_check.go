package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/proto"
)

// InteractionsCheck asks the Core under test which interactions it registered for the Turn of a
// Run: a request it dropped as invalid (a permission_request without request_id, IA-02.1; a
// prompt_for_user_choice without ask_id, IA-15.2) registers none, which neither the wire nor an
// answer can show, since such a request has no interaction ID to answer under.
type InteractionsCheck struct {
	Run Value // string template
	// Registered is every interaction Core registered for the Turn, in any order (none missing,
	// none extra); an empty list says none.
	Registered []RegisteredInteraction
}

// RegisteredInteraction is one interaction Core registered: the type of the request frame that
// opened it and its interaction ID (the request's request_id, ask_id or call_id).
type RegisteredInteraction struct {
	Type string
	ID   Value // string template; its placeholders must be bound when the check runs
}

// InteractionRequestTypes are the request frames that open an interaction, with the payload
// member that carries its interaction ID.
var InteractionRequestTypes = map[string]string{
	proto.TypePermissionRequest:   "request_id",
	proto.TypePromptForUserChoice: "ask_id",
	proto.TypeFunctionCall:        "call_id",
}

func (c *InteractionsCheck) String() string {
	return fmt.Sprintf("the Turn of run %v registered %d interactions", c.Run, len(c.Registered))
}

func (p *parser) interactionsCheck(v *yaml.Node) *InteractionsCheck {
	f := p.fields(v, "check.interactions", "run", "registered")
	if f == nil {
		return nil
	}
	c := &InteractionsCheck{}
	if f["run"] == nil {
		p.Errorf(v.Line, "check.interactions.run is required")
	} else {
		c.Run = p.String(f["run"], "run")
		p.checkPlaceholders(f["run"])
	}
	reg := f["registered"]
	if reg == nil || reg.Kind != yaml.SequenceNode {
		p.Errorf(v.Line, "check.interactions.registered must be a list of {type, id} (empty: Core registered none)")
		return c
	}
	seen := map[RegisteredInteraction]bool{}
	for _, n := range reg.Content {
		ef := p.fields(n, "check.interactions.registered[]", "type", "id")
		if ef == nil {
			continue
		}
		r := RegisteredInteraction{Type: p.String(ef["type"], "type")}
		if _, ok := InteractionRequestTypes[r.Type]; !ok {
			p.Errorf(n.Line, "check.interactions.registered[].type %q is not a request that opens an interaction (permission_request, prompt_for_user_choice, function_call)", r.Type)
		}
		id := p.String(ef["id"], "id")
		if id == "" {
			p.Errorf(n.Line, "check.interactions.registered[].id is required: an interaction ID is a non-empty string")
			continue
		}
		p.checkPlaceholders(ef["id"])
		r.ID = id
		if seen[r] {
			p.Errorf(n.Line, "check.interactions.registered lists %s %s twice", r.Type, id)
		}
		seen[r] = true
		c.Registered = append(c.Registered, r)
	}
	return c
}
