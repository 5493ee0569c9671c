package runner

import (
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
)

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

// admissionHolds answers check.admission: a caller's start, made now on the scenario's device
// with the default configuration, must be refused at device selection (a DENY) naming exactly the
// capabilities the check names. A Turn Core records instead is cancelled at once, so the scenario
// fails on the check and not on what the Turn would send later.
func (d *refCoreDriver) admissionHolds(c *scenarios.AdmissionCheck) (bool, string, error) {
	cfg := proto.PromptRequestPayload{AgentKind: "contract"}
	t, err := d.Core.StartTurn(execution.StartRequest{DeviceID: d.DeviceID, Configuration: cfg,
		Environment: store.EnvironmentNone, Input: proto.TextInput("hello")})
	if err == nil {
		_ = d.Core.CancelTurn(t.ID)
		return false, "", fmt.Errorf("the reference Core recorded Turn %s instead of refusing it at device selection", t.ID)
	}
	var denied *execution.DeniedError
	if !errors.As(err, &denied) {
		return false, "", fmt.Errorf("the reference Core refused the start otherwise than by admission: %w", err)
	}
	if !c.SameMissing(denied.Decision.Missing) {
		return false, "", fmt.Errorf("the refusal names %v as missing, want %v", denied.Decision.Missing, c.Missing)
	}
	return true, denied.Decision.String(), nil
}
