//go:build wirecheck_mutants

package mutation

// A Mutant is one single-bug variant of the reference Core: the point that turns it on and the
// rule (scenarios/rules/rules.tsv) it breaks.
type Mutant struct {
	Point       Point
	Rule        string
	Description string
}

// Core is the registry of Core mutants the matrix plays. Each was written from its rule's text; a
// mutant no scenario kills stays out of it until a scenario does.
var Core = []Mutant{
	{IncompatibleVersionAccepted, "CN-14", "an upgrade whose version is not byte for byte proto.Version is accepted instead of 426"},
	{VersionAfterAuthentication, "CN-15", "the upgrade is authenticated before its version is checked: a refused credential answers 401 where the version makes it 426"},
	{BootstrapAnyMethod, "CN-12", "a bootstrap that is not a POST is judged as one instead of refused 405 method_not_allowed"},
	{BadJSONAsMissingDevice, "CN-07", "a bootstrap body that is not JSON is refused 400 missing_device_id instead of bad_json"},
	{BlankDeviceIDAuthenticated, "CN-06", "a bootstrap with a blank device_id goes on to authentication instead of 400 missing_device_id"},
	{BootstrapAnswerWithoutWorkspace, "CN-01", "the bootstrap answer leaves workspace_id empty"},
	{CredentialInURLAccepted, "CN-03", "a credential in the upgrade's query is ignored and the connection accepted"},
	{UnknownDeviceAsBadCredential, "CN-09", "an unknown device is answered 401 bad_credential instead of unknown_device"},
	{LivenessNeverFires, "CN-30", "a connection silent for 60 s is never closed"},
	{InvalidHeartbeatKeepsOpen, "CN-29", "an invalid heartbeat clears the snapshot but leaves the transport open"},
	{ReplacedConnectionKept, "CN-35", "a newer connection for the device leaves the previous one open"},
	{RunRoutesInherited, "CN-35", "a newer connection inherits the Run routes of the one it replaced"},
	{StaleRevisionDelivered, "AD-54", "a preparation_status with a revision not above the last delivered is delivered"},
	{CapacityRejectionFinal, "AD-56", "a definite preparation_capacity rejection fails the Turn instead of leaving it unclaimed"},
	{ExecutorUnavailableNotRecovered, "AD-43", "executor_unavailable fails the Turn without the single recovery"},
	{RecoveryRepeated, "AD-43", "a second executor_unavailable is recovered again instead of executor_recovery_failed"},
	{StreamLossCompletes, "PJ-02", "a Run stream lost without done completes the Turn (a fabricated done)"},
	{StreamLossDeviceDisconnected, "PJ-02", "a Run stream lost without done is recorded device_disconnected instead of event_stream_incomplete"},
	{EngineErrorCompletes, "PJ-08", "a done after an error frame completes the Turn instead of engine_failed"},
	{EngineCodeDropped, "EF-05", "an engine_failed outcome loses engine_error_code and engine_http_status"},
	{PreparationLossIncomplete, "PJ-05", "a status stream lost before started is recorded event_stream_incomplete instead of preparation_interrupted"},
	{InvalidDoneIgnored, "PJ-09", "an undecodable done is ignored instead of invalid_executor_result"},
	{CancelTimeoutCancels, "CA-15", "no receipt within 15 s cancels the Turn instead of cancel_unconfirmed"},
	{CancelResentOnTimeout, "CA-15", "no receipt within 15 s sends prompt_cancel again"},
	{ReceiptWithoutOutcomeCancels, "CA-16", "an applied receipt without an outcome snapshot cancels the Turn instead of cancel_outcome_unavailable"},
	{ReceiptNotAppliedCancels, "CA-17", "a receipt that was not applied cancels the Turn instead of cancel_unconfirmed"},
	{RunInactiveAfterDoneUnconfirmed, "CA-17", "run_inactive after done is cancel_unconfirmed instead of the stream's outcome"},
	{DoneOverridesReceipt, "CA-18", "a done while cancelling decides the outcome before the receipt"},
	{CancelBeforeStartNoRelease, "CA-20", "a cancellation before start abandons the admission without execution_release"},
	{StartResentAfterReconnect, "CN-40", "after the daemon reconnects, the execution_start sent on its previous connection is sent again"},
	{CancelResentAfterReconnect, "CA-15", "after the daemon reconnects, the prompt_cancel sent on its previous connection is sent again"},
	{StartRejectionCodeDropped, "PJ-06", "a rejected execution_start is recorded preparation_start_failed without the preparation error code"},
	{UsageAdded, "RS-14", "a usage snapshot is added to the previous one instead of replacing it"},
	{MissingParamsAsMissingBearer, "CN-05", "an upgrade without Authorization is answered 401 missing_bearer instead of 400 missing_params"},
	{UndeclaredCapabilityAdmitted, "CN-50", "the final admission check before a claim admits a Turn whose capabilities the latest heartbeat no longer declares"},
	{InputNotSerialized, "IN-20", "a second input is sent while the first still awaits its receipt"},
	{DurableReceiptOmitted, "IN-20", "active input is delivered without durable_receipt: true"},
	{InputWrittenUnbounded, "IN-21", "no written within 30 s of delivery never fails the Turn (the bound never fires)"},
	{WrittenAdvancesCursor, "IN-22", "written advances the input cursor: the next input goes out before accepted"},
	{PendingInputCompletes, "IN-22", "a Turn whose input was written but not accepted completes at done instead of input_outcome_unknown"},
	{NotReadyFinal, "IN-23", "not_ready or busy before written fails the Turn instead of a later resend"},
	{RetryResentAtOnce, "IN-23", "not_ready or busy before written resends the input at once instead of later"},
	{InFlightFails, "IN-23", "in_flight fails the Turn instead of waiting on"},
	{RejectionAfterCancelFails, "IN-23", "a rejected input fails the Turn with input_<code> although cancellation was already sent"},
	{UpdatedInputDropped, "IA-03", "an approval's updated_input is left out of the permission_decision Core sends"},
	{AckRoutedByInteraction, "CA-14", "an interaction_decision_ack whose delivery_id no decision awaits settles the decision awaiting one anyway"},
	{DecisionAckUnbounded, "IA-14", "a decision's ack is awaited forever instead of at most 15 s"},
	{DecisionResentOnTimeout, "IA-14", "a decision without an ack within 15 s is sent again (a fresh delivery_id) instead of left unknown"},
	{PermissionCancelIgnored, "IA-04", "permission_cancel does not detach the request: a decision sent for it keeps waiting for its ack"},
	{FunctionResultByCallID, "FN-06", "function_result is sent with id = call_id instead of the Run ID"},
	{InvalidRequestFailsTurn, "IA-02", "a permission_request without request_id fails the Turn instead of being dropped"},
	{DecisionResentAfterReconnect, "CN-40", "after the daemon reconnects, the permission_decision sent on its previous connection is sent again"},
	{ExplicitNonAnswerDropped, "IA-17", "a user-choice answer of [] (an explicit non-answer) is left out of the decision, as if the question were unanswered"},
	{WorkspaceWriteUnbounded, "WS-25", "a workspace write without its completed is awaited forever instead of at most 195 s"},
	{WriteNotExclusive, "WS-25", "a second workspace write is taken while one is in progress on the same connection"},
	{DisconnectRejectsWrite, "WS-25", "a write whose receipt a transport error or disconnect cut off is recorded as rejected instead of unknown"},
	{WriteReceiptUnchecked, "WS-17", "a write receipt is taken without checking its outcome against the step and its offset against the bytes sent"},
	{ReadResultUnchecked, "WS-05", "a byte read's result is accepted without checking len(data) ≤ max_bytes (and a listing's entries ≤ max_entries)"},
	{ExportOffsetUnchecked, "WS-28", "an export chunk (or completed) is accepted at any offset, not only at the bytes already delivered"},
	{ExportNotCancelled, "WS-31", "an export Core stops before completed (invalid result, 180 s bound) is abandoned without cancel"},
	{ReadAfterReadUnconfirmed, "WS-13", "after read_unconfirmed Core still sends further reads to the same owner"},
	{ExportNotExclusive, "WS-31", "a second workspace export is taken while one is in progress on the same connection"},
	{UnknownWriteUngated, "WS-25", "after a write with an unknown outcome the Session takes the next write: the caller loses the unknown-outcome gate"},
}
