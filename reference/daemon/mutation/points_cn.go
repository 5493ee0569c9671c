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

// The CN mutants of the daemon's own connection rules (reference/daemon/mutants_cn.go).
const (
	CNRtNonJSONFrameCloses         Point = "cn-rt-non-json-frame-closes"
	CNRtNegativeHeartbeatAbsolute  Point = "cn-rt-negative-heartbeat-seconds-absolute"
	CNRtAnswerReadWhole            Point = "cn-rt-bootstrap-answer-read-whole"
	CNRtNon2xxAnswerUsed           Point = "cn-rt-non-2xx-bootstrap-answer-used"
	CNRtEmptyDeviceIDAnswerUsed    Point = "cn-rt-empty-device-id-answer-used"
	CNRtEarlierHandleRemembered    Point = "cn-rt-earlier-connection-handle-remembered"
	CNRtOldRunsCounted             Point = "cn-rt-old-runs-counted-active"
	CNRtRedialBeforeSettled        Point = "cn-rt-redial-before-settlement"
	CNRtReconnectHeartbeatKindless Point = "cn-rt-reconnect-heartbeat-without-kinds"
	CNRtReconnectHeartbeatLate     Point = "cn-rt-reconnect-heartbeat-late"
	CNRtUnimplementedInputRejected Point = "cn-rt-unimplemented-input-rejected"
	CNRtNegativeHeartbeatNoRepeat  Point = "cn-rt-negative-heartbeat-seconds-no-repeat"
	CNRtZeroHeartbeat10s           Point = "cn-rt-zero-heartbeat-seconds-10s"
	CNRtHeartbeatSecondEarly       Point = "cn-rt-heartbeat-a-second-early"
	CNRtNonObjectFrameCloses       Point = "cn-rt-non-object-frame-closes"
	CNRtUnknownTypeCloses          Point = "cn-rt-unknown-type-closes"
)
