//go:build wirecheck_mutants

package mutation

// corePJ are the Core mutants of the PJ family written from its clauses
// (scenarios/rules/clauses/PJ.tsv), each before the scenario that kills it; their points are in
// points_pj.go.
var corePJ = []Mutant{
	{PJCoreCloseDeviceDisconnected, "PJ-02.2", "a Run stream lost because Core itself closed the connection (a frame over 4 MiB, the liveness timeout, a failed write) is recorded device_disconnected instead of event_stream_incomplete"},
	{PJReplacedDeviceDisconnected, "PJ-02.3", "a Run stream lost because a newer connection of the device replaced the one carrying it is recorded device_disconnected instead of event_stream_incomplete"},
	{PJFailedPreparationInterrupted, "PJ-06.1", "a preparation that ends failed before the start is recorded preparation_interrupted instead of preparation_start_failed"},
	{PJRejectionRetried, "PJ-06.2", "a definite execution_prepare rejection other than preparation_capacity leaves the Turn queued for a retry, as capacity does, instead of preparation_start_failed"},
	{PJStartRejectionRecovered, "PJ-06.3", "an execution_start rejected with a code other than executor_unavailable gets the single recovery (a new preparation) instead of preparation_start_failed"},
	{PJStartFailureLeftToRun, "PJ-06.4", "a preparation that ends failed after execution_start (e.g. start_cancelled) is left to the Run stream: the Turn does not fail preparation_start_failed"},
	{PJRecoveryFailureAsStartFailed, "PJ-07.1", "the single recovery's execution_start rejected executor_unavailable again fails the Turn preparation_start_failed instead of executor_recovery_failed"},
	{PJEngineErrorTextLost, "PJ-08.2", "an engine_failed Turn records a generic error instead of the error frame's text"},
	{PJUnclassifiedErrorCompletes, "PJ-08.3", "an unclassified error frame followed by done completes the Turn: only a classified one makes engine_failed"},
	{PJInvalidErrorIgnored, "PJ-09.1", "an error frame that does not decode is ignored instead of failing the Turn invalid_executor_result"},
	{PJInvalidUsageIgnored, "PJ-09.2", "a usage frame that does not decode is ignored instead of failing the Turn invalid_executor_result"},
	{PJInvalidSteerAckIgnored, "PJ-09.4", "a prompt_steer_ack that does not decode is ignored instead of failing the Turn invalid_executor_result"},
	{PJResultAckBoundHalved, "PJ-11.4", "a function_result's ack is awaited 7.5 s instead of 15 s: function_result_unconfirmed is recorded before 15 s have passed"},
	{PJUserChoiceWaits, "PJ-12.2", "a prompt_for_user_choice on a Turn admitted without permissions waits for an answer instead of interaction_not_supported"},
	{PJUnsupportedPermissionDenied, "PJ-12.3", "a permission_request recorded interaction_not_supported is denied with a permission_decision before the Turn fails"},
	{PJReleaseRefusalConfirms, "PJ-14.3", "a release answered rejected, or an admission ending expired or failed with a code other than cleanup_unconfirmed, is taken as the confirmed cleanup"},
	{PJReleasedUnconfirmed, "PJ-14.6", "released for the handle is not taken as the cleanup's confirmation: cleanup_unconfirmed is recorded"},
	{PJEmptyDoneFails, "PJ-15.2", "a stream closed by done with no error frame but no content ends the Turn failed invalid_executor_result instead of completed"},
}
