package mutation

// The decision points of the reference Core, one per single-bug variant. Each is written from the
// rule it breaks (the catalog in catalog.go ties them), not from the scenarios.
const (
	// Connection (CN): the upgrade's checks, liveness, heartbeats and replacement.
	IncompatibleVersionAccepted     Point = "incompatible-version-accepted"
	VersionAfterAuthentication      Point = "version-after-authentication"
	BootstrapAnyMethod              Point = "bootstrap-any-method"
	BadJSONAsMissingDevice          Point = "bad-json-as-missing-device"
	BlankDeviceIDAuthenticated      Point = "blank-device-id-authenticated"
	BootstrapAnswerWithoutWorkspace Point = "bootstrap-answer-without-workspace"
	CredentialInURLAccepted         Point = "credential-in-url-accepted"
	UnknownDeviceAsBadCredential    Point = "unknown-device-as-bad-credential"
	LivenessNeverFires              Point = "liveness-never-fires"
	InvalidHeartbeatKeepsOpen       Point = "invalid-heartbeat-keeps-connection"
	InvalidHeartbeatKeepsSnapshot   Point = "invalid-heartbeat-keeps-snapshot"
	ReplacedConnectionKept          Point = "replaced-connection-kept"
	RunRoutesInherited              Point = "run-routes-inherited"

	// Admission (AD).
	StaleRevisionDelivered          Point = "stale-revision-delivered"
	CapacityRejectionFinal          Point = "capacity-rejection-final"
	ExecutorUnavailableNotRecovered Point = "executor-unavailable-not-recovered"
	RecoveryRepeated                Point = "recovery-repeated"

	// Run streams and projection (RS, PJ, EF).
	StreamLossCompletes          Point = "stream-loss-completes"
	StreamLossDeviceDisconnected Point = "stream-loss-is-device-disconnected"
	EngineErrorCompletes         Point = "engine-error-completes"
	EngineCodeDropped            Point = "engine-code-dropped"
	PreparationLossIncomplete    Point = "preparation-loss-is-event-stream-incomplete"
	InvalidDoneIgnored           Point = "invalid-done-ignored"

	// Cancellation (CA).
	CancelTimeoutCancels            Point = "cancel-timeout-cancels"
	CancelResentOnTimeout           Point = "cancel-resent-on-timeout"
	ReceiptWithoutOutcomeCancels    Point = "receipt-without-outcome-cancels"
	ReceiptNotAppliedCancels        Point = "receipt-not-applied-cancels"
	RunInactiveAfterDoneUnconfirmed Point = "run-inactive-after-done-unconfirmed"
	DoneOverridesReceipt            Point = "done-overrides-receipt"
	CancelBeforeStartNoRelease      Point = "cancel-before-start-without-release"

	// Reconnection (CN-40): nothing of the old connection is sent again.
	StartResentAfterReconnect  Point = "start-resent-after-reconnect"
	CancelResentAfterReconnect Point = "cancel-resent-after-reconnect"

	// Dropped before the scenario language could observe them (issue W2.3), now back.
	StartRejectionCodeDropped    Point = "start-rejection-code-dropped"
	UsageAdded                   Point = "usage-added"
	MissingParamsAsMissingBearer Point = "missing-params-as-missing-bearer"
	UndeclaredCapabilityAdmitted Point = "undeclared-capability-admitted"
)

// Active input (IN, Core side).
const (
	InputNotSerialized        Point = "input-not-serialized"
	InputWrittenUnbounded     Point = "input-written-unbounded"
	WrittenAdvancesCursor     Point = "written-advances-cursor"
	NotReadyFinal             Point = "not-ready-final"
	InFlightFails             Point = "in-flight-fails"
	RejectionAfterCancelFails Point = "rejection-after-cancel-fails"
	PendingInputCompletes     Point = "pending-input-completes"
	RetryResentAtOnce         Point = "retry-resent-at-once"
	DurableReceiptOmitted     Point = "durable-receipt-omitted"
)

// Interactions and functions (IA, FN, Core side).
const (
	DecisionAckUnbounded         Point = "decision-ack-unbounded"
	DecisionResentOnTimeout      Point = "decision-resent-on-ack-timeout"
	PermissionCancelIgnored      Point = "permission-cancel-ignored"
	UpdatedInputDropped          Point = "updated-input-dropped"
	FunctionResultByCallID       Point = "function-result-by-call-id"
	AckRoutedByInteraction       Point = "ack-routed-without-delivery-id"
	InvalidRequestFailsTurn      Point = "invalid-permission-request-fails-turn"
	DecisionResentAfterReconnect Point = "decision-resent-after-reconnect"
	ExplicitNonAnswerDropped     Point = "explicit-non-answer-dropped"
)

// runtime_prepare (RP, Core side).
const (
	PrepareExchangeUnbounded    Point = "prepare-exchange-unbounded"
	PrepareWrongOffsetAccepted  Point = "prepare-wrong-offset-accepted"
	PrepareUnlistedCodeRejected Point = "prepare-unlisted-code-rejected"
	PrepareRejectedRetried      Point = "prepare-rejected-retried"
	PrepareTransfersOverlap     Point = "prepare-transfers-overlap"
	PrepareEmptyChunkSent       Point = "prepare-empty-chunk-sent"
	PrepareDisconnectIgnored    Point = "prepare-disconnect-ignored"
	PrepareResentAfterReconnect Point = "prepare-resent-after-reconnect"
)

// Workspace read, write and export (WS, Core side).
const (
	WorkspaceWriteUnbounded  Point = "workspace-write-unbounded"
	WriteReceiptUnchecked    Point = "write-receipt-unchecked"
	ReadResultUnchecked      Point = "read-result-unchecked"
	ExportOffsetUnchecked    Point = "export-offset-unchecked"
	ExportNotCancelled       Point = "export-not-cancelled"
	WriteNotExclusive        Point = "write-not-exclusive"
	DisconnectRejectsWrite   Point = "disconnect-rejects-write"
	ReadAfterReadUnconfirmed Point = "read-after-read-unconfirmed"
	ExportNotExclusive       Point = "export-not-exclusive"
	UnknownWriteUngated      Point = "unknown-write-ungated"
)

// Suspension fencing (SU, Core side).
const (
	SuspendOutstandingUnbounded Point = "suspend-outstanding-unbounded"
	SuspendForeignIdentityTaken Point = "suspend-foreign-identity-taken"
	SuspendAcceptedWithCode     Point = "suspend-accepted-with-code"
	SuspendCloseIsAck           Point = "suspend-close-is-ack"
	SuspendUnknownCodeRefuses   Point = "suspend-unknown-code-refuses"
)

// SuspendedAdmitsWork: Core's fencing of a suspended device (SU-06's Core counterpart, §4.16).
const SuspendedAdmitsWork Point = "suspended-admits-work"

// Sub-agent observation frames (SA, Core side).
const (
	SubagentOrderAccepted  Point = "subagent-order-accepted"
	SubagentNullsDropped   Point = "subagent-nulls-dropped"
	SubagentRecipientsNull Point = "subagent-recipients-null"
)

// Turn outcome projection and engine failure classification (PJ, EF; W2.8).
const (
	EngineUnlistedCodeKept        Point = "engine-unlisted-code-kept"
	EngineStatusBesideAnyCode     Point = "engine-status-beside-any-code"
	EngineErrorFailsCancelled     Point = "engine-error-fails-cancelled"
	EngineErrorHidesCoreError     Point = "engine-error-hides-core-error"
	UnsupportedInteractionWaits   Point = "unsupported-interaction-waits"
	UndeclaredFunctionCallWaits   Point = "undeclared-function-call-waits"
	InvalidFunctionCallIgnored    Point = "invalid-function-call-ignored"
	UnconfirmedResultGoesOn       Point = "unconfirmed-function-result-goes-on"
	ResultImagesUngated           Point = "image-result-sent-undeclared"
	ImageInputDenialIsStateChange Point = "image-input-denial-is-state-change"
	FunctionToolShapeUnchecked    Point = "function-tool-shape-unchecked"
	ToolSearchPairingUnchecked    Point = "tool-search-pairing-unchecked"
	ToolSearchCapabilityIgnored   Point = "tool-search-capability-ignored"
)

// Connection and heartbeat rules on Core's side (W2.8: CN-22, CN-25, CN-26, CN-32, CN-36, CN-46,
// CN-49).
const (
	MalformedFrameCloses           Point = "malformed-frame-closes"
	HeartbeatKindsMerged           Point = "heartbeat-kinds-merged"
	HeartbeatCapabilitiesWidened   Point = "heartbeat-capabilities-widened"
	DeregisterNewerSession         Point = "deregister-newer-session"
	UnavailableKindUnvalidated     Point = "unavailable-kind-unvalidated"
	HeartbeatMembersDefaulted      Point = "heartbeat-members-defaulted"
	NullCapabilitiesUnsupported    Point = "null-capabilities-unsupported"
	UnknownCapabilityMemberDropped Point = "unknown-capability-member-dropped"
)

// The per-Run opt-ins Core sets (W2.8: AD-65, AD-61, CN-33).
const (
	OptInsUnset                 Point = "opt-ins-unset"
	ExecutionControlsUndeclared Point = "execution-controls-undeclared"
	OptInsWidenedAtClaim        Point = "opt-ins-widened-at-claim"
)

// SelectionUnchecked: device selection admits whatever the declaration lacks (CN-50's first check).
const SelectionUnchecked Point = "selection-unchecked"

// Preparation subscriptions, Run input (W2.8: AD-55, AD-66).
const (
	RejectedRevisionChecked Point = "rejected-revision-checked"
	InputTextTrimmed        Point = "input-text-trimmed"
)

// DeviceStatusAlwaysOnline: the device-status route (CN-45) says online whatever the connection.
const DeviceStatusAlwaysOnline Point = "device-status-always-online"

// Input receipts on Core's side (W2.8: CN-51, CA-21).
const (
	ContractViolationRetried     Point = "contract-violation-retried"
	UnknownInputAfterCancelFails Point = "unknown-input-after-cancel-fails"
)

// IdleHeartbeatEndsRuns: a heartbeat with active_requests 0 is taken as the end of every Run (CN-31).
const IdleHeartbeatEndsRuns Point = "idle-heartbeat-ends-runs"

// The rules of W2.8's last Core-side pass (AD-03, AD-60, AD-62, AD-67, CA-13, RP-10, WS-02).
const (
	WorkspaceReadSizeUnchecked    Point = "workspace-read-size-unchecked"
	ReleaseHandleOmitted          Point = "release-handle-omitted"
	ZeroSubagentsDropped          Point = "zero-subagents-dropped"
	AgentOptionsAsString          Point = "agent-options-as-string"
	MCPAllowedToolsNullAsEmpty    Point = "mcp-allowed-tools-null-as-empty"
	MCPServiceOriginDefaulted     Point = "mcp-service-origin-defaulted"
	ImagePaddingStripped          Point = "image-padding-stripped"
	AckDecodedLeniently           Point = "ack-decoded-leniently"
	PreparationFrameSizeUnchecked Point = "preparation-frame-size-unchecked"
	RuntimeTypeUnchecked          Point = "runtime-type-unchecked"
	LongTraceReplyDropped         Point = "long-trace-reply-dropped"
	RunSubscribedAtStarted        Point = "run-subscribed-at-started"
)

// PJ-14: the read-only preparation's release is confirmed by released alone.
const (
	PJ14ReleaseRequestConfirms Point = "pj14-release-request-confirms"
	PJ14SocketClosureConfirms  Point = "pj14-socket-closure-confirms"
	PJ14CleanupFailureConfirms Point = "pj14-cleanup-failure-confirms"
	PJ14ReleaseBoundConfirms   Point = "pj14-release-bound-confirms"
)

// RS-11: tool_call decoding is strict.
const (
	ToolCallUnknownMembersAccepted Point = "rs11-tool-call-unknown-members-accepted"
	ToolCallStageUnchecked         Point = "rs11-tool-call-stage-unchecked"
	ToolCallArgsNotObjectAccepted  Point = "rs11-tool-call-args-not-object-accepted"
	ToolObservationUnchecked       Point = "rs11-tool-observation-unchecked"
)

// CN-20: clean closes 1000/1001 are not errors.
const ()

// CN-42: a per-frame write timeout of 10 s; a failed write closes the session.
const (
	CN42WriteDeadlineIgnored Point = "cn42-write-deadline-ignored"
	CN42WriteTimeoutLonger   Point = "cn42-write-timeout-longer"
	CN42WriteTimeoutShorter  Point = "cn42-write-timeout-shorter"
)

// AD-53: a preparation subscription's 16-frame buffer; overflow closes it with an error.
const (
	AD53BufferUnbounded   Point = "ad53-buffer-unbounded"
	AD53OverflowKeepsOpen Point = "ad53-overflow-keeps-open"
)
