package mutation

// The decision points of the Runtime mutants in catalog_cn.go.
const (
	// CN-40.6 to CN-40.10: a daemon that carries a frame of one kind, sent or owed on an earlier
	// connection, into the next one and sends it again right after that connection's first
	// heartbeat (reference/daemon/mutants_replay.go).
	CNReplayDone                   Point = "cn-replay-done"
	CNReplayCancelReceipt          Point = "cn-replay-cancel-receipt"
	CNReplaySteerAck               Point = "cn-replay-steer-ack"
	CNReplayDecisionAck            Point = "cn-replay-decision-ack"
	CNReplayPermissionRequest      Point = "cn-replay-permission-request"
	CNReplayUserChoice             Point = "cn-replay-user-choice"
	CNReplayFunctionCall           Point = "cn-replay-function-call"
	CNReplayPrepareResult          Point = "cn-replay-prepare-result"
	CNReplayReadResult             Point = "cn-replay-read-result"
	CNReplayWriteResult            Point = "cn-replay-write-result"
	CNReplayExportResult           Point = "cn-replay-export-result"
	CNReplayQuiesced               Point = "cn-replay-quiesced"
	CNReplayResumed                Point = "cn-replay-resumed"
	CNReplayConnectionClosedStatus Point = "cn-replay-connection-closed-status"
)
