package turn

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

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
	if ev, ok := looseSteerAck(typ, raw, invalid); ok {
		return ev
	}
	if ev, ok := looseInteractionRequest(typ, raw, invalid); ok {
		return ev
	}
	if invalid != nil {
		if p := lenientSubagent(typ, raw); p != nil {
			payload, invalid = p, nil
		}
	}
	ev := RunEvent(typ, payload, invalid)
	if e, ok := ev.(EngineError); ok {
		if err := strictEngineFailure(raw); err != nil {
			return Undecodable{Type: typ, Err: err}
		}
		e.Error.Code, e.Error.HTTPStatus = EngineFailure(raw)
		return e
	}
	return ev
}

// strictEngineFailure is the EF-04 Core mutants' decoder: an error frame whose classification is
// unlisted or malformed fails to decode, where §6.1 reads it unclassified and keeps the frame.
func strictEngineFailure(raw json.RawMessage) error {
	var m struct {
		Code       json.RawMessage `json:"code"`
		HTTPStatus json.RawMessage `json:"http_status"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var code string
	switch {
	case len(m.Code) > 0 && json.Unmarshal(m.Code, &code) != nil:
		if mutation.On(mutation.EFCoreNonStringCodeFails) {
			return errors.New("error.code: not a string")
		}
	case len(m.Code) > 0 && !proto.KnownEngineCode(code):
		if mutation.On(mutation.EFCoreUnlistedCodeFails) {
			return errors.New("error.code: not an engine failure code")
		}
	}
	if _, ok := rawStatus(m.HTTPStatus); len(m.HTTPStatus) > 0 && !ok && mutation.On(mutation.EFCoreMalformedStatusFails) {
		return errors.New("error.http_status: not an integer from 100 to 599")
	}
	return nil
}

// rawStatus is an http_status that is a JSON integer from 100 to 599.
func rawStatus(raw json.RawMessage) (int, bool) {
	var n int
	if !bytes.ContainsAny(raw, ".eE\"") && json.Unmarshal(raw, &n) == nil && n >= 100 && n <= 599 {
		return n, true
	}
	return 0, false
}

// coreEngineCodeMutants are the EF-01 Core mutants: a list of accepted codes that lacks one.
var coreEngineCodeMutants = map[string]mutation.Point{
	proto.EngineAuthenticationError:   mutation.EFCoreAuthenticationErrorUnlisted,
	proto.EngineRateLimitExceeded:     mutation.EFCoreRateLimitUnlisted,
	proto.EngineUsageLimitExceeded:    mutation.EFCoreUsageLimitUnlisted,
	proto.EngineServerOverloaded:      mutation.EFCoreServerOverloadedUnlisted,
	proto.EngineServerError:           mutation.EFCoreServerErrorUnlisted,
	proto.EngineInvalidRequest:        mutation.EFCoreInvalidRequestUnlisted,
	proto.EngineResourceNotFound:      mutation.EFCoreResourceNotFoundUnlisted,
	proto.EngineRequestTimeout:        mutation.EFCoreRequestTimeoutUnlisted,
	proto.EngineContextLengthExceeded: mutation.EFCoreContextLengthUnlisted,
	proto.EngineCyberPolicy:           mutation.EFCoreCyberPolicyUnlisted,
	proto.EngineConnectionFailed:      mutation.EFCoreConnectionFailedUnlisted,
}

// bendEngineFailure is the EF-01 … EF-03 Core mutants' extraction.
func bendEngineFailure(code string, status int, rawCode, rawHTTP json.RawMessage) (string, int) {
	if p, ok := coreEngineCodeMutants[code]; ok && mutation.On(p) {
		return "", 0 // missing from Core's copy of the list
	}
	n, integer := rawStatus(rawHTTP)
	var asString string
	stringCode := len(rawCode) > 0 && json.Unmarshal(rawCode, &asString) == nil
	switch {
	case code == "" && len(rawCode) == 0 && integer && mutation.On(mutation.EFCoreStatusKeptWithoutCode):
		return "", n
	case code == "" && len(rawCode) > 0 && integer && mutation.On(mutation.EFCoreStatusKeptBesideUnlisted):
		return "", n
	case code == "" && stringCode && lookAlike(asString) != "" && mutation.On(mutation.EngineUnlistedCodeKept):
		return lookAlike(asString), 0 // a look-alike taken for the listed code
	case code == "" && stringCode && asString != "" && mutation.On(mutation.EFCoreUnlistedCodeStored):
		return asString, 0 // the code kept as written, listed or not
	case code == "" && len(rawCode) > 0 && !stringCode && !bytes.Equal(rawCode, []byte("null")) && mutation.On(mutation.EFCoreNonStringCodeStored):
		return string(rawCode), 0 // the code's JSON text taken for a code
	case code == proto.EngineConnectionFailed && status != 0 && mutation.On(mutation.EFCoreConnectionStatusDropped):
		return code, 0
	}
	if code != proto.EngineConnectionFailed {
		return code, status
	}
	var whole int
	wholeOK := !bytes.ContainsAny(rawHTTP, ".eE\"") && json.Unmarshal(rawHTTP, &whole) == nil
	var quoted int
	switch {
	case status == 100 && mutation.On(mutation.EFCoreStatus100Dropped), status == 599 && mutation.On(mutation.EFCoreStatus599Dropped):
		return code, 0 // the range checked as 101-599 or 100-598
	case wholeOK && whole == 99 && mutation.On(mutation.EFCoreStatus99Kept), wholeOK && whole == 600 && mutation.On(mutation.EFCoreStatus600Kept):
		return code, whole // the range checked as 99-599 or 100-600
	case status == 0 && json.Unmarshal(rawHTTP, &asString) == nil && json.Unmarshal([]byte(asString), &quoted) == nil &&
		quoted >= 100 && quoted <= 599 && mutation.On(mutation.EFCoreQuotedStatusKept):
		return code, quoted // a numeric string taken for the integer
	}
	return code, status
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
	code, status = bendEngineFailure(code, status, m.Code, m.HTTPStatus)
	if mutation.On(mutation.EngineStatusBesideAnyCode) && code != "" && status == 0 {
		if n, err := strconv.Atoi(string(bytes.TrimSpace(m.HTTPStatus))); err == nil && n >= 100 && n <= 599 {
			status = n
		}
	}
	return code, status
}

// lookAlike is the engine-unlisted-code-kept mutant's match: the listed code whose first 10 bytes
// the received one shares, case folded (a strncmp with a fixed length), or "".
func lookAlike(code string) string {
	const n = 10
	c := strings.ToLower(code)
	if len(c) < n {
		return ""
	}
	for _, listed := range slices.Sorted(maps.Keys(proto.EngineCodes)) {
		if len(listed) >= n && listed[:n] == c[:n] {
			return listed
		}
	}
	return ""
}
