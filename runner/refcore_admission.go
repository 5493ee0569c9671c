package runner

import "github.com/wirecheck/wirecheck/proto"

// callerConfiguration is the configuration a caller gives Core for a core execution_prepare step:
// the frame's configuration without the per-Run opt-ins Core sets itself (protocol-facts.md
// §4.4.4): observe_tool_observations, observe_messages, and an execution_controls block that
// carries nothing but Core's own web_search and text_verbosity. A scenario writes what Core must
// send; Core, not the caller, must add those.
func callerConfiguration(cfg proto.PromptRequestPayload) proto.PromptRequestPayload {
	cfg.ObserveToolObservations, cfg.ObserveMessages = false, false
	if c := cfg.ExecutionControls; c != nil && c.OutputFormat == nil && !c.DisableProgrammaticToolCalling {
		cfg.ExecutionControls = nil
	}
	return cfg
}
