package proto

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Peer names the side that may send a message type.
type Peer string

const (
	Core    Peer = "core"
	Runtime Peer = "runtime"
)

// Other returns the opposite peer.
func (p Peer) Other() Peer {
	if p == Core {
		return Runtime
	}
	return Core
}

// Message types: the 37 of the spec's families table, plus the sub-agent observation frames.
const (
	TypeRuntimePrepare              = "runtime_prepare"
	TypeRuntimePrepareResult        = "runtime_prepare_result"
	TypeExecutionPrepare            = "execution_prepare"
	TypeExecutionStart              = "execution_start"
	TypeExecutionRelease            = "execution_release"
	TypePreparationStatus           = "preparation_status"
	TypePromptRequest               = "prompt_request"
	TypePromptCancel                = "prompt_cancel"
	TypeDeviceShutdown              = "device_shutdown"
	TypeDelta                       = "delta"
	TypeThinking                    = "thinking"
	TypeOutputMessage               = "output_message"
	TypeToolCall                    = "tool_call"
	TypeUsage                       = "usage"
	TypeError                       = "error"
	TypeDone                        = "done"
	TypeHeartbeat                   = "heartbeat"
	TypePermissionDecision          = "permission_decision"
	TypePromptForUserChoiceDecision = "prompt_for_user_choice_decision"
	TypePermissionRequest           = "permission_request"
	TypePermissionCancel            = "permission_cancel"
	TypePromptForUserChoice         = "prompt_for_user_choice"
	TypeInteractionDecisionAck      = "interaction_decision_ack"
	TypePromptSteer                 = "prompt_steer"
	TypePromptSteerAck              = "prompt_steer_ack"
	TypeFunctionResult              = "function_result"
	TypeFunctionCall                = "function_call"
	TypeWorkspaceRead               = "workspace_read"
	TypeWorkspaceReadResult         = "workspace_read_result"
	TypeWorkspaceWrite              = "workspace_write"
	TypeWorkspaceWriteResult        = "workspace_write_result"
	TypeWorkspaceExport             = "workspace_export"
	TypeWorkspaceExportResult       = "workspace_export_result"
	TypeEnvironmentQuiesce          = "environment_quiesce"
	TypeEnvironmentResume           = "environment_resume"
	TypeEnvironmentQuiesced         = "environment_quiesced"
	TypeEnvironmentResumed          = "environment_resumed"

	TypeSubagentIdentity     = "subagent_identity"
	TypeSubagentLifecycle    = "subagent_lifecycle"
	TypeSubagentTurn         = "subagent_turn"
	TypeSubagentItem         = "subagent_item"
	TypeSubagentCoordination = "subagent_coordination"
)

// IDRule says what the envelope id must be for a type.
type IDRule int

const (
	IDAbsent   IDRule = iota // must be empty (heartbeat)
	IDUnused                 // carries no meaning; any value is tolerated (device_shutdown)
	IDRequired               // non-empty
	IDUUID                   // canonical lowercase non-nil UUID
	IDBounded                // 1 to CorrelationIDMaxBytes bytes, not blank
	// IDEcho is a result's: 1 to CorrelationIDMaxBytes bytes, blank included, since a request
	// refused for its blank id is answered under that id (invalid_request, facts §4.13, §4.16).
	IDEcho
	IDRunOrPayload // non-empty, or the payload's run_id (prompt_request)
)

// Body says whether a type carries a payload.
type Body int

const (
	BodyRequired Body = iota // absent decodes as zero values, which then fail the required members
	BodyOptional             // may be absent (prompt_cancel, device_shutdown)
	BodyNone                 // must be absent (permission_cancel)
)

// Validator is implemented by every payload type.
type Validator interface{ Validate() error }

// MessageSpec is everything the wire says about one message type.
type MessageSpec struct {
	Type    string
	From    Peer   // the only peer that may send it
	Family  string // the spec's family, for reports
	IDMeans string // what the envelope id is, in words
	ID      IDRule
	Body    Body
	// Strict rejects unknown payload members at any depth: every Core → Runtime request, and
	// tool_call among the Runtime's frames.
	Strict bool
	// MaxPayloadBytes bounds the encoded payload (0: only the 4 MiB frame limit).
	MaxPayloadBytes int
	payload         reflect.Type // nil for BodyNone
}

// PayloadType returns the Go type of the payload (a struct), or nil for a bodyless type.
func (s *MessageSpec) PayloadType() reflect.Type { return s.payload }

// NewPayload returns a pointer to a zero payload, or nil for a bodyless type.
func (s *MessageSpec) NewPayload() Validator {
	if s.payload == nil {
		return nil
	}
	return reflect.New(s.payload).Interface().(Validator)
}

var registry = map[string]*MessageSpec{}
var inventory []*MessageSpec

func register[T any, P interface {
	*T
	Validator
}](typ string, from Peer, family, idMeans string, id IDRule, body Body, strict bool, maxPayload int) {
	spec := &MessageSpec{Type: typ, From: from, Family: family, IDMeans: idMeans, ID: id, Body: body,
		Strict: strict, MaxPayloadBytes: maxPayload, payload: reflect.TypeFor[T]()}
	add(spec)
}

func add(spec *MessageSpec) {
	if _, dup := registry[spec.Type]; dup {
		panic("proto: duplicate message type " + spec.Type)
	}
	registry[spec.Type] = spec
	inventory = append(inventory, spec)
}

const (
	famInit        = "initialization"
	famAdmission   = "execution admission"
	famRequests    = "requests"
	famEvents      = "events"
	famLiveness    = "capabilities and liveness"
	famInteraction = "interactions"
	famInput       = "active input"
	famFunctions   = "functions"
	famWorkspace   = "workspace"
	famSuspension  = "suspension fencing"
	famSubagents   = "sub-agent observations"
)

func init() {
	const strict, lenient = true, false
	register[RuntimePreparePayload](TypeRuntimePrepare, Core, famInit, "transfer ID", IDUUID, BodyRequired, strict, RuntimePrepareMaxFrameBytes)
	register[RuntimePrepareResultPayload](TypeRuntimePrepareResult, Runtime, famInit, "transfer ID", IDUUID, BodyRequired, lenient, 0)
	register[ExecutionPreparePayload](TypeExecutionPrepare, Core, famAdmission, "preparation request ID", IDRequired, BodyRequired, strict, 0)
	register[ExecutionStartPayload](TypeExecutionStart, Core, famAdmission, "preparation request ID", IDRequired, BodyRequired, strict, 0)
	register[ExecutionReleasePayload](TypeExecutionRelease, Core, famAdmission, "preparation request ID", IDRequired, BodyRequired, strict, 0)
	register[PreparationStatusPayload](TypePreparationStatus, Runtime, famAdmission, "preparation request ID", IDRequired, BodyRequired, lenient, 0)
	register[PromptRequestPayload](TypePromptRequest, Core, famRequests, "Run ID", IDRunOrPayload, BodyRequired, strict, 0)
	register[PromptCancelPayload](TypePromptCancel, Core, famRequests, "Run ID", IDRequired, BodyOptional, strict, 0)
	register[DeviceShutdownPayload](TypeDeviceShutdown, Core, famRequests, "unused", IDUnused, BodyOptional, strict, 0)
	register[DeltaPayload](TypeDelta, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[ThinkingPayload](TypeThinking, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[OutputMessagePayload](TypeOutputMessage, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[ToolCallPayload](TypeToolCall, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, strict, 0)
	register[UsagePayload](TypeUsage, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[ErrorPayload](TypeError, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[DonePayload](TypeDone, Runtime, famEvents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[HeartbeatPayload](TypeHeartbeat, Runtime, famLiveness, "absent", IDAbsent, BodyRequired, lenient, 0)
	register[PermissionDecisionPayload](TypePermissionDecision, Core, famInteraction, "interaction ID (request_id)", IDRequired, BodyRequired, strict, 0)
	register[PromptForUserChoiceDecisionPayload](TypePromptForUserChoiceDecision, Core, famInteraction, "interaction ID (ask_id)", IDRequired, BodyRequired, strict, 0)
	register[PermissionRequestPayload](TypePermissionRequest, Runtime, famInteraction, "Run ID", IDRequired, BodyRequired, lenient, 0)
	add(&MessageSpec{Type: TypePermissionCancel, From: Runtime, Family: famInteraction, IDMeans: "interaction ID (request_id)", ID: IDRequired, Body: BodyNone})
	register[PromptForUserChoicePayload](TypePromptForUserChoice, Runtime, famInteraction, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[InteractionDecisionAckPayload](TypeInteractionDecisionAck, Runtime, famInteraction, "ID of the answered request (interaction ID, or Run ID for cancellation and function results)", IDRequired, BodyRequired, lenient, 0)
	register[PromptSteerPayload](TypePromptSteer, Core, famInput, "Run ID", IDRequired, BodyRequired, strict, 0)
	register[PromptSteerAckPayload](TypePromptSteerAck, Runtime, famInput, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[FunctionResultPayload](TypeFunctionResult, Core, famFunctions, "Run ID", IDRequired, BodyRequired, strict, 0)
	register[FunctionCallPayload](TypeFunctionCall, Runtime, famFunctions, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[WorkspaceReadPayload](TypeWorkspaceRead, Core, famWorkspace, "read operation ID", IDBounded, BodyRequired, strict, WorkspaceReadMaxRequestBytes)
	register[WorkspaceReadResultPayload](TypeWorkspaceReadResult, Runtime, famWorkspace, "read operation ID", IDEcho, BodyRequired, lenient, 0)
	register[WorkspaceWritePayload](TypeWorkspaceWrite, Core, famWorkspace, "mutation ID", IDUUID, BodyRequired, strict, WorkspaceWriteMaxFrameBytes)
	register[WorkspaceWriteResultPayload](TypeWorkspaceWriteResult, Runtime, famWorkspace, "mutation ID", IDUUID, BodyRequired, lenient, 0)
	register[WorkspaceExportPayload](TypeWorkspaceExport, Core, famWorkspace, "export operation ID", IDBounded, BodyRequired, strict, WorkspaceReadMaxRequestBytes)
	register[WorkspaceExportResultPayload](TypeWorkspaceExportResult, Runtime, famWorkspace, "export operation ID", IDEcho, BodyRequired, lenient, WorkspaceExportMaxFrameBytes)
	register[EnvironmentSuspendPayload](TypeEnvironmentQuiesce, Core, famSuspension, "suspension request ID", IDBounded, BodyRequired, strict, 0)
	register[EnvironmentSuspendPayload](TypeEnvironmentResume, Core, famSuspension, "suspension request ID", IDBounded, BodyRequired, strict, 0)
	register[EnvironmentSuspendResultPayload](TypeEnvironmentQuiesced, Runtime, famSuspension, "suspension request ID", IDEcho, BodyRequired, lenient, 0)
	register[EnvironmentSuspendResultPayload](TypeEnvironmentResumed, Runtime, famSuspension, "suspension request ID", IDEcho, BodyRequired, lenient, 0)
	register[SubagentIdentityPayload](TypeSubagentIdentity, Runtime, famSubagents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[SubagentLifecyclePayload](TypeSubagentLifecycle, Runtime, famSubagents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[SubagentTurnPayload](TypeSubagentTurn, Runtime, famSubagents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[SubagentItemPayload](TypeSubagentItem, Runtime, famSubagents, "Run ID", IDRequired, BodyRequired, lenient, 0)
	register[SubagentCoordinationPayload](TypeSubagentCoordination, Runtime, famSubagents, "Run ID", IDRequired, BodyRequired, lenient, 0)
}

// Lookup returns the spec of a message type.
func Lookup(typ string) (*MessageSpec, bool) {
	s, ok := registry[typ]
	return s, ok
}

// Specs returns every message spec in inventory order (the spec's table, then sub-agent frames).
func Specs() []*MessageSpec { return append([]*MessageSpec(nil), inventory...) }

// CheckID applies the type's rule for the envelope id. Oversized IDs are never echoed.
func (s *MessageSpec) CheckID(id string) error {
	switch s.ID {
	case IDAbsent:
		if id != "" {
			return &RuleError{Type: s.Type, Path: "id", Rule: "must be absent"}
		}
	case IDRequired:
		if strings.TrimSpace(id) == "" {
			return &RuleError{Type: s.Type, Path: "id", Rule: fmt.Sprintf("must carry the %s", s.IDMeans)}
		}
	case IDUUID:
		if !CanonicalUUID(id) {
			return &RuleError{Type: s.Type, Path: "id", Rule: fmt.Sprintf("must be a canonical lowercase non-nil UUID (the %s)", s.IDMeans)}
		}
	case IDBounded:
		if id == "" || len(id) > CorrelationIDMaxBytes {
			return &RuleError{Type: s.Type, Path: "id", Rule: fmt.Sprintf("must be 1 to %d bytes (the %s)", CorrelationIDMaxBytes, s.IDMeans)}
		}
		if strings.TrimSpace(id) == "" {
			return &RuleError{Type: s.Type, Path: "id", Rule: fmt.Sprintf("must not be blank (the %s)", s.IDMeans)}
		}
	case IDEcho:
		if id == "" || len(id) > CorrelationIDMaxBytes {
			return &RuleError{Type: s.Type, Path: "id", Rule: fmt.Sprintf("must be 1 to %d bytes (the %s)", CorrelationIDMaxBytes, s.IDMeans)}
		}
	case IDRunOrPayload:
		if id != "" && strings.TrimSpace(id) == "" {
			return &RuleError{Type: s.Type, Path: "id", Rule: "must carry the Run ID (or the payload's run_id)"}
		}
	}
	return nil
}

// DecodePayload applies the shape layer: presence, null, JSON types and, for strict types, unknown
// members at any depth. It does not apply the value rules (Validate).
func (s *MessageSpec) DecodePayload(raw json.RawMessage) (Validator, error) {
	if s.MaxPayloadBytes > 0 && len(raw) > s.MaxPayloadBytes {
		return nil, &RuleError{Type: s.Type, Path: "payload", Rule: fmt.Sprintf("must be at most %d bytes", s.MaxPayloadBytes)}
	}
	switch s.Body {
	case BodyNone:
		if len(raw) > 0 && !isNull(raw) && !isEmptyObject(raw) {
			return nil, &RuleError{Type: s.Type, Path: "payload", Rule: "must be absent (this type has no body)"}
		}
		return nil, nil
	}
	if v, ok := decodeBulkPayload(s, raw); ok { // a transfer's chunk: bulk.go
		return v, nil
	}
	v := s.NewPayload()
	if err := decodeShaped(raw, v, s.Strict); err != nil {
		return nil, ofType(s.Type, err)
	}
	return v, nil
}

// Frame is a decoded, validated envelope with its spec and typed payload.
type Frame struct {
	Envelope
	Spec    *MessageSpec
	Payload Validator // nil for a bodyless type
}

// ParseFrame decodes and validates one frame's bytes: envelope, known type, id rule, payload shape
// and payload rules.
func ParseFrame(data []byte) (*Frame, error) {
	if len(data) > MaxFrameBytes {
		return nil, &RuleError{Type: "envelope", Rule: fmt.Sprintf("frame must be at most %d bytes", MaxFrameBytes)}
	}
	env, err := DecodeEnvelope(data)
	if err != nil {
		return nil, err
	}
	return ParseEnvelope(env)
}

// ParseEnvelope validates an already decoded envelope.
func ParseEnvelope(env Envelope) (*Frame, error) {
	spec, ok := Lookup(env.Type)
	if !ok {
		return nil, &RuleError{Type: "envelope", Path: "type", Rule: fmt.Sprintf("unknown message type %q", truncate(env.Type, 64))}
	}
	payload, err := spec.DecodePayload(env.Payload)
	if err != nil {
		return nil, err
	}
	return spec.frame(env, payload)
}

// frame checks the id and the decoded payload's rules.
func (s *MessageSpec) frame(env Envelope, payload Validator) (*Frame, error) {
	id := env.ID
	if s.ID == IDRunOrPayload && id == "" {
		id = payload.(*PromptRequestPayload).RunID
		if strings.TrimSpace(id) == "" {
			return nil, &RuleError{Type: s.Type, Path: "id", Rule: "must carry the Run ID (or the payload's run_id)"}
		}
	} else if err := s.CheckID(id); err != nil {
		return nil, err
	}
	if payload != nil {
		if err := payload.Validate(); err != nil {
			return nil, ofType(s.Type, err)
		}
	}
	return &Frame{Envelope: env, Spec: s, Payload: payload}, nil
}

// RunID returns the Run a frame belongs to, for the types whose id is a Run ID.
func (f *Frame) RunID() string {
	if f.Spec.ID == IDRunOrPayload && f.ID == "" {
		return f.Payload.(*PromptRequestPayload).RunID
	}
	return f.ID
}

// Decode decodes and validates an envelope of a known type into its typed payload.
func Decode[T any](env Envelope) (*T, error) {
	f, err := ParseEnvelope(env)
	if err != nil {
		return nil, err
	}
	p, ok := any(f.Payload).(*T)
	if !ok {
		var zero T
		return nil, &RuleError{Type: env.Type, Rule: fmt.Sprintf("payload is not a %T", zero)}
	}
	return p, nil
}

// isEmptyObject reports whether raw is a JSON object without members, whatever its whitespace.
func isEmptyObject(raw json.RawMessage) bool {
	var members map[string]json.RawMessage
	return json.Unmarshal(raw, &members) == nil && members != nil && len(members) == 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
