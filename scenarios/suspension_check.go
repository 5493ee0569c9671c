package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// SuspensionCheck asks the Core under test about a suspension request a caller made (the wire
// cannot show how Core recorded its reply, nor that a closed socket left it unknown), or makes it
// refuse one. Exactly one of Op and Refuses is set.
type SuspensionCheck struct {
	// Op names the request by the id of its frame as the scenario writes it (the core
	// environment_quiesce/environment_resume step's id: a ${placeholder} or a literal).
	Op Value
	// State is the recorded outcome: accepted, refused or unknown; ErrorCode its code ("" when
	// none; an unknown outcome's is suspension_unconfirmed).
	State     string
	ErrorCode string
	// Refuses is a caller's quiesce or resume made now for the scenario's device, which Core must
	// refuse inside itself with the API error Code (nothing reaches the wire). A quiesce names the
	// Environment last named; a resume (without rollback, on the device's current connection)
	// names the attempt whose quiesce sent the suspend_id Attempt (a bound ${placeholder}).
	Refuses string
	Attempt Value
	Code    string
}

var suspensionStates = map[string]bool{"accepted": true, "refused": true, "unknown": true}

func (c *SuspensionCheck) String() string {
	if c.Refuses != "" {
		return fmt.Sprintf("Core refuses a %s with %s", c.Refuses, c.Code)
	}
	s := fmt.Sprintf("suspension request %v is %s", c.Op, c.State)
	if c.ErrorCode != "" {
		s += " with " + c.ErrorCode
	}
	return s
}

func (p *parser) suspensionCheck(v *yaml.Node) *SuspensionCheck {
	f := p.fields(v, "check.suspension", "op", "state", "error_code", "refuses", "attempt", "code")
	if f == nil {
		return nil
	}
	c := &SuspensionCheck{State: p.String(f["state"], "state"), ErrorCode: p.String(f["error_code"], "error_code"),
		Refuses: p.String(f["refuses"], "refuses"), Code: p.String(f["code"], "code")}
	switch {
	case (f["op"] == nil) == (f["refuses"] == nil):
		p.Errorf(v.Line, "check.suspension needs exactly one of op, refuses")
	case f["refuses"] != nil:
		switch c.Refuses {
		case "quiesce":
			if f["attempt"] != nil {
				p.Errorf(f["attempt"].Line, "check.suspension.attempt belongs to refuses: resume")
			}
		case "resume":
			if f["attempt"] == nil {
				p.Errorf(v.Line, "check.suspension.refuses: resume needs attempt, the suspend_id its quiesce sent")
			} else {
				c.Attempt = p.String(f["attempt"], "attempt")
				p.checkPlaceholders(f["attempt"])
			}
		default:
			p.Errorf(v.Line, "check.suspension.refuses must be quiesce or resume")
		}
		if c.Code == "" {
			p.Errorf(v.Line, "check.suspension.refuses needs the code Core refuses it with")
		}
		for _, k := range []string{"state", "error_code"} {
			if f[k] != nil {
				p.Errorf(f[k].Line, "check.suspension.%s belongs to an op check, not to refuses", k)
			}
		}
	default:
		c.Op = p.String(f["op"], "op")
		p.checkPlaceholders(f["op"])
		if f["attempt"] != nil {
			p.Errorf(f["attempt"].Line, "check.suspension.attempt belongs to refuses: resume")
		}
		if f["code"] != nil {
			p.Errorf(f["code"].Line, "check.suspension.code belongs to refuses; an op check names error_code")
		}
		if !suspensionStates[c.State] {
			p.Errorf(v.Line, "check.suspension.state must be accepted, refused or unknown")
		}
	}
	return c
}
