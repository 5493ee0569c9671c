//go:build wirecheck_mutants

package mutation

// runtimeFN are the Runtime mutants of the FN family written from its clauses
// (scenarios/rules/clauses/FN.tsv), each before the scenario that kills it; their points are in
// points_fn.go.
var runtimeFN = []Mutant{
	{FNToolNameUnchecked, "FN-01.1", "an execution_prepare whose function tool has an absent or blank name is admitted (the tool named for the Harness) instead of rejected invalid_request"},
	{FNToolDescriptionOptional, "FN-01.2", "an execution_prepare whose function tool has no description is admitted (an empty one assumed) instead of rejected invalid_request"},
	{FNToolParametersUnchecked, "FN-01.3", "an execution_prepare whose function tool's parameters are absent or not a JSON object is admitted (an empty schema assumed) instead of rejected invalid_request"},
	{FNDeferLoadingLoose, "FN-01.4", "an execution_prepare whose function tool's defer_loading is not a boolean (\"true\", 1) is admitted, read loosely, instead of rejected invalid_request"},
	{FNToolSearchAloneIgnored, "FN-02.1", "an execution_prepare with tool_search true and no deferred tool is admitted with tool_search dropped instead of rejected invalid_request"},
	{FNDeferredImpliesSearch, "FN-02.2", "an execution_prepare with a deferred tool and no tool_search is admitted as if tool_search were true instead of rejected invalid_request"},
	{FNToolSearchPromptUngated, "FN-03.2", "a prompt_request with tool_search and a deferred tool on a kind without tool_search runs instead of an error and an empty done (execution_prepare still refuses it)"},
	{FNToolsPromptUngated, "FN-04.2", "a prompt_request with function_tools on a kind without function_tools runs instead of an error and an empty done (execution_prepare still refuses it)"},
	{FNCallUnderCallID, "FN-05.1", "function_call goes out under envelope id = its call_id instead of the Run ID"},
	{FNCallWithoutCallID, "FN-05.2", "function_call goes out with an empty call_id"},
	{FNCallWithoutName, "FN-05.3", "function_call goes out with an empty name"},
	{FNCallWithoutArguments, "FN-05.4", "function_call goes out without its arguments member"},
	{FNResultRoutedByCallID, "FN-06.1", "a function_result is routed by its call_id alone: one sent under id = the call_id is applied to the Run that emitted the call"},
	{FNResultSuccessOptional, "FN-06.4", "a function_result without success is applied as success false instead of answered invalid_result"},
	{FNUnaddressedResultAcked, "FN-07.1", "a function_result without delivery_id is acknowledged (invalid_result, empty delivery_id) instead of dropped"},
	{FNResultWithoutCallIDAcked, "FN-07.2", "a function_result without call_id is acknowledged invalid_result instead of dropped"},
	{FNResultWithoutRunIDAcked, "FN-07.3", "a function_result without envelope id is acknowledged invalid_result (under no id) instead of dropped"},
	{FNDroppedResultWithdrawsCall, "FN-07.4", "a function_result dropped for its missing delivery_id withdraws the call it names: a later valid result is not_pending"},
	{FNAckUnderCallID, "FN-08.1", "the ack of a function_result goes under envelope id = the call_id instead of the Run ID"},
	{FNNullContentApplied, "FN-08.2", "a function_result whose content is null is applied as empty content instead of answered invalid_result"},
	{FNAbsentContentApplied, "FN-08.3", "a function_result without content is applied as empty content instead of answered invalid_result"},
	{FNBadPartSkipped, "FN-08.4", "a function_result with a content part that is not a valid InputContent is applied without that part instead of answered invalid_result"},
	{FNInvalidResultWithdrawsCall, "FN-08.5", "a function_result answered invalid_result for its content withdraws the call: a later valid result is not_pending"},
	{FNNotReadyAsRuntimeError, "FN-09.1", "a function_result before the native session is published is answered runtime_error instead of not_ready"},
	{FNNotReadyWithdrawsCall, "FN-09.2", "a function_result answered not_ready withdraws the call: the later attempt is not_pending"},
	{FNUndeclaredServed, "FN-10.1", "a function_result for a kind without function_tools is served (not_pending, no call is pending) instead of answered unsupported"},
	{FNUnimplementedAsRuntimeError, "FN-11.1", "a function_result whose adapter has no path for it is answered runtime_error instead of contract_violation"},
	{FNNativeFailureNotPending, "FN-11.2", "a function_result the native side failed to apply is answered not_pending instead of runtime_error (the call stays pending)"},
	{FNFailedAttemptWithdrawsCall, "FN-11.3", "a function_result answered contract_violation or runtime_error withdraws the call: a later result is not_pending"},
	{FNUnknownCallContractViolation, "FN-12.1", "a function_result naming a call_id its active Run never emitted is answered contract_violation instead of not_pending"},
	{FNFinishedRunCallsKept, "FN-12.2", "a finished Run's pending calls stay pending: a result for one is handed to the ended Turn instead of answered not_pending"},
	{FNReplayNotPending, "FN-13.1", "an applied function result re-submitted with identical content is answered not_pending instead of applied:true"},
	{FNReplayReapplied, "FN-13.2", "an applied function result re-submitted with identical content is handed to the native side again (and acked applied:true)"},
	{FNConflictNotPending, "FN-13.3", "an applied function result re-submitted with other content is answered not_pending instead of decision_conflict"},
	{FNConflictReachesNative, "FN-13.4", "an applied function result re-submitted with other content is handed to the native side (and acked decision_conflict)"},
	{FNDeclaredImagesRefused, "FN-14.2", "a function_result with an image is answered invalid_result even for a kind that declares function_result_images"},
}
