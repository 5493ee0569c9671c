package proto

// Finite codes (protocol-facts.md §6). Each code string is one constant; each family's set is a
// CodeSet with a Known… predicate, so a receiver can tell a listed code from an invented one.

// CodeSet is one family's finite set of codes.
type CodeSet map[string]struct{}

func newCodeSet(codes ...string) CodeSet {
	s := make(CodeSet, len(codes))
	for _, c := range codes {
		s[c] = struct{}{}
	}
	return s
}

// Has reports whether code belongs to the set.
func (s CodeSet) Has(code string) bool { _, ok := s[code]; return ok }

// Codes shared by several families.
const (
	CodeInvalidRequest      = "invalid_request"
	CodeResourceUnavailable = "resource_unavailable"
	CodeNotReady            = "not_ready"
	CodeUnsupported         = "unsupported"
	CodeContractViolation   = "contract_violation"
	CodeRunInactive         = "run_inactive"
	CodeCleanupUnconfirmed  = "cleanup_unconfirmed"
)

// Preparation status codes.
const (
	CodeInvalidConfiguration       = "invalid_configuration"
	CodeUnsupportedPreparation     = "unsupported_preparation"
	CodeUnsupportedReadPreparation = "unsupported_read_preparation"
	CodeUnsupportedConfiguration   = "unsupported_configuration"
	CodeRequestConflict            = "request_conflict"
	CodePreparationCapacity        = "preparation_capacity"
	CodeSessionBindingConflict     = "session_binding_conflict"
	CodeConfigurationConflict      = "configuration_conflict"
	CodeExecutorCleanupUnconfirmed = "executor_cleanup_unconfirmed"
	CodeNativeSessionConflict      = "native_session_conflict"
	CodeHistoryUnavailable         = "history_unavailable"
	CodeExecutorCapacity           = "executor_capacity"
	CodePreparationFailed          = "preparation_failed"
	CodeStatusDeliveryFailed       = "status_delivery_failed"
	CodeConnectionClosed           = "connection_closed"
	CodeInvalidStart               = "invalid_start"
	CodeUnknownPreparation         = "unknown_preparation"
	CodeReadOnlyPreparation        = "read_only_preparation"
	CodeUnknownExecutor            = "unknown_executor"
	CodeStartConflict              = "start_conflict"
	CodePreparationNotReady        = "preparation_not_ready"
	CodeRunConflict                = "run_conflict"
	CodeExecutorUnavailable        = "executor_unavailable"
	CodeStartCancelled             = "start_cancelled"
	CodeInvalidRelease             = "invalid_release"
)

// PreparationCodes is every error_code a preparation_status may carry.
var PreparationCodes = newCodeSet(
	CodeInvalidRequest, CodeInvalidConfiguration, CodeResourceUnavailable, CodeUnsupportedPreparation,
	CodeUnsupportedReadPreparation, CodeUnsupportedConfiguration, CodeRequestConflict,
	CodePreparationCapacity, CodeSessionBindingConflict, CodeConfigurationConflict,
	CodeExecutorCleanupUnconfirmed, CodeNativeSessionConflict, CodeHistoryUnavailable,
	CodeExecutorCapacity, CodePreparationFailed, CodeStatusDeliveryFailed, CodeConnectionClosed,
	CodeInvalidStart, CodeUnknownPreparation, CodeReadOnlyPreparation, CodeUnknownExecutor,
	CodeStartConflict, CodePreparationNotReady, CodeRunConflict, CodeExecutorUnavailable,
	CodeStartCancelled, CodeInvalidRelease, CodeCleanupUnconfirmed,
)

// KnownPreparationCode reports whether code is a listed preparation_status error_code.
func KnownPreparationCode(code string) bool { return PreparationCodes.Has(code) }

// runtime_prepare_result codes, by outcome.
const (
	CodeRuntimePreparationCapacity    = "runtime_preparation_capacity"
	CodeRuntimePreparationUnsupported = "runtime_preparation_unsupported"
	CodeRuntimePreparationRejected    = "runtime_preparation_rejected"
	CodeRuntimePreparationFailed      = "runtime_preparation_failed"
	CodeRuntimePreparationUnconfirmed = "runtime_preparation_unconfirmed"
)

var (
	RuntimePrepareRejectedCodes = newCodeSet(CodeInvalidRequest, CodeResourceUnavailable,
		CodeRuntimePreparationCapacity, CodeRuntimePreparationUnsupported, CodeRuntimePreparationRejected)
	RuntimePrepareFailedCodes  = newCodeSet(CodeRuntimePreparationFailed)
	RuntimePrepareUnknownCodes = newCodeSet(CodeRuntimePreparationUnconfirmed)
)

// KnownRuntimePrepareCode reports whether code is listed for a runtime_prepare_result outcome.
func KnownRuntimePrepareCode(outcome, code string) bool {
	switch outcome {
	case OutcomeRejected:
		return RuntimePrepareRejectedCodes.Has(code)
	case OutcomeFailed:
		return RuntimePrepareFailedCodes.Has(code)
	case OutcomeUnknown:
		return RuntimePrepareUnknownCodes.Has(code)
	}
	return false
}

// workspace_write_result codes.
const (
	CodeWriteCapacity    = "write_capacity"
	CodeWriteUnsupported = "write_unsupported"
	CodeWriteRejected    = "write_rejected"
	CodeWriteUnconfirmed = "write_unconfirmed"

	WriteReasonDestinationDirectory = "destination_directory"
	WriteReasonUnsafeDestination    = "unsafe_destination"
)

var (
	WriteRejectedCodes = newCodeSet(CodeInvalidRequest, CodeResourceUnavailable, CodeWriteCapacity,
		CodeWriteUnsupported, CodeWriteRejected)
	WriteUnknownCodes = newCodeSet(CodeWriteUnconfirmed)
	WriteReasons      = newCodeSet(WriteReasonDestinationDirectory, WriteReasonUnsafeDestination)
)

// KnownWriteCode reports whether code is listed for a workspace_write_result outcome.
func KnownWriteCode(outcome, code string) bool {
	switch outcome {
	case OutcomeRejected:
		return WriteRejectedCodes.Has(code)
	case OutcomeUnknown:
		return WriteUnknownCodes.Has(code)
	}
	return false
}

// KnownWriteReason reports whether reason is a listed write_rejected reason. Unknown reasons are
// tolerated on the wire as a generic rejection.
func KnownWriteReason(reason string) bool { return WriteReasons.Has(reason) }

// workspace_read_result codes.
const (
	CodeReadCapacity     = "read_capacity"
	CodeReadUnsupported  = "read_unsupported"
	CodeNotDirectory     = "not_directory"
	CodeNotFound         = "not_found"
	CodePermissionDenied = "permission_denied"
	CodeReadUnconfirmed  = "read_unconfirmed"
)

var (
	ReadRejectedCodes = newCodeSet(CodeInvalidRequest, CodeReadCapacity, CodeResourceUnavailable,
		CodeReadUnsupported, CodeNotDirectory, CodeNotFound, CodePermissionDenied)
	ReadUnknownCodes = newCodeSet(CodeReadUnconfirmed)
)

// KnownReadCode reports whether code is listed for a workspace_read_result outcome.
func KnownReadCode(outcome, code string) bool {
	switch outcome {
	case OutcomeRejected:
		return ReadRejectedCodes.Has(code)
	case OutcomeUnknown:
		return ReadUnknownCodes.Has(code)
	}
	return false
}

// workspace_export_result codes.
const CodeExportFailed = "export_failed"

var (
	ExportRejectedCodes = newCodeSet(CodeResourceUnavailable, CodeReadUnsupported)
	ExportFailedCodes   = newCodeSet(CodeInvalidRequest, CodeExportFailed)
)

// KnownExportCode reports whether code is listed for a workspace_export_result outcome.
func KnownExportCode(outcome, code string) bool {
	switch outcome {
	case OutcomeRejected:
		return ExportRejectedCodes.Has(code)
	case OutcomeFailed:
		return ExportFailedCodes.Has(code)
	}
	return false
}

// Suspension codes.
const (
	CodeResourceBusy = "resource_busy"
	CodeNotSuspended = "not_suspended"
)

var SuspensionCodes = newCodeSet(CodeInvalidRequest, CodeResourceBusy, CodeNotSuspended)

// KnownSuspensionCode reports whether code is a listed environment_quiesced/resumed code.
func KnownSuspensionCode(code string) bool { return SuspensionCodes.Has(code) }

// prompt_steer_ack codes.
const (
	CodeInvalidInput   = "invalid_input"
	CodeInputConflict  = "input_conflict"
	CodeInputLimit     = "input_limit"
	CodeBusy           = "busy"
	CodeInFlight       = "in_flight"
	CodeRejected       = "rejected"
	CodeOutcomeUnknown = "outcome_unknown"
)

var SteerCodes = newCodeSet(CodeInvalidInput, CodeRunInactive, CodeInputConflict, CodeInputLimit,
	CodeNotReady, CodeBusy, CodeInFlight, CodeUnsupported, CodeContractViolation, CodeRejected,
	CodeOutcomeUnknown)

// KnownSteerCode reports whether code is a listed prompt_steer_ack code.
func KnownSteerCode(code string) bool { return SteerCodes.Has(code) }

// RetryableSteerCode reports whether Core may resend the input later (before `written`).
func RetryableSteerCode(code string) bool { return code == CodeNotReady || code == CodeBusy }

// interaction_decision_ack codes, per family.
const (
	CodeNotPending       = "not_pending"
	CodeRuntimeError     = "runtime_error"
	CodeDecisionConflict = "decision_conflict"
	CodeInvalidResult    = "invalid_result"

	CodeCancelFailed             = "cancel_failed"
	CodeCancelOutputUnavailable  = "cancel_output_unavailable"
	CodeCancelOutcomeUnavailable = "cancel_outcome_unavailable"
	CodeCancelTimeout            = "cancel_timeout"
)

var (
	DecisionAckCodes = newCodeSet(CodeNotPending, CodeNotReady, CodeUnsupported, CodeContractViolation,
		CodeRuntimeError, CodeDecisionConflict)
	FunctionResultAckCodes = newCodeSet(CodeInvalidResult, CodeNotReady, CodeUnsupported,
		CodeContractViolation, CodeNotPending, CodeRuntimeError, CodeDecisionConflict)
	CancellationAckCodes = newCodeSet(CodeRunInactive, CodeCancelFailed, CodeCancelOutputUnavailable,
		CodeCancelOutcomeUnavailable, CodeCancelTimeout)
)

// KnownDecisionAckCode reports whether code is listed for a permission or user-choice decision ack.
func KnownDecisionAckCode(code string) bool { return DecisionAckCodes.Has(code) }

// KnownFunctionResultAckCode reports whether code is listed for a function-result ack.
func KnownFunctionResultAckCode(code string) bool { return FunctionResultAckCodes.Has(code) }

// KnownCancellationAckCode reports whether code is listed for a cancellation receipt.
func KnownCancellationAckCode(code string) bool { return CancellationAckCodes.Has(code) }

// KnownAckCode reports whether code is listed for any interaction_decision_ack family; the frame
// alone does not say which family it answers.
func KnownAckCode(code string) bool {
	return DecisionAckCodes.Has(code) || FunctionResultAckCodes.Has(code) || CancellationAckCodes.Has(code)
}

// Engine failure codes of an `error` frame (§6.1).
const (
	EngineAuthenticationError   = "authentication_error"
	EngineRateLimitExceeded     = "rate_limit_exceeded"
	EngineUsageLimitExceeded    = "usage_limit_exceeded"
	EngineServerOverloaded      = "server_overloaded"
	EngineServerError           = "server_error"
	EngineInvalidRequest        = "invalid_request"
	EngineResourceNotFound      = "resource_not_found"
	EngineRequestTimeout        = "request_timeout"
	EngineContextLengthExceeded = "context_length_exceeded"
	EngineCyberPolicy           = "cyber_policy"
	EngineConnectionFailed      = "connection_failed"
)

var EngineCodes = newCodeSet(EngineAuthenticationError, EngineRateLimitExceeded,
	EngineUsageLimitExceeded, EngineServerOverloaded, EngineServerError, EngineInvalidRequest,
	EngineResourceNotFound, EngineRequestTimeout, EngineContextLengthExceeded, EngineCyberPolicy,
	EngineConnectionFailed)

// KnownEngineCode reports whether code is an accepted engine failure classification.
func KnownEngineCode(code string) bool { return EngineCodes.Has(code) }

// Core-side Turn outcome reasons (§6.2).
const (
	ReasonDeliveryUnknown           = "delivery_unknown"
	ReasonEventStreamIncomplete     = "event_stream_incomplete"
	ReasonDeviceDisconnected        = "device_disconnected"
	ReasonEventPersistenceFailed    = "event_persistence_failed"
	ReasonPreparationInterrupted    = "preparation_interrupted"
	ReasonPreparationStartFailed    = "preparation_start_failed"
	ReasonExecutorRecoveryFailed    = "executor_recovery_failed"
	ReasonEngineFailed              = "engine_failed"
	ReasonInvalidExecutorResult     = "invalid_executor_result"
	ReasonCancelUnconfirmed         = "cancel_unconfirmed"
	ReasonCancelOutcomeUnavailable  = "cancel_outcome_unavailable"
	ReasonInputOutcomeUnknown       = "input_outcome_unknown"
	ReasonInvalidInput              = "invalid_input"
	ReasonMessageInputUnsupported   = "message_input_unsupported"
	ReasonFunctionCallInvalid       = "function_call_invalid"
	ReasonFunctionResultInvalid     = "function_result_invalid"
	ReasonFunctionResultUnconfirmed = "function_result_unconfirmed"
	ReasonInteractionNotSupported   = "interaction_not_supported"
	ReasonExecutionInterrupted      = "execution_interrupted"
	ReasonExecutionStateUnavailable = "execution_state_unavailable"
	ReasonExecutionStateChanged     = "execution_state_changed"
	ReasonCleanupUnconfirmed        = "cleanup_unconfirmed"
	// ReasonInputPrefix prefixes a non-retryable steer code: input_rejected, input_unsupported, ….
	ReasonInputPrefix = "input_"
)

var TurnReasons = newCodeSet(ReasonDeliveryUnknown, ReasonEventStreamIncomplete,
	ReasonDeviceDisconnected, ReasonEventPersistenceFailed, ReasonPreparationInterrupted,
	ReasonPreparationStartFailed, ReasonExecutorRecoveryFailed, ReasonEngineFailed,
	ReasonInvalidExecutorResult, ReasonCancelUnconfirmed, ReasonCancelOutcomeUnavailable,
	ReasonInputOutcomeUnknown, ReasonInvalidInput, ReasonMessageInputUnsupported,
	ReasonFunctionCallInvalid, ReasonFunctionResultInvalid, ReasonFunctionResultUnconfirmed,
	ReasonInteractionNotSupported, ReasonExecutionInterrupted, ReasonExecutionStateUnavailable,
	ReasonExecutionStateChanged, ReasonCleanupUnconfirmed)

// KnownTurnReason reports whether reason is a listed Turn outcome reason, including input_<code>
// for a non-retryable steer code.
func KnownTurnReason(reason string) bool {
	if TurnReasons.Has(reason) {
		return true
	}
	if len(reason) > len(ReasonInputPrefix) && reason[:len(ReasonInputPrefix)] == ReasonInputPrefix {
		code := reason[len(ReasonInputPrefix):]
		return SteerCodes.Has(code) && !RetryableSteerCode(code)
	}
	return false
}

// Turn statuses.
const (
	TurnCompleted = "completed"
	TurnFailed    = "failed"
	TurnCancelled = "cancelled"
)

// KnownTurnStatus reports whether s is a public Turn status.
func KnownTurnStatus(s string) bool {
	return s == TurnCompleted || s == TurnFailed || s == TurnCancelled
}
