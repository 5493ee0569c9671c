//go:build wirecheck_mutants

package mutation

// runtimeCN are the Runtime mutants of the CN family written from its clauses
// (scenarios/rules/clauses/CN.tsv), each before the scenario that kills it; their points are in
// points_cn.go.
var runtimeCN = []Mutant{
	{CNReplayDone, "CN-40.7", "after a reconnect, the last done sent (or owed) on the earlier connection is sent again after the first heartbeat"},
	{CNReplayCancelReceipt, "CN-40.8", "after a reconnect, the last cancellation receipt (interaction_decision_ack of a prompt_cancel) sent or owed on the earlier connection is sent again"},
	{CNReplaySteerAck, "CN-40.8", "after a reconnect, the last prompt_steer_ack sent or owed on the earlier connection is sent again"},
	{CNReplayDecisionAck, "CN-40.8", "after a reconnect, the last interaction_decision_ack of a decision or function_result sent or owed on the earlier connection is sent again"},
	{CNReplayPermissionRequest, "CN-40.9", "after a reconnect, the last permission_request of the earlier connection is sent again"},
	{CNReplayUserChoice, "CN-40.9", "after a reconnect, the last prompt_for_user_choice of the earlier connection is sent again"},
	{CNReplayFunctionCall, "CN-40.9", "after a reconnect, the last function_call of the earlier connection is sent again"},
	{CNReplayPrepareResult, "CN-40.10", "after a reconnect, the last runtime_prepare_result sent or owed on the earlier connection is sent again"},
	{CNReplayReadResult, "CN-40.10", "after a reconnect, the last workspace_read_result sent or owed on the earlier connection is sent again"},
	{CNReplayWriteResult, "CN-40.10", "after a reconnect, the last workspace_write_result sent or owed on the earlier connection is sent again"},
	{CNReplayExportResult, "CN-40.10", "after a reconnect, the last workspace_export_result sent or owed on the earlier connection is sent again"},
	{CNReplayQuiesced, "CN-40.10", "after a reconnect, the last environment_quiesced sent or owed on the earlier connection (the accepted answer of a drain its end cut short included) is sent again"},
	{CNReplayResumed, "CN-40.10", "after a reconnect, the last environment_resumed sent or owed on the earlier connection is sent again"},
	{CNReplayConnectionClosedStatus, "CN-40.6", "an admission the ending connection owned is published failed connection_closed on the next connection, after its first heartbeat"},
}
