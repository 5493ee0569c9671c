package turn

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
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

// RunFrame is RunEvent for a frame as received: an error frame's engine classification is
// extracted by Core from the frame's own members (protocol-facts §6.1: the receiver normalises
// it, whatever the sender's decoder did), the same extraction for every delivery.
func RunFrame(typ string, raw json.RawMessage, payload any, invalid error) Event {
	if invalid != nil {
		if p := lenientSubagent(typ, raw); p != nil {
			payload, invalid = p, nil
		}
	}
	ev := RunEvent(typ, payload, invalid)
	if e, ok := ev.(EngineError); ok {
		e.Error.Code, e.Error.HTTPStatus = EngineFailure(raw)
		return e
	}
	return ev
}

// EngineFailure extracts an error payload's classification (EF-01 … EF-04): only the 11 listed
// codes are kept, http_status only beside connection_failed and only as an integer from 100 to
// 599; anything malformed reads unclassified and never fails the frame.
func EngineFailure(raw json.RawMessage) (string, int) {
	var m struct {
		Code       json.RawMessage `json:"code"`
		HTTPStatus json.RawMessage `json:"http_status"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return "", 0
	}
	code, status := proto.NormalizeEngineFailure(m.Code, m.HTTPStatus)
	if mutation.On(mutation.EngineUnlistedCodeKept) && code == "" {
		_ = json.Unmarshal(m.Code, &code)
	}
	if mutation.On(mutation.EngineStatusBesideAnyCode) && code != "" && status == 0 {
		if n, err := strconv.Atoi(string(bytes.TrimSpace(m.HTTPStatus))); err == nil && n >= 100 && n <= 599 {
			status = n
		}
	}
	return code, status
}
