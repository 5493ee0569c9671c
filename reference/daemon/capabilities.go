package daemon

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/environment"
)

// ContractCapabilities is the honest declaration of the reference Runtime composed with the
// contract Harness: what this daemon actually implements today. A capability is declared only with
// the code that serves it; the fixture decides every other field explicitly as unsupported.
func ContractCapabilities() proto.AgentKindCapabilities {
	names := []string{
		"streaming",              // Run events stream as the Turn produces them
		"usage",                  // usage snapshots, replacing, never added
		"tool_observations",      // tool_call frames carry the engine-neutral observation
		"environment_none",       // disable_execution_environment
		"preparation",            // execution_prepare / start / release
		"execution_controls",     // the controls block is accepted; the contract Turn has no model to apply it to
		"steering",               // prompt_steer, answered by package input
		"durable_input_receipts", // written before accepted, stored receipts for repeats
		"permissions",            // permission and user-choice decisions, answered by package interact
		"function_tools",         // function_call / function_result, answered by package interact
		"function_result_images", // image parts of a function result reach the Turn like text
		"subagent_observations",  // sub-agent frames on observe_subagent_identities, in order (subagents.go)
		"message_items",          // observe_messages: each run of delta steps is a message item (contract Harness)
	}
	if environment.CanRunSetup() {
		// A real Environment on disk that runtime_prepare installs into (package environment). Only
		// where setup commands can run: the reference's container image holds no shell.
		names = append(names, "local_environment")
		// The workspace family serves that Environment's workspace (package workspace): read-only
		// preparations for reads and exports (readonly.go), and workspace_export's tar stream.
		names = append(names, "workspace_read_preparation", "workspace_output_export")
	}
	return proto.MustDeclareCapabilities(names...)
}
