//go:build wirecheck_mutants

package mutation

// runtimeCA are the Runtime mutants of the CA family written from its clauses
// (scenarios/rules/clauses/CA.tsv), each before the scenario that kills it; their points are in
// points_ca.go.
var runtimeCA = []Mutant{
	{CACancelCancelsEveryRun, "CA-01.1", "a prompt_cancel cancels every active Run of the connection, not only the one its envelope id names"},
	{CAInvalidCancelServed, "CA-01.2", "a prompt_cancel whose payload breaks its shape (a member other than delivery_id, a delivery_id that is not a string) is served instead of dropped"},
	{CAPayloadlessCancelDropped, "CA-01.3", "a prompt_cancel with no payload at all is dropped as invalid instead of cancelling the Run"},
	{CALegacyCancelIgnored, "CA-02.1", "a prompt_cancel without delivery_id cancels nothing: the Turn runs on to its own end"},
	{CAFinishedRunCancelApplied, "CA-03.2", "a prompt_cancel with delivery_id for a Run whose done is already out is answered applied:true with that done as outcome instead of run_inactive"},
	{CADoneBeforeSettlement, "CA-04.1", "cancelling an active prepared Run sends its empty done at once, before the Turn's native settlement (the receipt still waits for it)"},
	{CACancelledTurnWithoutDone, "CA-04.3", "a cancelled prepared Run whose Turn produced no terminal frame gets no done: its stream never closes"},
	{CADirectReceiptWithoutOutcome, "CA-05.2", "a cancelled prompt_request Run whose Cancel succeeded is receipted applied:false cancel_outcome_unavailable: its snapshot is not kept"},
	{CADirectCancelledWithoutDone, "CA-05.3", "a cancelled prompt_request Run gets only its receipt: its stream never closes with done"},
	{CAFailedCancelClosesRun, "CA-06.2", "after cancel_failed the Runtime ends the Run itself with an empty done at once; the Turn's later events and done are dropped"},
	{CAConfirmationTimerEarly, "CA-09.1", "the cancellation confirmation timer fires after 7.5 s instead of 15 s: a settlement within 15 s is answered cancel_timeout"},
	{CATimeoutDropsDone, "CA-09.3", "after cancel_timeout the Run's done is dropped when the Turn eventually settles"},
	{CATimeoutClosesStream, "CA-09.4", "when the confirmation timer expires the Run's stream is closed at once with an empty done, without waiting for the late settlement"},
	{CAOutcomeContentDropped, "CA-11.1", "the applied receipt's outcome loses the partial content the Turn produced"},
	{CAOutcomeIdentityDropped, "CA-11.2", "the applied receipt's outcome loses the native identity (metadata.agent_session_id)"},
	{CAOutcomeUsageDropped, "CA-11.3", "the applied receipt's outcome loses the Turn's usage snapshot"},
	{CAAbortedStartWithoutOutcome, "CA-11.4", "a cancellation that aborted a native start after its Turn existed (no done published) is receipted cancel_outcome_unavailable instead of applied with the stopped Turn's snapshot"},
	{CATimedOutCancelAppliedLater, "CA-12.2", "after cancel_timeout, the late settlement sends a second receipt, applied:true with the snapshot"},
	{CAReceiptEchoesEnvelopeID, "CA-13.1", "interaction_decision_ack echoes the answered request's envelope id as delivery_id instead of its delivery_id"},
	{CAUnappliedAckOmitsApplied, "CA-13.2", "an interaction_decision_ack with applied false leaves the applied member out"},
	{CARunInactiveAsNotPending, "CA-13.4", "a cancellation receipt for a Run that is not active carries the decision code not_pending instead of run_inactive"},
	{CAOutcomeAsDoneEnvelope, "CA-13.5", "the applied receipt's outcome is the whole done envelope (type, id, payload) instead of a done payload"},
	{CAReceiptUnderDeliveryID, "CA-13.6", "interaction_decision_ack goes out under the delivery_id as envelope id instead of the Run ID (cancellation, function result) or interaction ID (decision)"},
}
