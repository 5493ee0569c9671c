//go:build wirecheck_mutants

package mutation

// A Mutant is one single-bug variant of the reference Runtime: the point that turns it on and the
// normative rule (../shared/spec/rules.md) it breaks.
type Mutant struct {
	Point       Point
	Rule        string
	Description string
}

// Runtime is the registry of Runtime mutants the matrix plays. Each was written from its rule's
// text; a mutant no scenario kills stays out of it until a scenario does.
var Runtime = []Mutant{
	{ReadyWithoutRevisionBump, "AD-05", "ready is published at the revision of preparing instead of the next one"},
	{RejectionMovesRevision, "AD-07", "a rejection carries a non-zero revision, as if it changed the handle"},
	{InvalidPrepareUnanswered, "AD-08", "an undecodable execution_prepare gets no rejected invalid_request"},
	{DuplicatePrepareNewHandle, "AD-15", "a repeated prepare request ID allocates a new handle instead of re-publishing"},
	{PrepareConflictRepublishes, "AD-16", "the same request ID with another payload re-publishes instead of request_conflict"},
	{IgnoreAdmissionLimit, "AD-19", "a fifth active admission is granted instead of preparation_capacity"},
	{IdleExecutorNotReused, "AD-06", "a healthy idle Executor of the Session is set up again instead of ready(1, reused)"},
	{StartForeignRequestID, "AD-33", "a start whose id is not the prepare request ID is accepted"},
	{StartExecutorMismatchAccepted, "AD-35", "a start naming another executor_id is accepted instead of unknown_executor"},
	{StartConflictRepublishes, "AD-36", "a different start on a started admission re-publishes instead of start_conflict"},
	{RunConflictIgnored, "AD-39", "a start with a Run ID that is already active is accepted instead of run_conflict"},
	{ExpiryNeverFires, "AD-51", "an admission never expires at its deadline"},
	{StartAfterExpiryAccepted, "AD-38", "a start after the deadline starts the Run instead of expired"},
	{NativeStartFailureUnanswered, "AD-40", "a native start without a Turn is never answered executor_unavailable"},
	{ReleaseAfterStartCancelsRun, "AD-47", "a release after the admission passed to a Run cancels the Run"},
	{ReleaseClosesIdleExecutor, "AD-48", "releasing a ready admission closes the Session's healthy Executor instead of idling it"},
	{InvalidConfigurationAccepted, "AD-09", "a prepare whose configuration breaks a required member (strict_resume false, blank run_id…) is admitted"},
	{NoEnvironmentBindingAccepted, "AD-10", "a prepare with no Environment binding at all is admitted instead of invalid_configuration"},
	{UnknownKindWrongCode, "AD-11", "a kind that is not advertised is rejected unsupported_preparation instead of resource_unavailable"},
	{LocalEnvironmentUnsupportedOK, "AD-13", "a local_environment the kind does not support is admitted instead of unsupported_configuration"},
	{ConfigurationConflictIgnored, "AD-20", "an existing Executor with another configuration fingerprint is admitted instead of configuration_conflict"},
	{BusyExecutorAccepted, "AD-22", "an existing busy Executor is admitted instead of resource_unavailable"},
	{NativeSessionConflictIgnored, "AD-23", "an agent_session_id that is not the retained native ID is admitted instead of native_session_conflict"},
	{HistoryUnavailableIgnored, "AD-24", "require_existing_native_session without a retained native ID is admitted instead of history_unavailable"},
	{InvalidStartUnanswered, "AD-31", "an undecodable execution_start gets no rejected invalid_start"},
	{InvalidReleaseUnanswered, "AD-44", "an execution_release without a handle gets no rejected invalid_release"},
	{UnknownReleaseSilent, "AD-45", "a release of an unknown handle gets no rejected unknown_preparation"},
	{ReleasedWithoutRevisionBump, "AD-46", "released is published at the revision of the state it ends instead of the next one"},
	{StartingWithoutRunID, "AD-04", "the starting status does not carry the run_id"},
	{DropDone, "RS-07", "a Turn's stream never ends with done"},
	{FirstEventsSwapped, "RS-07", "a Turn's first two events go out in the wrong order"},
	{DuplicatePromptRequestRestart, "RS-03", "a duplicate prompt_request for an active Run starts it again"},
	{FailRunWithoutError, "RS-04", "a prompt_request that cannot run gets an empty done without the error frame"},
	{DoneWithoutNativeIdentity, "RS-18", "done.metadata loses the native identity (agent_session_id)"},
	{ErrorClassificationDropped, "EF-08", "an error frame loses the engine failure code the adapter mapped"},
	{EventsAfterCancellation, "CA-04", "a cancelled Turn goes on emitting events after the cancellation interrupted it"},
	{ReceiptBeforeSettlement, "CA-12", "the cancellation receipt is applied:true before native settlement and done"},
	{UnknownRunCancelSilent, "CA-03", "a prompt_cancel with delivery_id for an unknown Run gets no run_inactive receipt"},
	{LegacyCancelGetsReceipt, "CA-02", "a prompt_cancel without delivery_id gets a receipt anyway"},
	{ReceiptWithoutOutcome, "CA-04", "an applied cancellation receipt carries no outcome snapshot"},
	{CancelFailureAsTimeout, "CA-06", "a native cancellation that failed is receipted cancel_timeout instead of cancel_failed"},
	{MissingOutcomeApplied, "CA-08", "a settlement without an outcome snapshot is receipted applied:true with an empty outcome"},
	{CancelTimeoutSilent, "CA-09", "when the confirmation timer expires first no cancel_timeout receipt is sent"},
	{DeviceShutdownIgnored, "DS-02", "device_shutdown cancels no Run"},
	{DeviceShutdownKeepsPreparations, "DS-03", "device_shutdown leaves pending preparations open"},
	{HeartbeatNotFirst, "CN-23", "the first heartbeat waits a whole interval instead of going out when the WebSocket opens"},
	{ReplayAfterReconnect, "CN-40", "after reconnecting, the last Run frame or receipt of the old connection is sent again"},
	{RetryAfterIncompatibleVersion, "CN-16", "a 426 incompatible_version is treated as transient: the daemon dials again"},
	{RetryAfterUnauthorized, "CN-17", "a 401/403 refusal is treated as transient: the daemon dials again"},
	{RetiredCloseRetried, "CN-19", "a 4001 close (runtime retired) is treated as transient: the daemon reconnects"},
	{HeartbeatEmptyKind, "CN-25", "the heartbeat advertises its kinds with an empty kind name"},
	{FunctionToolsWithoutCapability, "FN-04", "function_tools are admitted by a kind without the function_tools capability"},
	{WrittenAsAccepted, "IN-03", "the written receipt of a durable input claims accepted: a completed native write is reported as consumption"},
	{StoredReceiptRewritten, "IN-16", "a repeated input_id with identical content whose receipt is stored is written again instead of getting the stored receipt"},
	{BusyNotReported, "IN-10", "an input arriving while another awaits its receipt is written beside it instead of answered busy"},
	{InFlightAsBusy, "IN-11", "a repeat of the input that awaits its receipt is answered busy instead of in_flight"},
	{InputConflictIgnored, "IN-07", "the same input_id with different content or durable_receipt is taken as a repeat instead of input_conflict"},
	{InputLimitIgnored, "IN-08", "the 257th distinct input is taken (the oldest forgotten) instead of input_limit"},
	{NativeWriteUnbounded, "IN-17", "the native write of an input has no 10 s bound: a write that never completes is never outcome_unknown"},
	{DoneBeforeInputSettles, "IN-19", "done goes out as soon as the Turn settles, without waiting for the input in flight"},
	{InputReceiptAfterReconnect, "IN-15", "an input written but not accepted when the connection dropped is receipted accepted on the next connection"},
	{LenientContractScript, "CH-01", "the contract script is decoded leniently: unknown members are ignored and a default runs"},
}
