// Package prototest holds wire fixtures shared by tests and scripted peers: a capability
// declaration in which every field is decided explicitly.
package prototest

import "github.com/wirecheck/wirecheck/proto"

// Capabilities returns a declaration with every field listed explicitly as unsupported, then
// marks the named capabilities supported. There is deliberately no loop over the fields and no
// default: a field added to proto.AgentKindCapabilities stays unspecified here, so encoding and
// every test that uses this fixture fail until someone decides it.
func Capabilities(supported ...string) proto.AgentKindCapabilities {
	c := proto.AgentKindCapabilities{
		SubagentObservations:           proto.Unsupported,
		Streaming:                      proto.Unsupported,
		Permissions:                    proto.Unsupported,
		Usage:                          proto.Unsupported,
		Resume:                         proto.Unsupported,
		NativeSessionRecovery:          proto.Unsupported,
		WorkspaceAuthoring:             proto.Unsupported,
		Steering:                       proto.Unsupported,
		MessageItems:                   proto.Unsupported,
		ToolObservations:               proto.Unsupported,
		EnvironmentNone:                proto.Unsupported,
		LocalEnvironment:               proto.Unsupported,
		Preparation:                    proto.Unsupported,
		WorkspaceReadPreparation:       proto.Unsupported,
		WorkspaceOutputExport:          proto.Unsupported,
		ProgrammaticToolCallingDisable: proto.Unsupported,
		WebSearchControl:               proto.Unsupported,
		ExecutionControls:              proto.Unsupported,
		TextVerbosity:                  proto.Unsupported,
		StructuredOutput:               proto.Unsupported,
		ToolSearch:                     proto.Unsupported,
		MessageImages:                  proto.Unsupported,
		FunctionResultImages:           proto.Unsupported,
		SubagentControl:                proto.Unsupported,
		DurableInputReceipts:           proto.Unsupported,
		DurableTurns:                   proto.Unsupported,
		FunctionTools:                  proto.Unsupported,
		MCPHTTPTools:                   proto.Unsupported,
		MCPHTTPRequired:                proto.Unsupported,
		MCPHTTPBearerAuth:              proto.Unsupported,
	}
	for _, name := range supported {
		if !c.Set(name, proto.Supported) {
			panic("prototest: unknown capability " + name)
		}
	}
	return c
}
