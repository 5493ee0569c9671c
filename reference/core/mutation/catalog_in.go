//go:build wirecheck_mutants

package mutation

// coreIN are the Core mutants of the IN family written from its clauses
// (scenarios/rules/clauses/IN.tsv), each before the scenario that kills it; their points are in
// points_in.go.
var coreIN = []Mutant{
	// What Core sends.
	{InSteerUnderInputID, "IN-01.1", "prompt_steer goes out under envelope id = the input_id instead of the Run ID"},
	{InResendWithoutInputID, "IN-01.2", "the resend of an input answered not_ready or busy carries a blank input_id"},
	{InInputUnvalidated, "IN-01.5", "an input that does not validate as a MessageInput is taken from the caller and sent in prompt_steer"},
	{InDurableReceiptString, "IN-01.6", "prompt_steer carries durable_receipt as the string \"true\" instead of a boolean"},
	{InInputsLastFirst, "IN-20.3", "once the current input is accepted, the input queued last goes out first instead of the caller's order"},
	{InNextInputDelayed, "IN-20.4", "once the current input is accepted, the next queued input waits a resend interval instead of going out at once"},

	// Receipts Core takes.
	{InAckInputIDUnchecked, "IN-02.2", "a prompt_steer_ack naming another input_id is applied to the input awaiting its receipt"},
	{InAckWithoutAcceptedTaken, "IN-02.3", "a prompt_steer_ack without accepted is taken (as accepted: false) instead of refused as an invalid receipt"},
	{InAckWrittenStringTaken, "IN-02.4", "a prompt_steer_ack whose written is the string \"true\" is taken as written instead of refused as an invalid receipt"},
	{InAckUnlistedCodeRetried, "IN-02.5", "a prompt_steer_ack with an error_code outside the listed set is taken as not_ready and the input resent, instead of refused as an invalid receipt"},
	{InAckNeitherPhaseRetried, "IN-02.6", "a prompt_steer_ack with neither written, accepted nor a code is taken as not_ready and the input resent, instead of refused as an invalid receipt"},

	// The 30 s written bound and the cursor.
	{InWrittenBoundEarly, "IN-21.1", "the written bound fires 15 s after delivery instead of 30 s: a written at 20 s comes too late"},
	{InWrittenKeepsBound, "IN-21.3", "written does not stop the 30 s bound: an input written but not accepted 30 s after delivery fails the Turn with input_outcome_unknown"},
	{InUnknownInputResent, "IN-21.4", "an input given up at the 30 s bound is sent once more as the Turn fails"},
	{InFailedSendAdvances, "IN-22.3", "a prompt_steer whose send failed is taken as delivered: the cursor moves on and the next input goes out in its place"},

	// Each receipt code.
	{InBusyFinal, "IN-23.2", "busy before written fails the Turn with input_busy instead of a later resend"},
	{InRejectedResent, "IN-23.5", "rejected before written is taken as transient: the input is resent later instead of the Turn failing with input_rejected"},
	{InConflictAsRejected, "IN-23.6", "input_conflict fails the Turn with input_rejected instead of input_input_conflict"},
	{InUnknownCodeResent, "IN-23.7", "outcome_unknown before written is taken as transient: the input is resent later instead of the Turn failing with input_outcome_unknown"},
	{InUnsupportedResent, "IN-23.8", "unsupported before written is taken as transient: the input is resent later instead of the Turn failing with input_unsupported"},
	{InContractViolationIgnored, "IN-23.9", "contract_violation is ignored like in_flight: Core keeps waiting instead of failing the Turn with input_contract_violation"},
	{InRunInactiveIgnored, "IN-23.10", "run_inactive is ignored (the Run is over anyway): the Turn is left to its done instead of failing with input_run_inactive"},
	{InInvalidInputAsRejected, "IN-23.11", "invalid_input fails the Turn with input_rejected instead of input_invalid_input"},
	{InLimitCodeSkipsInput, "IN-23.12", "input_limit drops the input and moves on to the next instead of failing the Turn with input_input_limit"},
	{INCoreAckRoutedByInputID, "IN-02.1", "Core routes a prompt_steer_ack by its payload's input_id instead of by the envelope id (the Run ID of the answered prompt_steer)"},
}
