package mutation

// The decision points of the Core mutants in catalog_ca.go.
const (
	CACancelUnderDeliveryID          Point = "ca-cancel-sent-under-delivery-id"
	CACancelPayloadRunID             Point = "ca-cancel-payload-carries-run-id"
	CACancelWithoutDeliveryID        Point = "ca-cancel-without-delivery-id"
	CAAppliedAckCodeAccepted         Point = "ca-applied-ack-code-accepted"
	CAUnlistedAckCodeAccepted        Point = "ca-unlisted-ack-code-accepted"
	CAInvalidOutcomeAccepted         Point = "ca-invalid-outcome-accepted"
	CAUnheldAckSettlesDecision       Point = "ca-unheld-ack-settles-decision"
	CADuplicateDeliveryReplaced      Point = "ca-duplicate-delivery-replaces-waiter"
	CACancelConfirmationEarly        Point = "ca-cancel-confirmation-early"
	CACancelTimeoutAwaited           Point = "ca-cancel-timeout-receipt-awaited"
	CAOutputUnavailableIncomplete    Point = "ca-output-unavailable-is-stream-incomplete"
	CAOutcomeUnavailableKept         Point = "ca-outcome-unavailable-kept"
	CARunInactiveBeforeDoneCompletes Point = "ca-run-inactive-before-done-completes"
	CAAppliedBeforeDoneIncomplete    Point = "ca-applied-before-done-incomplete"
	CACancelledKeepsStream           Point = "ca-cancelled-keeps-stream-not-snapshot"
	CALostReceiptDoneCompletes       Point = "ca-lost-receipt-done-completes"
	CALostReceiptRestarts            Point = "ca-lost-receipt-restarts"
	CAReadyCancelWithoutRelease      Point = "ca-ready-after-cancel-without-release"
	CAAbandonedAlsoCancelled         Point = "ca-abandoned-admission-also-prompt-cancelled"
	CAStartingCancelReleases         Point = "ca-starting-cancel-releases"
	CAAbandonedAdmissionStarted      Point = "ca-abandoned-admission-started-anyway"
	CAAckDeliveryIDTrimmed           Point = "ca-ack-delivery-id-trimmed"
	CAPendingAtDoneAfterCancelFails  Point = "ca-pending-at-done-after-cancel-fails"
	CASteerFailureAfterCancelFails   Point = "ca-steer-failure-after-cancel-fails"
)
