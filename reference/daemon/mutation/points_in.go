package mutation

// The decision points of the Runtime mutants in catalog_in.go.
const (
	// prompt_steer shapes the Runtime takes (IN-01).
	InSteerRoutedToOnlyRun      Point = "in-steer-routed-to-only-run"
	InBlankInputIDTaken         Point = "in-blank-input-id-taken"
	InDurableReceiptStringTaken Point = "in-durable-receipt-string-taken"

	// prompt_steer_ack shapes (IN-02).
	InWrittenAsString      Point = "in-written-as-string"
	InAcceptedUnderInputID Point = "in-accepted-under-input-id"
	InBusyNamesActiveInput Point = "in-busy-names-active-input"
	InWrittenOmitsAccepted Point = "in-written-omits-accepted"
	InRejectionCodeOwnName Point = "in-rejection-code-own-name"
	InAcceptedKeepsWritten Point = "in-accepted-keeps-written"

	// The written and accepted phases (IN-03, IN-04).
	InWrittenBeforeWrite        Point = "in-written-before-write"
	InWrittenReceiptSkipped     Point = "in-written-receipt-skipped"
	InNonDurableWritten         Point = "in-non-durable-written"
	InNonDurableAcceptedAtWrite Point = "in-non-durable-accepted-at-write"
	InConsumptionUnreported     Point = "in-consumption-unreported"

	// Validation (IN-01, IN-05).
	InIDAtLimitRefused     Point = "in-id-at-limit-refused"
	InIDOverLimitTaken     Point = "in-id-over-limit-taken"
	InIDOverLimitTruncated Point = "in-id-over-limit-truncated"
	InInvalidInputTaken    Point = "in-invalid-input-taken"
	InUndecodableDropped   Point = "in-undecodable-dropped"
	InInvalidInputRejected Point = "in-invalid-input-rejected"
	InInvalidInputRecorded Point = "in-invalid-input-recorded"

	// The Run's states (IN-06, IN-09).
	InUnknownRunNotReady   Point = "in-unknown-run-not-ready"
	InFinishedRunNotReady  Point = "in-finished-run-not-ready"
	InCompletingRunTaken   Point = "in-completing-run-taken"
	InClosingRouterTaken   Point = "in-closing-router-taken"
	InSetupRunInactive     Point = "in-setup-run-inactive"
	InStartingRunBusy      Point = "in-starting-run-busy"
	InNativeNotReadyAsBusy Point = "in-native-not-ready-as-busy"

	// Repeats, conflicts and the limit (IN-07, IN-08, IN-10, IN-11, IN-16).
	InConflictDurableIgnored Point = "in-conflict-durable-ignored"
	InConflictReplacesRecord Point = "in-conflict-replaces-record"
	InLimitAtLimitRefused    Point = "in-limit-at-limit-refused"
	InLimitBeforeRepeat      Point = "in-limit-before-repeat"
	InWrittenBusyIgnored     Point = "in-written-busy-ignored"
	InWrittenRepeatBusy      Point = "in-written-repeat-busy"
	InRepeatWrittenAgain     Point = "in-repeat-written-again"
	InStoredRefusalReoffered Point = "in-stored-refusal-reoffered"
	InStoredUnknownRewritten Point = "in-stored-unknown-rewritten"
	InNativeNotReadyStored   Point = "in-native-not-ready-stored"
	InBusyStored             Point = "in-busy-stored"

	// Capabilities and adapter verdicts (IN-12, IN-13, IN-14, IN-15).
	InDurableWithoutCapability Point = "in-durable-without-capability"
	InUnimplementedUnsupported Point = "in-unimplemented-unsupported"
	InEarlyRejectionWritten    Point = "in-early-rejection-written"
	InLateRejectionUnknown     Point = "in-late-rejection-unknown"
	InWriteTimeoutRejected     Point = "in-write-timeout-rejected"
	InBrokenWriteRejected      Point = "in-broken-write-rejected"
	InUnconsumedSilent         Point = "in-unconsumed-silent"
	InUnknownWriteRetried      Point = "in-unknown-write-retried"

	// Bounds (IN-17, IN-19).
	InWriteBoundEarly            Point = "in-write-bound-early"
	InWriteBoundCoversAcceptance Point = "in-write-bound-covers-acceptance"
	InDoneWaitShort              Point = "in-done-wait-short"
)
