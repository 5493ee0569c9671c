package daemon

import (
	"github.com/wirecheck/wirecheck/proto"
)

// ContractCapabilities is the honest declaration of the reference Runtime composed with the
// contract Harness: what this daemon actually implements today. A capability is declared only with
// the code that serves it; the fixture decides every other field explicitly as unsupported.
func ContractCapabilities() proto.AgentKindCapabilities {
	return proto.MustDeclareCapabilities(
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
		"local_environment",      // a real Environment on disk: runtime_prepare installs into it (package environment)

		// The workspace family: package workspace on the Environment's workspace.
		"workspace_read_preparation", // read-only preparations for reads and exports (readonly.go)
		"workspace_output_export",    // workspace_export: a tar stream of the workspace
	)
}
