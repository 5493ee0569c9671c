package scenarios

import (
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"
)

// DecisionCheck reads what Core recorded of one decision it sent (a permission_decision,
// prompt_for_user_choice_decision or function_result), named by the delivery_id it carried: a
// resolve attempt (runtime-protocol "Envelope and identity"), whose interaction_decision_ack Core
// routes by that delivery_id alone (facts §4.10) and awaits at most 15 s (facts §4.8). It is how a
// scenario sees whether an ack settled a decision without assuming that Core sends one decision
// at a time, which no rule says (docs/spec-readings.md, decisions-are-not-serialised).
type DecisionCheck struct {
	Delivery Value  // string template: the decision's delivery_id
	State    string // one of DecisionStates
}

// DecisionStates are the states of a decision Core sent:
//   - awaited: Core waits for its ack;
//   - applied: an ack carrying its delivery_id said applied:true;
//   - refused: an ack carrying its delivery_id said applied:false;
//   - unconfirmed: Core waits no more (15 s passed, the request was withdrawn, the connection
//     went) and no ack settled it.
var DecisionStates = []string{"awaited", "applied", "refused", "unconfirmed"}

func (c *DecisionCheck) String() string {
	return fmt.Sprintf("the decision with delivery_id %v is %s", compact(c.Delivery), c.State)
}

func (p *parser) decisionCheck(v *yaml.Node) *DecisionCheck {
	f := p.fields(v, "check.decision", "delivery", "state")
	if f == nil {
		return nil
	}
	c := &DecisionCheck{State: p.String(f["state"], "state")}
	if f["delivery"] == nil {
		p.Errorf(v.Line, "check.decision.delivery: the delivery_id of the decision (a placeholder Core's decision bound) is required")
	} else {
		p.checkPlaceholders(f["delivery"])
		c.Delivery = p.value(f["delivery"], "check.decision.delivery")
		if _, ok := c.Delivery.(string); !ok {
			p.Errorf(f["delivery"].Line, "check.decision.delivery must be a string")
		}
	}
	if !slices.Contains(DecisionStates, c.State) {
		p.Errorf(v.Line, "check.decision.state must be one of %v", DecisionStates)
	}
	return c
}
