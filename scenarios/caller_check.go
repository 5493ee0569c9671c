package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// CancelCheck makes a caller cancel the Turn of a Run now, through the Core under test's API,
// which Core must accept; the check holds once Core has recorded the cancellation. What Core sends
// for it is written in the steps after the check: a cancellation requested before any
// preparation_status named the admission's handle shows on the wire only once one does (the
// execution_release that follows it), so no frame step can both cause it and expect its frame.
type CancelCheck struct {
	// Run names the Turn: a bound Run ID, or a placeholder Core chose but never sent (a Turn that
	// has not started), which names the scenario's Turn.
	Run Value // string template
}

func (c *CancelCheck) String() string {
	return fmt.Sprintf("Core takes a caller's cancellation of the Turn of run %v", c.Run)
}

func (p *parser) cancelCheck(v *yaml.Node) *CancelCheck {
	f := p.fields(v, "check.cancel", "run")
	if f == nil {
		return nil
	}
	c := &CancelCheck{}
	if f["run"] == nil {
		p.Errorf(v.Line, "check.cancel.run is required")
		return c
	}
	c.Run = p.String(f["run"], "run")
	p.checkPlaceholders(f["run"])
	return c
}

// InputCheck makes a caller give the Turn of a Run one active input now, through the Core under
// test's API. With Refuses, Core must refuse it inside itself with the API error Code: nothing of
// it reaches the wire (an input that does not validate as a MessageInput, IN-01.5), and the wire
// cannot show a refusal that sends nothing. With Gives, Core must take it (record it for delivery)
// and the check holds once it has: when, and whether, Core sends it is Core's (one input at a
// time, IN-20), written in the steps after the check. Key is the caller's idempotency key and the
// input_id a later prompt_steer step writes for it (a ${placeholder}, as written): that step
// expects Core's frame and causes nothing more. So a scenario can give an input whose frame no
// step may expect: one Core must hold back.
type InputCheck struct {
	Run Value // string template
	// Refuses is the caller's input, as a prompt_steer's input member would carry it.
	Refuses Value
	Code    string
	// Gives is the caller's input Core must take; Key its idempotency key.
	Gives Value
	Key   string
}

func (c *InputCheck) String() string {
	if c.Gives != nil {
		return fmt.Sprintf("Core takes a caller's input %s to the Turn of run %v", c.Key, c.Run)
	}
	return fmt.Sprintf("Core refuses a caller's input to the Turn of run %v with %s", c.Run, c.Code)
}

func (p *parser) inputCheck(v *yaml.Node) *InputCheck {
	f := p.fields(v, "check.input", "run", "refuses", "code", "gives", "key")
	if f == nil {
		return nil
	}
	c := &InputCheck{Code: p.String(f["code"], "code"), Key: p.String(f["key"], "key")}
	if f["gives"] != nil {
		if f["run"] == nil || c.Key == "" || f["refuses"] != nil || f["code"] != nil {
			p.Errorf(v.Line, "check.input with gives needs run and key (the input_id a later prompt_steer step writes for it), and no refuses or code")
			return c
		}
		c.Run = p.String(f["run"], "run")
		p.checkPlaceholders(f["run"])
		if f["gives"].Kind != yaml.SequenceNode {
			p.Errorf(f["gives"].Line, "check.input.gives is the caller's input: a list of messages, as prompt_steer's input")
			return c
		}
		p.checkPlaceholders(f["gives"])
		c.Gives = p.value(f["gives"], "check.input.gives")
		return c
	}
	if f["run"] == nil || f["refuses"] == nil || c.Code == "" || f["key"] != nil {
		p.Errorf(v.Line, "check.input needs run, refuses (the caller's input) and code; or run, gives and key")
		return c
	}
	c.Run = p.String(f["run"], "run")
	p.checkPlaceholders(f["run"])
	if f["refuses"].Kind != yaml.SequenceNode {
		p.Errorf(f["refuses"].Line, "check.input.refuses is the caller's input: a list of messages, as prompt_steer's input")
		return c
	}
	p.checkPlaceholders(f["refuses"])
	c.Refuses = p.value(f["refuses"], "check.input.refuses")
	return c
}
