//go:build wirecheck_mutants

package mutation

// runtimeIN are the Runtime mutants of the IN family written from its clauses
// (scenarios/rules/clauses/IN.tsv), each before the scenario that kills it; their points are in
// points_in.go.
var runtimeIN = []Mutant{
	// prompt_steer shapes the Runtime takes.
	{InSteerRoutedToOnlyRun, "IN-01.1", "a prompt_steer whose envelope id names no Run is taken by the Runtime's only active Run instead of answered run_inactive"},
	{InBlankInputIDTaken, "IN-01.2", "a prompt_steer with a blank input_id is taken and written under that blank ID instead of refused"},
	{InDurableReceiptStringTaken, "IN-01.6", "a prompt_steer whose durable_receipt is the string \"true\" is taken as durable instead of refused as undecodable"},

	// prompt_steer_ack shapes.
	{InWrittenAsString, "IN-02.4", "the written receipt carries written as the string \"true\" instead of a boolean"},
	{InAcceptedUnderInputID, "IN-02.1", "the accepted receipt goes out under envelope id = the input_id instead of the Run ID"},
	{InBusyNamesActiveInput, "IN-02.2", "a busy receipt names the input in flight instead of echoing the refused prompt_steer's input_id"},
	{InWrittenOmitsAccepted, "IN-02.3", "the written receipt leaves accepted out (false omitted) instead of carrying accepted: false"},
	{InRejectionCodeOwnName, "IN-02.5", "an adapter rejection is answered error_code input_rejected, a code not in the prompt_steer_ack set, instead of rejected"},
	{InAcceptedKeepsWritten, "IN-02.6", "the accepted receipt of a durable input still carries written: true beside accepted: true"},

	// The written and accepted phases.
	{InWrittenBeforeWrite, "IN-03.1", "the written receipt goes out when the native write starts, before it completed"},
	{InWrittenReceiptSkipped, "IN-03.2", "a durable input's completed write sends no written receipt: its first receipt is accepted"},
	{InNonDurableWritten, "IN-03.4", "an input without durable_receipt gets a written receipt too"},
	{InNonDurableAcceptedAtWrite, "IN-04.1", "an input without durable_receipt is answered accepted as soon as its native write completes, before the adapter confirmed consumption"},
	{InConsumptionUnreported, "IN-04.2", "the adapter's confirmed consumption is stored but no accepted receipt is sent"},

	// Validation.
	{InIDAtLimitRefused, "IN-01.3", "an input_id of exactly 256 bytes is answered invalid_input (the bound checked with >= instead of >)"},
	{InIDOverLimitTaken, "IN-01.4", "an input_id of 257 bytes or more is taken and written like any other instead of answered invalid_input"},
	{InIDOverLimitTruncated, "IN-05.4", "the invalid_input receipt of an over-long input_id echoes it cut to 256 bytes instead of the input_id sent"},
	{InInvalidInputTaken, "IN-01.5", "an input that does not validate as a MessageInput (e.g. no message) is taken and written: only input_id is checked"},
	{InUndecodableDropped, "IN-05.1", "a prompt_steer whose payload does not decode (a member of the wrong type) is dropped without a receipt instead of answered invalid_input"},
	{InInvalidInputRejected, "IN-05.5", "an input that does not validate is answered rejected instead of invalid_input"},
	{InInvalidInputRecorded, "IN-05.6", "an input answered invalid_input is recorded under its input_id: a later valid input with that input_id is input_conflict instead of written"},

	// The Run's states.
	{InUnknownRunNotReady, "IN-06.1", "prompt_steer for a Run ID the Runtime never had is answered not_ready instead of run_inactive"},
	{InFinishedRunNotReady, "IN-06.2", "prompt_steer for a Run whose done is out is answered not_ready (as if between Turns) instead of run_inactive"},
	{InCompletingRunTaken, "IN-06.3", "prompt_steer for a Run whose Turn settled but whose done is held is decided as for a running Run (busy, in_flight, written) instead of run_inactive"},
	{InClosingRouterTaken, "IN-06.4", "prompt_steer while the router is shutting down is decided as for a running Run instead of run_inactive"},
	{InSetupRunInactive, "IN-09.1", "prompt_steer for a prompt_request Run still in native setup is answered run_inactive (the Run counted only once its Turn exists) instead of not_ready"},
	{InStartingRunBusy, "IN-09.2", "prompt_steer for a prepared Run whose native start is still running is answered busy instead of not_ready"},
	{InNativeNotReadyAsBusy, "IN-09.3", "a native Turn that reports it is not ready for input is answered busy instead of not_ready"},

	// Repeats, conflicts and the limit.
	{InConflictDurableIgnored, "IN-07.2", "the same input_id with the same content but another durable_receipt is taken as a repeat instead of input_conflict"},
	{InConflictReplacesRecord, "IN-07.3", "a conflicting steer, answered input_conflict, replaces the recorded content: a later repeat of the original is input_conflict instead of its stored receipt"},
	{InLimitAtLimitRefused, "IN-08.1", "the 256th distinct input_id of a Run is answered input_limit (the limit counted from 255)"},
	{InLimitBeforeRepeat, "IN-08.3", "the input limit is checked before the record: past 256 inputs a repeat of a recorded input_id is answered input_limit instead of its own answer"},
	{InWrittenBusyIgnored, "IN-10.2", "a new input arriving while another is written but not yet accepted is written beside it instead of answered busy"},
	{InWrittenRepeatBusy, "IN-11.2", "a repeat of the input that is written but awaits its accepted receipt is answered busy instead of in_flight"},
	{InRepeatWrittenAgain, "IN-11.3", "a repeat answered in_flight while its native write runs is also written again: a second written receipt follows"},
	{InStoredRefusalReoffered, "IN-16.2", "a repeat of an input stored as a definite refusal (rejected, contract_violation) is offered to the adapter again instead of getting the stored receipt"},
	{InStoredUnknownRewritten, "IN-16.3", "a repeat of an input stored as outcome_unknown is written again instead of answered outcome_unknown"},
	{InNativeNotReadyStored, "IN-16.4", "an input the native Turn was not ready for is stored with its not_ready receipt: the resend gets not_ready again instead of being written"},
	{InBusyStored, "IN-16.5", "an input answered busy is stored with that receipt: the resend gets busy again instead of being written once the Run is free"},

	// Capabilities and adapter verdicts.
	{InDurableWithoutCapability, "IN-12.1", "durable_receipt: true is taken by a kind that does not declare durable_input_receipts instead of unsupported"},
	{InUnimplementedUnsupported, "IN-13.1", "a Turn without an input path, for a kind that declares input, is answered unsupported instead of contract_violation"},
	{InEarlyRejectionWritten, "IN-14.1", "an adapter rejection before the write is preceded by a written receipt, as if it had been written"},
	{InLateRejectionUnknown, "IN-14.2", "an adapter rejection after the write is answered outcome_unknown instead of rejected"},
	{InWriteTimeoutRejected, "IN-15.1", "a native write that runs out its 10 s bound is answered rejected instead of outcome_unknown"},
	{InBrokenWriteRejected, "IN-15.2", "a native write that breaks after the input may have been taken is answered rejected instead of outcome_unknown"},
	{InUnconsumedSilent, "IN-15.3", "a written input whose Turn settled before consumption was confirmed gets no last receipt instead of outcome_unknown"},
	{InUnknownWriteRetried, "IN-15.4", "after answering outcome_unknown the Runtime writes the input again on its own, and receipts the retry"},

	// Bounds.
	{InWriteBoundEarly, "IN-17.1", "the native write is given up after 5 s instead of 10 s: a write of 6 s is outcome_unknown"},
	{InWriteBoundCoversAcceptance, "IN-17.3", "the 10 s write bound keeps running after the write completed: acceptance later than 10 s after the write started is outcome_unknown"},
	{InDoneWaitShort, "IN-19.1", "done waits only 5 s instead of 15 s for an input in flight after the Turn settled"},
}
