package scenarios

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/proto"
)

// SubagentsCheck asks the Core under test which sub-agent observation frames it recorded for the
// Turn of a Run (protocol-facts §4.17): the wire cannot show what Core kept, nor that it dropped
// a frame out of order or one that does not decode.
type SubagentsCheck struct {
	Run Value // string template
	// Frames is the recorded list, in arrival order: each {type, payload}, the payload a template
	// compared member for member (none missing, none extra: a nullable member is recorded as
	// null, recipients as an array). An empty list says Core recorded none.
	Frames []Value
}

func (c *SubagentsCheck) String() string {
	return fmt.Sprintf("the Turn of run %v recorded %d sub-agent frames", c.Run, len(c.Frames))
}

var subagentTypes = map[string]bool{proto.TypeSubagentIdentity: true, proto.TypeSubagentLifecycle: true,
	proto.TypeSubagentTurn: true, proto.TypeSubagentItem: true, proto.TypeSubagentCoordination: true}

func (p *parser) subagentsCheck(v *yaml.Node) *SubagentsCheck {
	f := p.fields(v, "check.subagents", "run", "frames")
	if f == nil {
		return nil
	}
	c := &SubagentsCheck{}
	if f["run"] == nil {
		p.Errorf(v.Line, "check.subagents.run is required")
	} else {
		c.Run = p.String(f["run"], "run")
		p.checkPlaceholders(f["run"])
	}
	fr := f["frames"]
	if fr == nil || fr.Kind != yaml.SequenceNode {
		p.Errorf(v.Line, "check.subagents.frames must be a list (empty: Core recorded none)")
		return c
	}
	for _, n := range fr.Content {
		ef := p.fields(n, "check.subagents.frames[]", "type", "payload")
		if ef == nil {
			continue
		}
		if typ := p.String(ef["type"], "type"); !subagentTypes[typ] {
			p.Errorf(n.Line, "check.subagents.frames[].type %q is not a sub-agent frame type", typ)
		}
		if ef["payload"] == nil || ef["payload"].Kind != yaml.MappingNode {
			p.Errorf(n.Line, "check.subagents.frames[].payload must be the recorded payload (an object)")
			continue
		}
		p.checkPlaceholders(ef["payload"])
		c.Frames = append(c.Frames, p.value(n, "check.subagents.frames[]"))
	}
	return c
}
