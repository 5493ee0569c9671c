package mutation

// The decision points of the reference Runtime, one per single-bug variant. Each is written from
// the rule it breaks (the catalog in catalog.go ties them), not from the scenarios.
const (
	// Admission (AD).
	ReadyWithoutRevisionBump      Point = "ready-without-revision-bump"
	RejectionMovesRevision        Point = "rejection-moves-revision"
	InvalidPrepareUnanswered      Point = "invalid-prepare-unanswered"
	DuplicatePrepareNewHandle     Point = "duplicate-prepare-new-handle"
	PrepareConflictRepublishes    Point = "prepare-conflict-republishes"
	IgnoreAdmissionLimit          Point = "ignore-admission-limit"
	IdleExecutorNotReused         Point = "idle-executor-not-reused"
	StartForeignRequestID         Point = "start-foreign-request-id"
	StartExecutorMismatchAccepted Point = "start-executor-mismatch-accepted"
	StartConflictRepublishes      Point = "start-conflict-republishes"
	RunConflictIgnored            Point = "run-conflict-ignored"
	ExpiryNeverFires              Point = "expiry-never-fires"
	StartAfterExpiryAccepted      Point = "start-after-expiry-accepted"
	NativeStartFailureUnanswered  Point = "native-start-failure-unanswered"
	ReleaseAfterStartCancelsRun   Point = "release-after-start-cancels-run"
	ReleaseClosesIdleExecutor     Point = "release-closes-idle-executor"
	InvalidConfigurationAccepted  Point = "invalid-configuration-accepted"
	NoEnvironmentBindingAccepted  Point = "no-environment-binding-accepted"
	UnknownKindWrongCode          Point = "unknown-kind-wrong-code"
	LocalEnvironmentUnsupportedOK Point = "local-environment-unsupported-accepted"
	ConfigurationConflictIgnored  Point = "configuration-conflict-ignored"
	BusyExecutorAccepted          Point = "busy-executor-accepted"
	NativeSessionConflictIgnored  Point = "native-session-conflict-ignored"
	HistoryUnavailableIgnored     Point = "history-unavailable-ignored"
	InvalidStartUnanswered        Point = "invalid-start-unanswered"
	InvalidReleaseUnanswered      Point = "invalid-release-unanswered"
	UnknownReleaseSilent          Point = "unknown-release-silent"
	ReleasedWithoutRevisionBump   Point = "released-without-revision-bump"
	StartingWithoutRunID          Point = "starting-without-run-id"

	// Run streams (RS).
	DropDone                      Point = "drop-done"
	FirstEventsSwapped            Point = "first-events-swapped"
	DuplicatePromptRequestRestart Point = "duplicate-prompt-request-restarts"
	FailRunWithoutError           Point = "fail-run-without-error"
	DoneWithoutNativeIdentity     Point = "done-without-native-identity"

	// Engine failures (EF).
	ErrorClassificationDropped Point = "error-classification-dropped"

	// Cancellation (CA).
	EventsAfterCancellation Point = "events-after-cancellation"
	ReceiptBeforeSettlement Point = "receipt-before-settlement"
	UnknownRunCancelSilent  Point = "unknown-run-cancel-silent"
	LegacyCancelGetsReceipt Point = "legacy-cancel-gets-receipt"
	ReceiptWithoutOutcome   Point = "receipt-without-outcome"
	CancelFailureAsTimeout  Point = "cancel-failure-as-timeout"
	MissingOutcomeApplied   Point = "missing-outcome-applied"
	CancelTimeoutSilent     Point = "cancel-timeout-silent"

	// device_shutdown (DS).
	DeviceShutdownIgnored           Point = "device-shutdown-ignored"
	DeviceShutdownKeepsPreparations Point = "device-shutdown-keeps-preparations"

	// Connection (CN).
	HeartbeatNotFirst             Point = "heartbeat-not-first"
	ReplayAfterReconnect          Point = "replay-after-reconnect"
	RetryAfterIncompatibleVersion Point = "retry-after-incompatible-version"
	RetryAfterUnauthorized        Point = "retry-after-unauthorized"
	RetiredCloseRetried           Point = "retired-close-retried"
	HeartbeatEmptyKind            Point = "heartbeat-empty-kind"
	StatusReplayAfterReconnect    Point = "status-replay-after-reconnect"

	// The fault-rule "broken Runtimes" the removed TestBrokenRuntimesAreCaught made on the relay.
	ReceiptBeforeDone     Point = "receipt-before-done"
	StartedNeverPublished Point = "started-never-published"
	DoneSentTwice         Point = "done-sent-twice"
	RejectionWithheld     Point = "rejection-withheld"

	// Function tools (FN).
	FunctionToolsWithoutCapability Point = "function-tools-without-capability"

	// Dropped before a scenario could observe them (issue W2.3), now back.
	ExpiredDeadlineExtended Point = "expired-deadline-extended"
	DoneBeforeRelease       Point = "done-before-release"

	// Active input (IN).
	WrittenAsAccepted          Point = "written-as-accepted"
	StoredReceiptRewritten     Point = "stored-receipt-rewritten"
	BusyNotReported            Point = "busy-not-reported"
	InFlightAsBusy             Point = "in-flight-as-busy"
	InputConflictIgnored       Point = "input-conflict-ignored"
	InputLimitIgnored          Point = "input-limit-ignored"
	NativeWriteUnbounded       Point = "native-write-unbounded"
	DoneBeforeInputSettles     Point = "done-before-input-settles"
	InputReceiptAfterReconnect Point = "input-receipt-after-reconnect"

	// Interactions and functions (IA, FN).
	ReplayAnsweredAsNew          Point = "replay-answered-as-new"
	FingerprintWithDelivery      Point = "fingerprint-with-delivery"
	ConflictAnsweredAsReplay     Point = "conflict-answered-as-replay"
	UnaddressedAnswerAcked       Point = "unaddressed-answer-acked"
	ForeignQuestionAccepted      Point = "foreign-question-accepted"
	NativeFailureAsApplied       Point = "native-failure-as-applied"
	NotReadyConsumes             Point = "not-ready-consumes"
	UndeclaredInteractionsServed Point = "undeclared-interactions-served"
	ResultImagesUngated          Point = "result-images-ungated"
	ToolSearchWithoutCapability  Point = "tool-search-without-capability"

	// The contract Harness's own promises (CH).
	LenientContractScript Point = "lenient-contract-script"

	// Runtime preparation transfers (RP).
	PrepareMalformedAfterCommitRejected Point = "prepare-malformed-after-commit-rejected"
	PrepareMismatchAccepted             Point = "prepare-mismatch-accepted"
	PrepareBeginWhileBusy               Point = "prepare-begin-while-busy"
	ExecutionDuringTransfer             Point = "execution-during-transfer"
	PrepareUnbounded                    Point = "prepare-unbounded"
	PrepareCommitNotApplied             Point = "prepare-commit-not-applied"
	PrepareExitCodeDropped              Point = "prepare-exit-code-dropped"
	PrepareUnconfirmedReleasesSlot      Point = "prepare-unconfirmed-releases-slot"
	PrepareDuplicateBeginAnswered       Point = "prepare-duplicate-begin-answered"
	PrepareOffsetNotChecked             Point = "prepare-offset-not-checked"
	PrepareSHANotChecked                Point = "prepare-sha-not-checked"
	PrepareInvalidBeginAccepted         Point = "prepare-invalid-begin-accepted"
	PrepareInstalledBeforeCommit        Point = "prepare-installed-before-commit"

	// Workspace read, write and export (WS).
	WriteSHANotChecked            Point = "write-sha-not-checked"
	WriteOffsetNotChecked         Point = "write-offset-not-checked"
	WriteBodyUnbounded            Point = "write-body-unbounded"
	WriteMalformedPendingAnswered Point = "write-malformed-pending-answered"
	WriteUnconfirmedReleases      Point = "write-unconfirmed-releases"
	WriteBeginWhileBusy           Point = "write-begin-while-busy"
	ExecutionDuringWrite          Point = "execution-during-write"
	ReadCapacityIgnored           Point = "read-capacity-ignored"
	ReadUnconfirmedOwnerReads     Point = "read-unconfirmed-owner-reads"
	ReadExecutionHandleAccepted   Point = "read-execution-handle-accepted"
	SymlinksFollowed              Point = "symlinks-followed"
	ExportOffsetNotChecked        Point = "export-offset-not-checked"
	ExportExecutionHandleAccepted Point = "export-execution-handle-accepted"
	ReadUnsupportedUnconfirmed    Point = "read-unsupported-unconfirmed"

	// Suspension fencing (SU).
	QuiesceRollbackAccepted         Point = "quiesce-rollback-accepted"
	QuiesceWrongEnvironmentAccepted Point = "quiesce-wrong-environment-accepted"
	QuiesceWhileBusy                Point = "quiesce-while-busy"
	QuiesceDrainOverrun             Point = "quiesce-drain-overrun"
	SuspendAdmitsWork               Point = "suspend-admits-work"
	ResumeAnyPair                   Point = "resume-any-pair"
	ResumeOnParkedConnection        Point = "resume-on-parked-connection"
	RollbackResumeRefused           Point = "rollback-resume-refused"

	// Admission options, capacities and direct Runs (W2.8: AD, RS).
	PreparationUnsupportedAccepted       Point = "ad-preparation-unsupported-accepted"
	ExecutionControlsWithoutCapability   Point = "ad-execution-controls-without-capability"
	JSONSchemaWithoutStructuredOutput    Point = "ad-json-schema-without-structured-output"
	ProgrammaticDisableWithoutCapability Point = "ad-programmatic-disable-without-capability"
	PromptImagesWithoutCapability        Point = "ad-prompt-images-without-capability"
	StartImagesWithoutCapability         Point = "ad-start-images-without-capability"
	FingerprintKeepsPerTurnMembers       Point = "ad-fingerprint-keeps-per-turn-members"
	AdmissionRecordsNeverPruned          Point = "ad-admission-records-never-pruned"
	IdleExecutorNeverExpires             Point = "ad-idle-executor-never-expires"
	StartCleanupFailureAsUnavailable     Point = "ad-start-cleanup-failure-as-unavailable"
	LocalEnvironmentBindingUnchecked     Point = "ad-local-environment-binding-unchecked"
	PromptWithoutKindAnswered            Point = "ad-prompt-without-kind-answered"
	PayloadRunIDWins                     Point = "ad-payload-run-id-wins"
	ReadOnlyPromptRequestRuns            Point = "ad-read-only-prompt-request-runs"
	KindBeforeMCPOrigin                  Point = "ad-kind-before-mcp-origin"
	StartInputUnvalidated                Point = "ad-start-input-unvalidated"
	// Connection, budgets and unsupported answers against a Runtime (W2.8).
	HeartbeatIntervalIgnored     Point = "heartbeat-interval-ignored"
	HeartbeatNonPositiveNoRepeat Point = "heartbeat-nonpositive-no-repeat"
	PrepareFrameUnbounded        Point = "prepare-frame-unbounded"
	TraceEchoUnbounded           Point = "trace-echo-unbounded"
	SteeringImpliedByDurable     Point = "steering-implied-by-durable"
	TransientRefusalStops        Point = "transient-refusal-stops"
	ReconnectWithoutBackoff      Point = "reconnect-without-backoff"
	LegacyTokenSent              Point = "legacy-token-sent"
	DecisionMemoryNeverExpires   Point = "decision-memory-never-expires"
	AppliedAckCarriesCode        Point = "applied-ack-carries-code"
)

// Sub-agent observation frames (SA, Runtime side).
const (
	SubagentsWithoutOptIn       Point = "subagents-without-opt-in"
	SubagentOrderUnchecked      Point = "subagent-order-unchecked"
	SubagentNullsOmitted        Point = "subagent-nulls-omitted"
	SubagentEmptyRecipientsNull Point = "subagent-empty-recipients-null"
)

// Engine failure classification (EF-04, Runtime side; W2.8).
const MalformedClassificationFails Point = "malformed-classification-fails"

// Runtime rules still without a scenario (W2.8b: AD-25, AD-42, AD-49, RS-13, WS-16).
const (
	ClosingCountedAsActive       Point = "closing-counted-as-active"
	ExecutorCapacityUnchecked    Point = "executor-capacity-unchecked"
	CancelIgnoresStart           Point = "cancel-ignores-start"
	AbortedStartPublishesStarted Point = "aborted-start-publishes-started"
	AbortedStartRejected         Point = "aborted-start-rejected"
	OutputBeforeConsumerLost     Point = "output-before-consumer-lost"
	WriteBeginPathUnchecked      Point = "write-begin-path-unchecked"
	WriteSizeUnbounded           Point = "write-size-unbounded"
	WriteChunkDataUnbounded      Point = "write-chunk-data-unbounded"
	MessageStartNotReported      Point = "message-start-not-reported"
	MessageDeltaWithoutItemID    Point = "message-delta-without-item-id"
	MessageCompletedWithoutText  Point = "message-completed-without-text"
)

// The transport's bounds and closes (CN-20, CN-21, CN-41; W2.8 stall).
const (
	StallHandshakeUnbounded  Point = "stall-handshake-unbounded"
	StallHandshakeShort      Point = "stall-handshake-short"
	StallFrameLimitLifted    Point = "stall-frame-limit-lifted"
	StallStopGoingAway       Point = "stall-stop-going-away"
	StallStopDrops           Point = "stall-stop-drops"
	StallStopReasonUnwritten Point = "stall-stop-reason-unwritten"
)

// Write deadlines and send budgets under a stalled reader (CN-42, AD-28, AD-50; W2.8 stall 2).
const (
	StallWriteUnbounded        Point = "stall-write-unbounded"
	StallWriteDeadlineDoubled  Point = "stall-write-deadline-doubled"
	StallStatusBudgetUnbounded Point = "stall-status-budget-unbounded"
	StallStatusBudgetDoubled   Point = "stall-status-budget-doubled"
	StallStatusFailureIgnored  Point = "stall-status-failure-ignored"
	StallWriteDeadlineHalved   Point = "stall-write-deadline-halved"
	StallStatusBudgetHalved    Point = "stall-status-budget-halved"
)
