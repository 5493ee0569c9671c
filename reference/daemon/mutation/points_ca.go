package mutation

// The decision points of the Runtime mutants in catalog_ca.go.
const (
	CACancelCancelsEveryRun       Point = "ca-cancel-cancels-every-run"
	CAInvalidCancelServed         Point = "ca-invalid-cancel-served"
	CAPayloadlessCancelDropped    Point = "ca-payloadless-cancel-dropped"
	CALegacyCancelIgnored         Point = "ca-legacy-cancel-ignored"
	CAFinishedRunCancelApplied    Point = "ca-finished-run-cancel-applied"
	CADoneBeforeSettlement        Point = "ca-done-before-settlement"
	CACancelledTurnWithoutDone    Point = "ca-cancelled-turn-without-done"
	CADirectReceiptWithoutOutcome Point = "ca-direct-receipt-without-outcome"
	CADirectCancelledWithoutDone  Point = "ca-direct-cancelled-without-done"
	CAFailedCancelClosesRun       Point = "ca-failed-cancel-closes-run"
	CAConfirmationTimerEarly      Point = "ca-confirmation-timer-early"
	CATimeoutDropsDone            Point = "ca-timeout-drops-done"
	CATimeoutClosesStream         Point = "ca-timeout-closes-stream"
	CAOutcomeContentDropped       Point = "ca-outcome-content-dropped"
	CAOutcomeIdentityDropped      Point = "ca-outcome-identity-dropped"
	CAOutcomeUsageDropped         Point = "ca-outcome-usage-dropped"
	CAAbortedStartWithoutOutcome  Point = "ca-aborted-start-without-outcome"
	CATimedOutCancelAppliedLater  Point = "ca-timed-out-cancel-applied-later"
	CAReceiptEchoesEnvelopeID     Point = "ca-receipt-echoes-envelope-id"
	CAUnappliedAckOmitsApplied    Point = "ca-unapplied-ack-omits-applied"
	CARunInactiveAsNotPending     Point = "ca-run-inactive-as-not-pending"
	CAOutcomeAsDoneEnvelope       Point = "ca-outcome-as-done-envelope"
	CAReceiptUnderDeliveryID      Point = "ca-receipt-under-delivery-id"
)
