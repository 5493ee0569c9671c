package policy

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// OptIns sets the per-Run opt-ins Core owns (protocol-facts.md §4.4.4) that the admitted kind's
// declaration lets it send, on a configuration it is about to fix for a Session:
//
//   - execution_controls, with web search disabled and the verbosity resolved to medium (the
//     caller's explicit programmatic-tool-calling disable and output format kept), only to a kind
//     declaring execution_controls: the block is never sent to one that does not (AD-61);
//   - observe_tool_observations when the kind declares tool_observations;
//   - observe_messages when it declares message_items.
//
// A kind that declares none of them gets the older frames and fields. The configuration is fixed
// at device selection: a later heartbeat never widens it (CN-33).
func OptIns(cfg *proto.PromptRequestPayload, caps *proto.AgentKindCapabilities) {
	if mutation.On(mutation.OptInsUnset) {
		return
	}
	declared := func(name string) bool {
		if caps == nil {
			return false
		}
		v, ok := caps.Get(name)
		return ok && v.Supported()
	}
	if declared("execution_controls") || mutation.On(mutation.ExecutionControlsUndeclared) {
		c := proto.ExecutionControls{}
		if cfg.ExecutionControls != nil {
			c = *cfg.ExecutionControls
		}
		c.WebSearch = proto.WebSearchDisabled
		if c.TextVerbosity == "" {
			c.TextVerbosity = proto.VerbosityMedium
			if mutation.On(mutation.ADCoreVerbosityDefaultLow) {
				c.TextVerbosity = proto.VerbosityLow
			}
		}
		cfg.ExecutionControls = &c
	}
	if declared("tool_observations") && !mutation.On(mutation.ADCoreToolObservationsUnset) {
		cfg.ObserveToolObservations = true
		if mutation.On(mutation.ADCoreMessagesWithObservations) {
			cfg.ObserveMessages = true // the two observation opt-ins read as one
		}
	}
	if declared("message_items") && !mutation.On(mutation.ADCoreMessagesUnset) {
		cfg.ObserveMessages = true
	}
}

// KindDeclaration is the declaration of kind in a snapshot, or nil.
func KindDeclaration(hb *proto.HeartbeatPayload, kind string) *proto.AgentKindCapabilities {
	if hb == nil {
		return nil
	}
	if k := hb.Kind(kind); k != nil {
		return k.Capabilities
	}
	return nil
}
