//go:build wirecheck_mutants

package mutation

// coreSA are the Core mutants of the SA family written from its clauses
// (scenarios/rules/clauses/SA.tsv), each before the scenario that kills it; their points are in
// points_sa.go.
var coreSA = []Mutant{
	{SACoreIncompleteIdentityRecorded, "SA-01.6", "a subagent_identity that leaves a member out is decoded leniently (the member as its zero value) and recorded instead of skipped"},
	{SACoreZeroOccurredAtDropped, "SA-02.3", "a subagent_lifecycle whose occurred_at_ms is 0 is recorded without that member instead of with every member as received"},
	{SACoreIncompleteLifecycleRecorded, "SA-02.4", "a subagent_lifecycle that leaves a member out is decoded leniently and recorded instead of skipped"},
	{SACoreTurnNullsDropped, "SA-03.6", "a subagent_turn is recorded without its null members (started_at_ms, completed_at_ms, usage) instead of keeping them null"},
	{SACoreIncompleteTurnRecorded, "SA-03.7", "a subagent_turn that leaves a member out is decoded leniently and recorded instead of skipped"},
	{SACoreZeroPositionDropped, "SA-04.4", "a subagent_item at position 0 is recorded without its position (dropped as a zero value)"},
	{SACoreNegativePositionRecorded, "SA-04.6", "a subagent_item at position -1 is recorded (the bound read as position >= -1) instead of skipped"},
	{SACoreItemPayloadStringified, "SA-04.7", "a subagent_item's payload is recorded as a JSON string holding the snapshot instead of the raw snapshot as received"},
	{SACoreIncompleteItemRecorded, "SA-04.8", "a subagent_item that leaves a member out is decoded leniently and recorded instead of skipped"},
	{SACoreCoordinationNullsDropped, "SA-05.6", "a subagent_coordination is recorded without its null members (text, model, reasoning_effort) instead of keeping them null"},
	{SACoreIncompleteCoordinationRecorded, "SA-05.7", "a subagent_coordination whose recipients is null, or that leaves a member out, is decoded leniently and recorded instead of skipped"},
	{SACoreIdentityRepeated, "SA-06.7", "a second subagent_identity for a native_id already recorded on the Run is recorded too"},
	{SACoreTurnNotRequiredActive, "SA-06.8", "a subagent_item, or a terminal subagent_turn, of a Turn with no active snapshot recorded is recorded instead of dropped"},
	{SACoreAfterTerminalRecorded, "SA-06.9", "frames of a sub-agent Turn after its terminal snapshot (an Item, another snapshot) are recorded instead of dropped"},
	{SACoreOrderBreakFails, "SA-06.10", "a sub-agent frame out of order fails the Turn with invalid_executor_result instead of being dropped while the Turn goes on"},
}
