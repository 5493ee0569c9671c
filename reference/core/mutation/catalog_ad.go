//go:build wirecheck_mutants

package mutation

// coreAD are the Core mutants of the AD family written from its clauses
// (scenarios/rules/clauses/AD.tsv), each before the scenario that kills it; their points are in
// points_ad.go.
var coreAD = []Mutant{
	{ADCorePrepareSessionBlank, "AD-01.1", "the execution_prepare of a Session bound to an Environment (local_environment) carries session_id \"\""},
	{ADCorePrepareConfigurationOmitted, "AD-01.2", "the execution_prepare of a Session bound to an Environment (local_environment) leaves its configuration out"},
	{ADCorePrepareCarriesRunID, "AD-01.3", "the prepare configuration of a Session bound to an Environment (local_environment) carries the Turn's Run ID as run_id instead of \"\""},
	{ADCorePrepareIDBlank, "AD-01.4", "the execution_prepare of a Session bound to an Environment (local_environment) goes out with an empty envelope id"},
	{ADCoreStartExecutorOmitted, "AD-02.1", "the execution_start of a Session bound to an Environment (local_environment) leaves executor_id out"},
	{ADCoreStartHandleOmitted, "AD-02.2", "the execution_start of a Session bound to an Environment (local_environment) leaves handle out"},
	{ADCoreStartRunIDIsRequestID, "AD-02.3", "the execution_start of a Session bound to an Environment (local_environment) names the preparation request ID as run_id instead of the Turn's Run"},
	{ADCoreStartInputOmitted, "AD-02.4", "the execution_start of a Session bound to an Environment (local_environment) leaves input out"},
	{ADCoreStartUnderRunID, "AD-02.5", "the execution_start of a Session bound to an Environment (local_environment) goes out under the Run ID instead of the prepare's request ID"},
	{ADCoreReleaseUnderRunID, "AD-03.2", "execution_release goes out under the Turn's Run ID instead of the prepare's request ID"},
	{ADCoreReleaseNamesExecutor, "AD-03.3", "execution_release names the status's executor_id as its handle instead of the handle"},
	{ADCoreRecoveryFailureAsCode, "AD-43.3", "a failed recovery ends the Turn with the start's rejection code (executor_unavailable) as its reason instead of executor_recovery_failed"},
	{ADCorePrepareSubscribedAfterSend, "AD-49.2", "Core subscribes to the preparation's status only after execution_prepare went out"},
	{ADCoreOtherHandleDelivered, "AD-54.3", "a status naming another handle than the first one seen for its request ID is delivered when its revision is higher"},
	{ADCoreOlderRevisionDelivered, "AD-54.5", "a status whose revision is below the last delivered one is delivered (a repeat of the last is still dropped)"},
	{ADCoreAgentKindOmitted, "AD-60.1", "a configuration with agent_options goes out without agent_kind"},
	{ADCoreEmptyConversationOmitted, "AD-60.2", "a configuration with agent_options goes out without its empty conversation_id (not encoded as \"\")"},
	{ADCoreEmptyRunIDOmitted, "AD-60.3", "a configuration with agent_options goes out without its empty run_id (not encoded as \"\")"},
	{ADCoreWebSearchOmitted, "AD-61.1", "execution_controls goes out without web_search"},
	{ADCoreTextVerbosityOmitted, "AD-61.2", "execution_controls goes out without text_verbosity"},
	{ADCoreWebSearchUnlisted, "AD-61.3", "execution_controls.web_search goes out as \"off\", a value outside disabled, cached, live"},
	{ADCoreTextVerbosityUnlisted, "AD-61.4", "execution_controls.text_verbosity goes out as \"normal\", a value outside low, medium, high"},
	{ADCoreMCPLabelOmitted, "AD-62.7", "an MCP server goes out without server_label"},
	{ADCoreMCPURLOmitted, "AD-62.8", "an MCP server goes out without server_url"},
	{ADCoreMCPNullToolsOmitted, "AD-62.9", "an MCP server whose allowed_tools is null (every tool) goes out without the member"},
	{ADCoreVerbosityDefaultLow, "AD-65.2", "with no resolved verbosity Core sets text_verbosity low instead of medium"},
	{ADCoreToolObservationsUnset, "AD-65.4", "Core leaves observe_tool_observations unset"},
	{ADCoreMessagesUnset, "AD-65.5", "Core leaves observe_messages unset although the Runtime declares message_items"},
	{ADCoreMessagesWithObservations, "AD-65.6", "Core sets observe_messages together with observe_tool_observations: a kind that declares tool_observations but not message_items gets observe_messages too"},
	{ADCoreMessagesReversed, "AD-66.7", "the execution_start of a Turn of several messages sends them last first"},
	{ADCoreImageBareBase64, "AD-67.1", "an inline image goes out as its bare base64, without the data:image/...;base64, prefix"},
}
