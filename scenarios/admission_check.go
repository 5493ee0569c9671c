package scenarios

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/proto"
)

// AdmissionCheck makes a caller ask the Core under test to start a Turn now, on the scenario's
// device (kind contract, Environment none, the default configuration), which Core must refuse at
// device selection: nothing of it reaches the wire. The wire cannot show a refusal that sends
// nothing, nor tell it from a Turn that was never asked for.
type AdmissionCheck struct {
	// Refuses is what the caller asks for: start.
	Refuses string
	// Missing names the capabilities the refusal must name as undeclared, in any order (none
	// written: unchecked).
	Missing []string
}

func (c *AdmissionCheck) String() string {
	s := "Core refuses a Turn's " + c.Refuses + " at device selection"
	if len(c.Missing) > 0 {
		s += " for want of " + strings.Join(c.Missing, ", ")
	}
	return s
}

// SameMissing reports whether got names exactly the capabilities the check names, in any order.
func (c *AdmissionCheck) SameMissing(got []string) bool {
	if len(c.Missing) == 0 {
		return true
	}
	a, b := slices.Clone(c.Missing), slices.Clone(got)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func (p *parser) admissionCheck(v *yaml.Node) *AdmissionCheck {
	f := p.fields(v, "check.admission", "refuses", "missing")
	if f == nil {
		return nil
	}
	c := &AdmissionCheck{Refuses: p.String(f["refuses"], "refuses"), Missing: p.Strings(f["missing"], "check.admission.missing")}
	if c.Refuses != "start" {
		p.Errorf(v.Line, "check.admission.refuses must be start")
	}
	if m := f["missing"]; m != nil {
		for _, name := range m.Content {
			if !slices.Contains(proto.CapabilityNames(), name.Value) {
				p.Errorf(name.Line, "check.admission.missing: %q is not a capability", name.Value)
			}
		}
	}
	return c
}
