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

	// The daemon's own connection rules.
	{CNRtNonJSONFrameCloses, "CN-22.4", "a frame from Core that is not JSON closes the connection instead of being skipped"},
	{CNRtNegativeHeartbeatAbsolute, "CN-24.5", "a negative heartbeat_seconds is read as its absolute value (-1: every second) instead of falling back to 15 s"},
	{CNRtAnswerReadWhole, "CN-44.2", "the bootstrap answer is read whole instead of at most 64 KiB: an answer whose members lie past 64 KiB decodes and is dialled with"},
	{CNRtNon2xxAnswerUsed, "CN-44.3", "a non-2xx bootstrap answer whose body is a usable answer is dialled with"},
	{CNRtEmptyDeviceIDAnswerUsed, "CN-44.4", "a 2xx bootstrap answer with an empty device_id is dialled with, under the daemon's own device ID"},
	{CNRtEarlierHandleRemembered, "CN-34.1", "a handle of an earlier connection is remembered: execution_start with it on a new connection is rejected resource_unavailable instead of unknown_preparation"},
	{CNRtOldRunsCounted, "CN-52.4", "the first heartbeat of a new connection counts the Runs the old connection had active"},
	{CNRtRedialBeforeSettled, "CN-52.3", "a lost connection is redialled at once, while its native work is still being settled and its Executors closed"},
	{CNRtReconnectHeartbeatKindless, "CN-40.11", "the first heartbeat of a connection after a reconnect leaves supported_agent_kinds out, as if Core still knew them"},
	{CNRtReconnectHeartbeatLate, "CN-23.4", "a connection after a reconnect sends its first heartbeat only after a whole interval"},
	{CNRtNegativeHeartbeatNoRepeat, "CN-24.6", "a negative heartbeat_seconds stops the repeat instead of falling back to 15 s (zero still falls back)"},
	{CNRtZeroHeartbeat10s, "CN-24.3", "a heartbeat_seconds of 0 falls back to 10 s instead of 15 s"},
	{CNRtHeartbeatSecondEarly, "CN-24.1", "the heartbeat repeats one second before heartbeat_seconds have passed"},
	{CNRtNonObjectFrameCloses, "CN-22.5", "a JSON value from Core that is not an object (an array, a number) closes the connection instead of being skipped"},
	{CNRtUnknownTypeCloses, "CN-22.6", "an envelope of a type the daemon does not know closes the connection instead of being dropped"},
	{CNRtUnimplementedInputRejected, "CN-51.1", "prompt_steer on a Turn whose adapter has no input path is answered rejected (a native refusal) instead of contract_violation"},
}
