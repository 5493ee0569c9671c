package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// JournalCheck asks the Core under test whether the journal of the Turn of a Run holds an entry:
// what Core did with a frame that changes no outcome (an invalid tool_call is only noted) is not
// on the wire.
type JournalCheck struct {
	Run Value // string template
	// Kind is the entry's kind (received, sent, transition, admission, note); Type, when set, its
	// frame type; Note, when set, a substring its note must contain.
	Kind string
	Type string
	Note string
}

// Journal entry kinds a check names.
var journalKinds = map[string]bool{"received": true, "sent": true, "transition": true, "admission": true, "note": true}

func (c *JournalCheck) String() string {
	s := fmt.Sprintf("the journal of the Turn of run %v holds a %s entry", c.Run, c.Kind)
	if c.Type != "" {
		s += " of type " + c.Type
	}
	if c.Note != "" {
		s += fmt.Sprintf(" noting %q", c.Note)
	}
	return s
}

func (p *parser) journalCheck(v *yaml.Node) *JournalCheck {
	f := p.fields(v, "check.journal", "run", "kind", "type", "note")
	if f == nil {
		return nil
	}
	c := &JournalCheck{Kind: p.String(f["kind"], "kind"), Type: p.String(f["type"], "type"), Note: p.String(f["note"], "note")}
	if f["run"] == nil {
		p.Errorf(v.Line, "check.journal.run is required")
	} else {
		c.Run = p.String(f["run"], "run")
		p.checkPlaceholders(f["run"])
	}
	if !journalKinds[c.Kind] {
		p.Errorf(v.Line, "check.journal.kind %q must be one of received, sent, transition, admission, note", c.Kind)
	}
	if c.Type == "" && c.Note == "" {
		p.Errorf(v.Line, "check.journal needs a type or a note to find the entry by")
	}
	return c
}
