//go:build wirecheck_mutants

package mutation

// coreCA are the Core mutants of the CA family written from its clauses
// (scenarios/rules/clauses/CA.tsv), each before the scenario that kills it; their points are in
// points_ca.go.
var coreCA = []Mutant{
	{CACancelUnderDeliveryID, "CA-01.1", "Core sends prompt_cancel under its delivery_id as envelope id instead of the Run ID"},
	{CACancelPayloadRunID, "CA-01.2", "Core's prompt_cancel payload carries run_id beside delivery_id"},
	{CACancelWithoutDeliveryID, "CA-01.4", "Core sends prompt_cancel without delivery_id, yet waits for the receipt of its cancellation"},
	{CAAckDeliveryIDTrimmed, "CA-13.1", "Core routes an interaction_decision_ack by its delivery_id with surrounding white space trimmed: an ack whose delivery_id is not the request's (\" cancel:<run> \") settles it"},
	{CAAppliedAckCodeAccepted, "CA-13.3", "Core takes an interaction_decision_ack with applied true and an error_code as valid"},
	{CAUnlistedAckCodeAccepted, "CA-13.4", "Core takes an interaction_decision_ack whose error_code is not a listed code as valid"},
	{CAInvalidOutcomeAccepted, "CA-13.5", "Core takes an interaction_decision_ack whose outcome is not a valid done payload (content missing or not a string) as valid"},
	{CAUnheldAckSettlesDecision, "CA-14.2", "an interaction_decision_ack whose delivery_id no waiter holds settles a pending decision instead of being dropped"},
	{CADuplicateDeliveryReplaced, "CA-14.3", "registering a waiter for a delivery_id already pending replaces the first waiter instead of being refused, so a second frame goes out under it"},
	{CACancelConfirmationEarly, "CA-15.1", "Core gives a cancellation up after 7.5 s instead of 15 s: a receipt arriving within 15 s no longer decides the Turn"},
	{CACancelTimeoutAwaited, "CA-17.2", "a cancel_timeout receipt is taken as not final: Core ignores it and the Turn stays cancelling until Core's own 15 s run out"},
	{CAOutputUnavailableIncomplete, "CA-17.3", "a cancel_output_unavailable receipt fails the Turn with event_stream_incomplete instead of cancel_unconfirmed"},
	{CAOutcomeUnavailableKept, "CA-17.4", "an applied:false cancel_outcome_unavailable receipt fails the Turn with cancel_outcome_unavailable instead of cancel_unconfirmed"},
	{CARunInactiveBeforeDoneCompletes, "CA-17.5", "a run_inactive receipt before any done of the Run completes the Turn from its stream instead of cancel_unconfirmed"},
	{CAAppliedBeforeDoneIncomplete, "CA-18.1", "an applied receipt with its outcome before any done fails the Turn with event_stream_incomplete instead of cancelling it"},
	{CACancelledKeepsStream, "CA-18.3", "the cancelled Turn's result is taken from the stream (and its done) instead of the receipt's snapshot"},
	{CALostReceiptDoneCompletes, "CA-19.1", "when the connection closes before the cancellation receipt but after the Run's done, the Turn is completed from that done instead of cancel_unconfirmed"},
	{CALostReceiptRestarts, "CA-19.2", "after a reconnect Core sends again the execution_start of a Run whose cancellation receipt was lost with the old connection"},
	{CAReadyCancelWithoutRelease, "CA-20.2", "an admission that turns ready after the Turn was cancelled is abandoned without execution_release"},
	{CAAbandonedAlsoCancelled, "CA-20.3", "a Turn abandoned before start gets a prompt_cancel for its Run ID beside the execution_release"},
	{CAAbandonedAdmissionStarted, "CA-20.4", "an admission that turns ready after the Turn was cancelled is started (execution_start with the input) before it is released"},
	{CAStartingCancelReleases, "CA-20.5", "a Turn cancelled once execution_start was sent is abandoned with execution_release of the old handle instead of prompt_cancel"},
	{CAPendingAtDoneAfterCancelFails, "CA-21.2", "after prompt_cancel, an input written but not accepted when the Run's done arrives fails the Turn with input_outcome_unknown when the receipt decides from the done"},
	{CASteerFailureAfterCancelFails, "CA-21.3", "after prompt_cancel, a prompt_steer whose send fails fails the Turn with input_outcome_unknown instead of leaving the outcome to the receipt"},
}
