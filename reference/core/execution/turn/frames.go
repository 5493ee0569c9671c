package turn

import (
	"encoding/json"

	"github.com/wirecheck/wirecheck/proto"
)

// StatusEvent is the event of a preparation_status the subscription delivered.
func StatusEvent(p *proto.PreparationStatusPayload) Status {
	return Status{State: p.State, Operation: p.Operation, Handle: p.Handle, ExecutorID: p.ExecutorID, ErrorCode: p.ErrorCode}
}

// RunEvent is the event of one frame on the Run subscription: payload is the decoded payload,
// or nil when invalid says which rule the frame broke.
func RunEvent(typ string, payload any, invalid error) Event {
	if invalid != nil {
		return Undecodable{Type: typ, Err: invalid}
	}
	switch p := payload.(type) {
	case *proto.DeltaPayload:
		return Delta{Text: p.Delta}
	case *proto.OutputMessagePayload:
		return OutputMessage{Status: p.Status, Text: p.Text}
	case *proto.UsagePayload:
		return Usage{Usage: p.Usage}
	case *proto.ErrorPayload:
		return EngineError{Error: *p}
	case *proto.DonePayload:
		return Done{Done: p}
	case *proto.PromptSteerAckPayload:
		return SteerAck{Ack: p}
	case *proto.PermissionRequestPayload:
		return interactionEvent(typ, p.RequestID, p)
	case *proto.PromptForUserChoicePayload:
		return interactionEvent(typ, p.AskID, p)
	case *proto.FunctionCallPayload:
		return interactionEvent(typ, p.CallID, p)
	case *proto.SubagentIdentityPayload, *proto.SubagentLifecyclePayload, *proto.SubagentTurnPayload,
		*proto.SubagentItemPayload, *proto.SubagentCoordinationPayload:
		return subagentEvent(typ, p)
	}
	return OtherFrame{Type: typ}
}

// interactionEvent keeps the request as it decoded (re-encoded: the record shows what Core saw).
func interactionEvent(typ, id string, p any) Event {
	raw, err := json.Marshal(p)
	if err != nil {
		return Undecodable{Type: typ, Err: err}
	}
	return InteractionRequest{Type: typ, ID: id, Payload: raw}
}
