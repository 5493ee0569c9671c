package proto

import "fmt"

// DeclareCapabilities returns a complete declaration: every field decided explicitly as
// unsupported, then the named capabilities marked supported. An unknown name is an error.
//
// There is deliberately no loop over the fields and no default: a field added to
// AgentKindCapabilities stays unspecified here, so encoding (and every test of a declaration made
// here) fails until someone decides it.
func DeclareCapabilities(supported ...string) (AgentKindCapabilities, error) {
	c := AgentKindCapabilities{
		SubagentObservations:           Unsupported,
		Streaming:                      Unsupported,
		Permissions:                    Unsupported,
		Usage:                          Unsupported,
		Resume:                         Unsupported,
		NativeSessionRecovery:          Unsupported,
		WorkspaceAuthoring:             Unsupported,
		Steering:                       Unsupported,
		MessageItems:                   Unsupported,
		ToolObservations:               Unsupported,
		EnvironmentNone:                Unsupported,
		LocalEnvironment:               Unsupported,
		Preparation:                    Unsupported,
		WorkspaceReadPreparation:       Unsupported,
		WorkspaceOutputExport:          Unsupported,
		ProgrammaticToolCallingDisable: Unsupported,
		WebSearchControl:               Unsupported,
		ExecutionControls:              Unsupported,
		TextVerbosity:                  Unsupported,
		StructuredOutput:               Unsupported,
		ToolSearch:                     Unsupported,
		MessageImages:                  Unsupported,
		FunctionResultImages:           Unsupported,
		SubagentControl:                Unsupported,
		DurableInputReceipts:           Unsupported,
		DurableTurns:                   Unsupported,
		FunctionTools:                  Unsupported,
		MCPHTTPTools:                   Unsupported,
		MCPHTTPRequired:                Unsupported,
		MCPHTTPBearerAuth:              Unsupported,
	}
	for _, name := range supported {
		if !c.Set(name, Supported) {
			return AgentKindCapabilities{}, fmt.Errorf("capabilities: unknown capability %q", name)
		}
	}
	return c, nil
}

// MustDeclareCapabilities is DeclareCapabilities for a fixed list: an unknown name panics.
func MustDeclareCapabilities(supported ...string) AgentKindCapabilities {
	c, err := DeclareCapabilities(supported...)
	if err != nil {
		panic(err)
	}
	return c
}
