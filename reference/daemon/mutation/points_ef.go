package mutation

// The decision points of the Runtime mutants in catalog_ef.go.
const (
	EFRTAuthenticationAsInvalidRequest Point = "ef-rt-authentication-as-invalid-request"
	EFRTRateLimitAsUsageLimit          Point = "ef-rt-rate-limit-as-usage-limit"
	EFRTUsageLimitAsRateLimit          Point = "ef-rt-usage-limit-as-rate-limit"
	EFRTOverloadedAsServerError        Point = "ef-rt-overloaded-as-server-error"
	EFRTServerErrorAsOverloaded        Point = "ef-rt-server-error-as-overloaded"
	EFRTInvalidRequestRenamed          Point = "ef-rt-invalid-request-renamed"
	EFRTNotFoundRenamed                Point = "ef-rt-not-found-renamed"
	EFRTTimeoutAsConnectionFailed      Point = "ef-rt-timeout-as-connection-failed"
	EFRTContextLengthAsInvalidRequest  Point = "ef-rt-context-length-as-invalid-request"
	EFRTCyberPolicyDropped             Point = "ef-rt-cyber-policy-dropped"
	EFRTConnectionFailedAsTimeout      Point = "ef-rt-connection-failed-as-timeout"
	EFRTUnclassifiedDefaulted          Point = "ef-rt-unclassified-defaulted"
	EFRTStatus100Dropped               Point = "ef-rt-status-100-dropped"
	EFRTStatus599Dropped               Point = "ef-rt-status-599-dropped"
	EFRTUnclassifiableErrorDropped     Point = "ef-rt-unclassifiable-error-dropped"
	EFRTCodeFromProse                  Point = "ef-rt-code-from-prose"
)
