package execution

import "github.com/wirecheck/wirecheck/proto"

// cnOtherKind is the cn-refused-turn-moved-to-other-kind mutant (CN-50.33): a Turn refused for
// its kind is moved to another available kind of the same heartbeat that declares every
// capability the refusal named missing, and admitted there. false: no kind would take it.
func cnOtherKind(cfg *proto.PromptRequestPayload, hb *proto.HeartbeatPayload, missing []string) bool {
	if hb == nil {
		return false
	}
	for _, k := range hb.SupportedAgentKinds {
		if k.Kind == cfg.AgentKind || !k.Available || k.Capabilities == nil {
			continue
		}
		all := true
		for _, n := range missing {
			if v, _ := k.Capabilities.Get(n); !v.Supported() {
				all = false
			}
		}
		if all {
			cfg.AgentKind = k.Kind
			return true
		}
	}
	return false
}
