package gateway

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// routeID is the Run a Run frame is routed to: its envelope id, or the interaction or call ID of
// its payload under the IA-01.1, IA-15.1, FN-05.1 and IN-02.1 mutants (the two identities mixed up). Every
// body is guarded by mutation.On, a constant false outside the wirecheck_mutants build.
func routeID(env proto.Envelope, frame *proto.Frame) string {
	if frame == nil {
		return env.ID
	}
	switch p := frame.Payload.(type) {
	case *proto.PermissionRequestPayload:
		if mutation.On(mutation.IACoreRequestRoutedByRequestID) {
			return p.RequestID
		}
	case *proto.PromptForUserChoicePayload:
		if mutation.On(mutation.IACoreChoiceRoutedByAskID) {
			return p.AskID
		}
	case *proto.FunctionCallPayload:
		if mutation.On(mutation.FNCoreCallRoutedByCallID) {
			return p.CallID
		}
	case *proto.PromptSteerAckPayload:
		if mutation.On(mutation.INCoreAckRoutedByInputID) {
			return p.InputID
		}
	}
	return env.ID
}
