package scenarios

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// StartCheck makes a caller start a Turn now on the scenario's device, through the Core under
// test's API, with a configuration Core must refuse inside itself with the API error Code:
// nothing of it reaches the wire (an invalid function tool, tool_search without its capability).
type StartCheck struct {
	// Configuration is the Turn's configuration, as an execution_prepare would carry it.
	Configuration Value
	Code          string
	// Missing, with code admission_denied, lists the capabilities Core names as missing.
	Missing []string
}

func (c *StartCheck) String() string {
	s := "Core refuses to start a Turn with " + c.Code
	if len(c.Missing) > 0 {
		s += fmt.Sprintf(" (missing %s)", strings.Join(c.Missing, ", "))
	}
	return s
}

func (p *parser) startCheck(v *yaml.Node) *StartCheck {
	f := p.fields(v, "check.start", "configuration", "code", "missing")
	if f == nil {
		return nil
	}
	c := &StartCheck{Code: p.String(f["code"], "code"), Missing: p.Strings(f["missing"], "check.start.missing")}
	if f["configuration"] == nil || f["configuration"].Kind != yaml.MappingNode || c.Code == "" {
		p.Errorf(v.Line, "check.start needs configuration (a mapping) and code")
		return c
	}
	if len(c.Missing) > 0 && c.Code != "admission_denied" {
		p.Errorf(f["missing"].Line, "check.start.missing belongs to code admission_denied")
	}
	p.checkPlaceholders(f["configuration"])
	c.Configuration = p.value(f["configuration"], "check.start.configuration")
	return c
}
