//go:build wirecheck_mutants

package mutation

// runtimeSA are the Runtime mutants of the SA family written from its clauses
// (scenarios/rules/clauses/SA.tsv), each before the scenario that kills it; their points are in
// points_sa.go.
var runtimeSA = []Mutant{
	{SAEmptyParentOmitted, "SA-01.1", "subagent_identity leaves parent_native_id out when it is empty (a top-level sub-agent) instead of sending \"\""},
	{SAZeroCreatedAtOmitted, "SA-01.2", "subagent_identity leaves native_created_at out when it is 0 instead of sending 0"},
	{SANullInstructionsOmitted, "SA-01.4", "subagent_identity leaves instructions out when there are none instead of sending null"},
	{SAEmptyEffectIDOmitted, "SA-02.1", "subagent_lifecycle leaves effect_id out when it is empty instead of sending \"\""},
	{SAZeroOccurredAtOmitted, "SA-02.2", "subagent_lifecycle leaves occurred_at_ms out when it is 0 instead of sending 0"},
	{SAEmptyTurnStatusOmitted, "SA-03.1", "subagent_turn leaves status out when it is empty instead of sending \"\""},
	{SAZeroTurnCreatedAtOmitted, "SA-03.2", "subagent_turn leaves created_at_ms out when it is 0 instead of sending 0"},
	{SANullStartedAtOmitted, "SA-03.3", "subagent_turn leaves started_at_ms out while it is unknown instead of sending null"},
	{SANullCompletedAtOmitted, "SA-03.4", "subagent_turn leaves completed_at_ms out while the Turn has not ended instead of sending null"},
	{SANullUsageOmitted, "SA-03.5", "subagent_turn leaves usage out when there is none instead of sending null"},
	{SAEmptyItemKindOmitted, "SA-04.1", "subagent_item leaves kind out when it is empty instead of sending \"\""},
	{SAItemPayloadStringified, "SA-04.3", "subagent_item carries its native snapshot as a JSON string holding the snapshot instead of the raw JSON unchanged"},
	{SAZeroPositionOmitted, "SA-04.4", "subagent_item leaves position out when it is 0 (dropped as a zero value) instead of sending 0"},
	{SAEmptyActorOmitted, "SA-05.1", "subagent_coordination leaves actor_id out when it is empty instead of sending \"\""},
	{SANullTextOmitted, "SA-05.3", "subagent_coordination leaves text out when there is none instead of sending null"},
	{SANullModelOmitted, "SA-05.4", "subagent_coordination leaves model out when there is none instead of sending null"},
	{SANullReasoningEffortOmitted, "SA-05.5", "subagent_coordination leaves reasoning_effort out when there is none instead of sending null"},
	{SAIdentityRepeated, "SA-06.2", "a second subagent_identity for a native_id already identified on the Run is sent instead of withheld"},
	{SATurnNotRequiredActive, "SA-06.3", "a subagent_item, or a terminal subagent_turn, of a Turn never sent active goes out instead of being withheld"},
	{SAAfterTerminalSent, "SA-06.4", "frames of a sub-agent Turn after its terminal snapshot (an Item, another snapshot) go out instead of being withheld"},
	{SAOrderBreakStopsForwarding, "SA-06.5", "the first out-of-order sub-agent frame ends the Run's sub-agent forwarding: its later in-order frames are withheld too"},
	{SAPromptOptInIgnored, "SA-07.2", "a prompt_request Run that sets observe_subagent_identities gets no sub-agent frame: the opt-in is not read on that path"},
	{SAPreparedOptInIgnored, "SA-07.3", "a prepared Run whose execution_prepare configuration set observe_subagent_identities gets no sub-agent frame"},
	{SAWithheldEndsEvents, "SA-07.4", "without the opt-in, the Turn's events after its first sub-agent activity are withheld with it: only done goes out"},
	{SAFrameIDNative, "SA-07.5", "a sub-agent frame's envelope id is the sub-agent's native_id (the actor's, for a coordination) instead of the Run ID"},
}
