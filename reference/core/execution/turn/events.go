package turn

import (
	"encoding/json"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Event is something that happened to a Turn.
type Event interface {
	Kind() Kind
}

// Kind names an event as the transition table keys it.
type Kind string

// Event kinds. Statuses, timers and failures carry their variant in the kind, so the table says
// exactly which of them a phase accepts.
const (
	KindClaim         Kind = "claim"
	KindDeviceChecked Kind = "device-checked"
	KindPrepareID     Kind = "prepare-id"

	KindPreparing       Kind = "status:" + proto.StatePreparing
	KindReady           Kind = "status:" + proto.StateReady
	KindStarting        Kind = "status:" + proto.StateStarting
	KindStarted         Kind = "status:" + proto.StateStarted
	KindFailed          Kind = "status:" + proto.StateFailed
	KindExpired         Kind = "status:" + proto.StateExpired
	KindReleased        Kind = "status:" + proto.StateReleased
	KindPrepareRejected Kind = "rejected:" + proto.OperationPrepare
	KindStartRejected   Kind = "rejected:" + proto.OperationStart
	KindReleaseRejected Kind = "rejected:" + proto.OperationRelease

	KindPreparationClosed Kind = "preparation-closed"

	KindDelta         Kind = proto.TypeDelta
	KindOutputMessage Kind = proto.TypeOutputMessage
	KindUsage         Kind = proto.TypeUsage
	KindError         Kind = proto.TypeError
	KindDone          Kind = proto.TypeDone
	KindInteraction   Kind = "interaction-request"
	KindUndecodable   Kind = "undecodable"
	KindOtherFrame    Kind = "other-frame"
	KindSubagent      Kind = "subagent"
	KindRunClosed     Kind = "run-closed"

	KindCancel            Kind = "cancel"
	KindReceipt           Kind = "receipt"
	KindReceiptWaitClosed Kind = "receipt-wait-closed"

	KindRetryTimer  Kind = "timer:retry"
	KindCancelTimer Kind = "timer:cancel-confirmation"

	KindInput             Kind = "input"
	KindSteerAck          Kind = proto.TypePromptSteerAck
	KindInputWrittenTimer Kind = "timer:input-written"
	KindInputResendTimer  Kind = "timer:input-resend"
	KindSteerSendFailed   Kind = "send-failed:" + proto.TypePromptSteer

	KindPermissionCancel      Kind = proto.TypePermissionCancel
	KindAnswer                Kind = "answer"
	KindDecisionAck           Kind = "decision-ack"
	KindDecisionWaitClosed    Kind = "decision-wait-closed"
	KindDecisionAckTimer      Kind = "timer:decision-ack"
	KindPermissionSendFailed  Kind = "send-failed:" + proto.TypePermissionDecision
	KindUserChoiceSendFailed  Kind = "send-failed:" + proto.TypePromptForUserChoiceDecision
	KindFunctionSendFailed    Kind = "send-failed:" + proto.TypeFunctionResult
	KindDecisionSubscribeFail Kind = "subscribe-failed:decision"

	KindPrepareSendFailed          Kind = "send-failed:" + proto.TypeExecutionPrepare
	KindStartSendFailed            Kind = "send-failed:" + proto.TypeExecutionStart
	KindCancelSendFailed           Kind = "send-failed:" + proto.TypePromptCancel
	KindPreparationSubscribeFailed Kind = "subscribe-failed:preparation"
	KindRunSubscribeFailed         Kind = "subscribe-failed:run"
	KindReceiptSubscribeFailed     Kind = "subscribe-failed:receipt"
	KindPersistFailed              Kind = "persist-failed"
	KindRestart                    Kind = "restart"
)

// Claim: the runner picks the queued Turn up.
type Claim struct{}

// DeviceChecked answers CheckDevice: whether the device has a live connection, its capability
// snapshot (Known is false before a valid heartbeat), and a fresh preparation request ID.
type DeviceChecked struct {
	Online    bool
	Heartbeat *proto.HeartbeatPayload
	Known     bool
	PrepareID string
	// Unprepared: the connection's Environment preparation (runtime_prepare) has not completed,
	// and work is admitted on a connection only after it has; Preparation says where it stands.
	Unprepared  bool
	Preparation string
}

// PrepareIDIssued answers NewPrepareID.
type PrepareIDIssued struct{ ID string }

// Status is a preparation_status that passed the subscription's revision rules.
type Status struct {
	State      string
	Operation  string // on rejected: the request it answers
	Handle     string
	ExecutorID string
	ErrorCode  string
}

// PreparationClosed: the preparation status subscription ended; Err is nil after a terminal
// status, an observation error (disconnect, replacement, overflow) otherwise.
type PreparationClosed struct{ Err error }

// Delta is a text fragment of the Run.
type Delta struct{ Text string }

// OutputMessage is an output_message observation.
type OutputMessage struct {
	Status string
	Text   *string
}

// Usage is a cumulative usage snapshot: it replaces the previous one.
type Usage struct{ Usage proto.Usage }

// EngineError is an execution error frame; done follows it.
type EngineError struct{ Error proto.ErrorPayload }

// Done closes the Run's event stream.
type Done struct {
	Done *proto.DonePayload
	// AfterShutdown: a device_shutdown mutant marked the device (gateway.ShutdownSent).
	AfterShutdown bool
}

// InteractionRequest is a permission_request, prompt_for_user_choice or function_call of the Run:
// ID is its interaction ID (request_id, ask_id) or call_id, Payload the request as received.
type InteractionRequest struct {
	Type    string
	ID      string
	Payload json.RawMessage
}

// InteractionKind is the store's kind of the request.
func (r InteractionRequest) InteractionKind() string {
	switch r.Type {
	case proto.TypePermissionRequest:
		return store.InteractionPermission
	case proto.TypePromptForUserChoice:
		return store.InteractionUserChoice
	default:
		return store.InteractionFunction
	}
}

// PermissionCancel: the Runtime withdrew a permission request (id = request_id).
type PermissionCancel struct{ RequestID string }

// Answer: the API answers an interaction under the caller's idempotency key. Answer is the
// decision's payload without delivery_id (and, for a function, without call_id).
type Answer struct {
	ID     string
	Key    string
	Answer json.RawMessage
}

// DecisionAck is the interaction_decision_ack routed to the delivery ID of a decision.
type DecisionAck struct {
	Ack *proto.InteractionDecisionAckPayload
}

// DecisionWaitClosed: the decision's receipt waiter ended without an ack.
type DecisionWaitClosed struct{ Err error }

// Undecodable is a Run frame whose envelope routed but whose payload did not validate.
type Undecodable struct {
	Type string
	Err  error
}

// OtherFrame is any other Run frame (thinking, tool_call, function_call, ...): observed, folded
// into nothing.
type OtherFrame struct{ Type string }

// RunClosed: the Run subscription ended; Err is nil after done, an observation error otherwise.
type RunClosed struct {
	Err error
	// Cause is who ended the connection the stream was lost with (ClosedBy…), worked out only for
	// the stream-loss mutants; "" otherwise.
	Cause string
	// AfterShutdown: a device_shutdown mutant marked the device (gateway.ShutdownSent).
	AfterShutdown bool
}

// CancelRequested: the API asked to cancel the Turn.
type CancelRequested struct{}

// Receipt is the cancellation's interaction_decision_ack.
type Receipt struct {
	Ack *proto.InteractionDecisionAckPayload
}

// ReceiptWaitClosed: the receipt waiter ended without a receipt.
type ReceiptWaitClosed struct{ Err error }

// InputRequested: the API delivers an active input to the Turn under the caller's idempotency
// key.
type InputRequested struct {
	Key   string
	Input proto.MessageInput
}

// SteerAck is a prompt_steer_ack on the Run.
type SteerAck struct{ Ack *proto.PromptSteerAckPayload }

// TimerFired: an armed timer fired.
type TimerFired struct{ Timer Timer }

// SendFailed: a frame could not be confirmed as queued; Committed is the phase of the durable
// record.
type SendFailed struct {
	Type, ID  string
	Err       error
	Committed string
}

// Stream names a subscription.
type Stream string

// Subscriptions a Turn holds.
const (
	StreamPreparation Stream = "preparation"
	StreamRun         Stream = "run"
	StreamReceipt     Stream = "receipt"
	StreamDecision    Stream = "decision" // the ack of the decision sent last
)

// SubscribeFailed: a subscription could not be made.
type SubscribeFailed struct {
	Stream    Stream
	ID        string
	Err       error
	Committed string
}

// PersistFailed: the store refused a write (a commit, a journal event, a received frame).
type PersistFailed struct {
	Err       error
	Committed string
}

// Restarted: Core restarted and found the Turn in flight.
type Restarted struct{}

func (Claim) Kind() Kind              { return KindClaim }
func (DeviceChecked) Kind() Kind      { return KindDeviceChecked }
func (PrepareIDIssued) Kind() Kind    { return KindPrepareID }
func (PreparationClosed) Kind() Kind  { return KindPreparationClosed }
func (Delta) Kind() Kind              { return KindDelta }
func (OutputMessage) Kind() Kind      { return KindOutputMessage }
func (Usage) Kind() Kind              { return KindUsage }
func (EngineError) Kind() Kind        { return KindError }
func (Done) Kind() Kind               { return KindDone }
func (InteractionRequest) Kind() Kind { return KindInteraction }
func (Undecodable) Kind() Kind        { return KindUndecodable }
func (OtherFrame) Kind() Kind         { return KindOtherFrame }
func (Subagent) Kind() Kind           { return KindSubagent }
func (RunClosed) Kind() Kind          { return KindRunClosed }
func (CancelRequested) Kind() Kind    { return KindCancel }
func (Receipt) Kind() Kind            { return KindReceipt }
func (ReceiptWaitClosed) Kind() Kind  { return KindReceiptWaitClosed }
func (PersistFailed) Kind() Kind      { return KindPersistFailed }
func (Restarted) Kind() Kind          { return KindRestart }
func (InputRequested) Kind() Kind     { return KindInput }
func (SteerAck) Kind() Kind           { return KindSteerAck }
func (PermissionCancel) Kind() Kind   { return KindPermissionCancel }
func (Answer) Kind() Kind             { return KindAnswer }
func (DecisionAck) Kind() Kind        { return KindDecisionAck }
func (DecisionWaitClosed) Kind() Kind { return KindDecisionWaitClosed }

func (e Status) Kind() Kind {
	if e.State == proto.StateRejected {
		return Kind("rejected:" + e.Operation)
	}
	return Kind("status:" + e.State)
}

func (e TimerFired) Kind() Kind      { return Kind("timer:" + e.Timer.String()) }
func (e SendFailed) Kind() Kind      { return Kind("send-failed:" + e.Type) }
func (e SubscribeFailed) Kind() Kind { return Kind("subscribe-failed:" + string(e.Stream)) }

// Kinds lists every event kind the table knows of.
func Kinds() []Kind {
	return []Kind{KindClaim, KindDeviceChecked, KindPrepareID,
		KindPreparing, KindReady, KindStarting, KindStarted, KindFailed, KindExpired, KindReleased,
		KindPrepareRejected, KindStartRejected, KindReleaseRejected, KindPreparationClosed,
		KindDelta, KindOutputMessage, KindUsage, KindError, KindDone, KindInteraction, KindUndecodable,
		KindOtherFrame, KindSubagent, KindRunClosed,
		KindCancel, KindReceipt, KindReceiptWaitClosed, KindRetryTimer, KindCancelTimer,
		KindPrepareSendFailed, KindStartSendFailed, KindCancelSendFailed,
		KindPreparationSubscribeFailed, KindRunSubscribeFailed, KindReceiptSubscribeFailed,
		KindPersistFailed, KindRestart,
		KindInput, KindSteerAck, KindInputWrittenTimer, KindInputResendTimer, KindSteerSendFailed,
		KindPermissionCancel, KindAnswer, KindDecisionAck, KindDecisionWaitClosed, KindDecisionAckTimer,
		KindPermissionSendFailed, KindUserChoiceSendFailed, KindFunctionSendFailed, KindDecisionSubscribeFail}
}
