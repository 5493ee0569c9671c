package turn

import "github.com/wirecheck/wirecheck/proto"

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
	case *proto.PermissionRequestPayload, *proto.PromptForUserChoicePayload:
		return InteractionRequest{Type: typ}
	}
	return OtherFrame{Type: typ}
}
