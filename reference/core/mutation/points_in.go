package mutation

// The decision points of the Core mutants in catalog_in.go.
const (
	// What Core sends (IN-01, IN-20).
	InSteerUnderInputID    Point = "in-steer-under-input-id"
	InResendWithoutInputID Point = "in-resend-without-input-id"
	InInputUnvalidated     Point = "in-input-unvalidated"
	InDurableReceiptString Point = "in-durable-receipt-string"
	InInputsLastFirst      Point = "in-inputs-last-first"
	InNextInputDelayed     Point = "in-next-input-delayed"

	// Receipts Core takes (IN-02).
	InAckInputIDUnchecked     Point = "in-ack-input-id-unchecked"
	InAckWithoutAcceptedTaken Point = "in-ack-without-accepted-taken"
	InAckWrittenStringTaken   Point = "in-ack-written-string-taken"
	InAckUnlistedCodeRetried  Point = "in-ack-unlisted-code-retried"
	InAckNeitherPhaseRetried  Point = "in-ack-neither-phase-retried"

	// The 30 s written bound and the cursor (IN-21, IN-22).
	InWrittenBoundEarly  Point = "in-written-bound-early"
	InWrittenKeepsBound  Point = "in-written-keeps-bound"
	InUnknownInputResent Point = "in-unknown-input-resent"
	InFailedSendAdvances Point = "in-failed-send-advances"

	// Each receipt code (IN-23).
	InBusyFinal                Point = "in-busy-final"
	InRejectedResent           Point = "in-rejected-resent"
	InConflictAsRejected       Point = "in-conflict-as-rejected"
	InUnknownCodeResent        Point = "in-unknown-code-resent"
	InUnsupportedResent        Point = "in-unsupported-resent"
	InContractViolationIgnored Point = "in-contract-violation-ignored"
	InRunInactiveIgnored       Point = "in-run-inactive-ignored"
	InInvalidInputAsRejected   Point = "in-invalid-input-as-rejected"
	InLimitCodeSkipsInput      Point = "in-limit-code-skips-input"
)

// The IN mutant of the gateway's routing, written in W3.2 item 2 (catalog_in.go).
const INCoreAckRoutedByInputID Point = "in-core-ack-routed-by-input-id"
