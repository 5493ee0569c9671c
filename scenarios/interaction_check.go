package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// InteractionCheck makes a caller answer an interaction of the scenario's Turn now, through the
// Core under test's API, with an answer Core must refuse inside itself with the API error Code:
// nothing reaches the wire (a function result with images the Turn was not admitted for, FN-14).
type InteractionCheck struct {
	// Refuses is the interaction answered: a request_id, ask_id or call_id the Runtime sent (a
	// bound placeholder such as ${run} resolves), or, with Code unknown_interaction, one Core must
	// never have recorded.
	Refuses string
	// Answer is the caller's answer: the decision's payload without delivery_id (and, for a
	// function, without call_id).
	Answer Value
	Code   string
}

func (c *InteractionCheck) String() string {
	return fmt.Sprintf("Core refuses an answer to %s with %s", c.Refuses, c.Code)
}

func (p *parser) interactionCheck(v *yaml.Node) *InteractionCheck {
	f := p.fields(v, "check.interaction", "refuses", "answer", "code")
	if f == nil {
		return nil
	}
	c := &InteractionCheck{Refuses: p.String(f["refuses"], "refuses"), Code: p.String(f["code"], "code")}
	if c.Refuses == "" || c.Code == "" || f["answer"] == nil {
		p.Errorf(v.Line, "check.interaction needs refuses (the interaction), answer and code")
		return c
	}
	if f["answer"].Kind != yaml.MappingNode {
		p.Errorf(f["answer"].Line, "check.interaction.answer must be the decision's payload (a mapping)")
		return c
	}
	p.checkPlaceholders(f["answer"])
	c.Answer = p.value(f["answer"], "check.interaction.answer")
	return c
}
