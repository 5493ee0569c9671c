//go:build wirecheck_mutants

package mutation

// runtimeRS are the Runtime mutants of the RS family written from its clauses
// (scenarios/rules/clauses/RS.tsv), each before the scenario that kills it; their points are in
// points_rs.go.
var runtimeRS = []Mutant{
	{RSEnvelopeIDUnread, "RS-01.1", "the Run ID is read from the payload run_id only: a prompt_request named by its envelope id alone is dropped as having no Run ID"},
	{RSPayloadRunIDUnread, "RS-01.2", "the Run is always named by the envelope id: with an empty envelope id its frames carry an empty id instead of the payload run_id"},
	{RSDirectRunPublishesStatus, "RS-02.1", "a prompt_request Run goes through the admission path far enough to publish a preparation_status started under its Run ID"},
	{RSFailedStartRunsDirect, "RS-02.2", "after a native start without a Turn (executor_unavailable) the Runtime also reports the Run on its own stream: error then an empty done under the Run ID"},
	{RSDuplicatePromptAnswered, "RS-03.2", "a duplicate prompt_request for an active Run is answered error then done under the Run ID, ending the active Run's stream"},
	{RSUnavailableKindRuns, "RS-04.2", "a prompt_request for an advertised kind that is available:false runs a Turn instead of error then empty done"},
	{RSFunctionToolsUncheckedDirect, "RS-05.2", "on the prompt_request path function_tools are not checked against the kind's declaration: the Turn runs instead of error then empty done"},
	{RSNoBindingRunsDirect, "RS-05.3", "on the prompt_request path a configuration with no Environment binding runs as if it disabled the Environment instead of error then empty done"},
	{RSForeignBindingRunsDirect, "RS-05.4", "on the prompt_request path a local_environment that does not match the Runtime's binding is not checked: the Turn runs instead of error then empty done"},
	{RSWriteBusyRunsDirect, "RS-05.5", "a prompt_request while a workspace_write transfer holds the workspace runs a Turn instead of error then empty done"},
	{RSExportBusyRunsDirect, "RS-05.6", "a prompt_request while a workspace_export holds the workspace runs a Turn instead of error then empty done"},
	{RSTransferPendingRunsDirect, "RS-05.7", "a prompt_request while a runtime_prepare transfer is pending runs a Turn instead of error then empty done"},
	{RSSetupFailureUnanswered, "RS-05.8", "a prompt_request whose native setup fails is dropped: no error and no done for the Run"},
	{RSOptionsCheckedAfterSetup, "RS-05.9", "an option the kind does not declare is refused only after native setup ran (and failed or succeeded) instead of before any native setup"},
	{RSNoRunIDAnswered, "RS-06.2", "a prompt_request with an empty envelope id and an empty payload run_id is answered error then done under an empty id instead of dropped"},
	{RSToolCallUnderCallID, "RS-07.1", "tool_call frames go out under the tool call's own id as envelope id instead of the Run ID"},
	{RSEventAfterDone, "RS-07.5", "the Turn's last event is sent after the Run's done instead of before it"},
	{RSErrorEndsStream, "RS-08.1", "an error frame is taken as the end of the stream: no done follows it"},
	{RSFinalErrorDropped, "RS-08.2", "an error frame that is the Turn's last event is dropped: the done goes out in its place"},
	{RSDeltaTextAsText, "RS-10.1", "delta frames carry their text under text (thinking's member) instead of delta"},
	{RSDeltaSequenceAsString, "RS-10.2", "delta frames encode sequence as a JSON string instead of an integer"},
	{RSThinkingTextAsDelta, "RS-10.3", "thinking frames carry their text under delta instead of text"},
	{RSEmptyDoneContentOmitted, "RS-10.4", "a done with empty content leaves content out instead of encoding \"\""},
	{RSDoneMetadataAsString, "RS-10.5", "done.metadata is sent double-encoded, a JSON string holding the object, instead of an object of string values"},
	{RSToolCallRunIDAdded, "RS-11.1", "tool_call frames carry an extra run_id member, which the strict tool_call shape does not define"},
	{RSToolCallAfterWithoutName, "RS-11.2", "a tool_call at stage after leaves out name (only the id repeats the call)"},
	{RSToolStageRenamed, "RS-11.3", "tool_call stage is sent as start/end instead of before/after"},
	{RSToolArgsAsString, "RS-11.4", "tool_call args is sent as a JSON string holding the object instead of an object"},
	{RSToolResultAsString, "RS-11.5", "tool_call result is sent as a JSON string holding the object instead of an object"},
	{RSObservationKindOmitted, "RS-11.6", "tool_call observation is sent without its kind"},
	{RSObservationStatusOmitted, "RS-11.7", "tool_call observation is sent without its status"},
	{RSObservationExitCodeAsString, "RS-11.8", "tool_call observation exit_code is sent as a string instead of an integer"},
	{RSObservationStripped, "RS-12.1", "tool_call frames lose their observation even when the configuration set observe_tool_observations"},
	{RSObservationSynthesized, "RS-12.2", "without observe_tool_observations a tool_call that has no observation gets one added (kind: its name, status: its stage)"},
	{RSMessageCompletedEarly, "RS-13.3", "with observe_messages the output_message completed goes out before the message's last delta"},
	{RSMessagesWithoutOptIn, "RS-13.5", "without observe_messages deltas still carry item_id and output_message frames are made for them"},
	{RSUsageIncrements, "RS-14.1", "each usage frame carries the increment since the previous usage frame instead of the cumulative measurement"},
	{RSDoneUsageIncrement, "RS-14.2", "done.usage carries the increment since the last usage frame instead of the final cumulative snapshot"},
	{RSMissingMeasurementZero, "RS-14.5", "a token measurement the Runtime does not have is sent as 0 instead of left out"},
}
