package mutation

// The decision points of the Core mutants in catalog_pj.go.
const (
	PJCoreCloseDeviceDisconnected  Point = "pj-core-close-device-disconnected"
	PJReplacedDeviceDisconnected   Point = "pj-replaced-device-disconnected"
	PJFailedPreparationInterrupted Point = "pj-failed-preparation-interrupted"
	PJRejectionRetried             Point = "pj-rejection-retried"
	PJStartRejectionRecovered      Point = "pj-start-rejection-recovered"
	PJStartFailureLeftToRun        Point = "pj-start-failure-left-to-run"
	PJRecoveryFailureAsStartFailed Point = "pj-recovery-failure-as-start-failed"
	PJEngineErrorTextLost          Point = "pj-engine-error-text-lost"
	PJUnclassifiedErrorCompletes   Point = "pj-unclassified-error-completes"
	PJInvalidErrorIgnored          Point = "pj-invalid-error-ignored"
	PJInvalidUsageIgnored          Point = "pj-invalid-usage-ignored"
	PJInvalidSteerAckIgnored       Point = "pj-invalid-steer-ack-ignored"
	PJResultAckBoundHalved         Point = "pj-result-ack-bound-halved"
	PJUserChoiceWaits              Point = "pj-user-choice-waits"
	PJUnsupportedPermissionDenied  Point = "pj-unsupported-permission-denied"
	PJReleaseRefusalConfirms       Point = "pj-release-refusal-confirms"
	PJReleasedUnconfirmed          Point = "pj-released-unconfirmed"
	PJEmptyDoneFails               Point = "pj-empty-done-fails"
)
