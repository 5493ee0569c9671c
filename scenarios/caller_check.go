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
// test's API, which Core must refuse inside itself with the API error Code: nothing of it reaches
// the wire (an input that does not validate as a MessageInput, IN-01.5). The wire cannot show a
// refusal that sends nothing.
type InputCheck struct {
	Run Value // string template
	// Refuses is the caller's input, as a prompt_steer's input member would carry it.
	Refuses Value
	Code    string
}

func (c *InputCheck) String() string {
	return fmt.Sprintf("Core refuses a caller's input to the Turn of run %v with %s", c.Run, c.Code)
}

func (p *parser) inputCheck(v *yaml.Node) *InputCheck {
	f := p.fields(v, "check.input", "run", "refuses", "code")
	if f == nil {
		return nil
	}
	c := &InputCheck{Code: p.String(f["code"], "code")}
	if f["run"] == nil || f["refuses"] == nil || c.Code == "" {
		p.Errorf(v.Line, "check.input needs run, refuses (the caller's input) and code")
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
