package mutation

// The decision points of the Runtime mutants in catalog_fn.go.
const (
	// Function tools in a configuration.
	FNToolNameUnchecked       Point = "fn-tool-name-unchecked"
	FNToolDescriptionOptional Point = "fn-tool-description-optional"
	FNToolParametersUnchecked Point = "fn-tool-parameters-unchecked"
	FNDeferLoadingLoose       Point = "fn-defer-loading-loose"
	FNToolSearchAloneIgnored  Point = "fn-tool-search-alone-ignored"
	FNDeferredImpliesSearch   Point = "fn-deferred-implies-search"
	FNToolSearchPromptUngated Point = "fn-tool-search-prompt-ungated"
	FNToolsPromptUngated      Point = "fn-tools-prompt-ungated"

	// function_call as the Runtime sends it.
	FNCallUnderCallID      Point = "fn-call-under-call-id"
	FNCallWithoutCallID    Point = "fn-call-without-call-id"
	FNCallWithoutName      Point = "fn-call-without-name"
	FNCallWithoutArguments Point = "fn-call-without-arguments"

	// function_result as the Runtime takes it, and its ack.
	FNResultRoutedByCallID         Point = "fn-result-routed-by-call-id"
	FNResultSuccessOptional        Point = "fn-result-success-optional"
	FNUnaddressedResultAcked       Point = "fn-unaddressed-result-acked"
	FNResultWithoutCallIDAcked     Point = "fn-result-without-call-id-acked"
	FNResultWithoutRunIDAcked      Point = "fn-result-without-run-id-acked"
	FNDroppedResultWithdrawsCall   Point = "fn-dropped-result-withdraws-call"
	FNAckUnderCallID               Point = "fn-ack-under-call-id"
	FNNullContentApplied           Point = "fn-null-content-applied"
	FNAbsentContentApplied         Point = "fn-absent-content-applied"
	FNBadPartSkipped               Point = "fn-bad-part-skipped"
	FNInvalidResultWithdrawsCall   Point = "fn-invalid-result-withdraws-call"
	FNNotReadyAsRuntimeError       Point = "fn-not-ready-as-runtime-error"
	FNNotReadyWithdrawsCall        Point = "fn-not-ready-withdraws-call"
	FNUndeclaredServed             Point = "fn-undeclared-served"
	FNUnimplementedAsRuntimeError  Point = "fn-unimplemented-as-runtime-error"
	FNNativeFailureNotPending      Point = "fn-native-failure-not-pending"
	FNFailedAttemptWithdrawsCall   Point = "fn-failed-attempt-withdraws-call"
	FNUnknownCallContractViolation Point = "fn-unknown-call-contract-violation"
	FNFinishedRunCallsKept         Point = "fn-finished-run-calls-kept"
	FNReplayNotPending             Point = "fn-replay-not-pending"
	FNReplayReapplied              Point = "fn-replay-reapplied"
	FNConflictNotPending           Point = "fn-conflict-not-pending"
	FNConflictReachesNative        Point = "fn-conflict-reaches-native"
	FNDeclaredImagesRefused        Point = "fn-declared-images-refused"
)
