package contract

import (
	"slices"

	"github.com/wirecheck/wirecheck/proto"
)

// copySubagent returns a shallow copy of a scripted sub-agent payload with its slices copied: the
// Runtime may adjust what it encodes, and the script serves every Turn of the Executor.
func copySubagent(p any) any {
	switch p := p.(type) {
	case *proto.SubagentIdentityPayload:
		c := *p
		return &c
	case *proto.SubagentLifecyclePayload:
		c := *p
		return &c
	case *proto.SubagentTurnPayload:
		c := *p
		return &c
	case *proto.SubagentItemPayload:
		c := *p
		c.Payload = slices.Clone(p.Payload)
		return &c
	case *proto.SubagentCoordinationPayload:
		c := *p
		c.Recipients = slices.Clone(p.Recipients)
		return &c
	}
	return p
}
