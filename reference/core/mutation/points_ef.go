package mutation

// The decision points of the Core mutants in catalog_ef.go.
const (
	EFCoreAuthenticationErrorUnlisted  Point = "ef-core-authentication-error-unlisted"
	EFCoreRateLimitUnlisted            Point = "ef-core-rate-limit-unlisted"
	EFCoreUsageLimitUnlisted           Point = "ef-core-usage-limit-unlisted"
	EFCoreServerOverloadedUnlisted     Point = "ef-core-server-overloaded-unlisted"
	EFCoreServerErrorUnlisted          Point = "ef-core-server-error-unlisted"
	EFCoreInvalidRequestUnlisted       Point = "ef-core-invalid-request-unlisted"
	EFCoreResourceNotFoundUnlisted     Point = "ef-core-resource-not-found-unlisted"
	EFCoreRequestTimeoutUnlisted       Point = "ef-core-request-timeout-unlisted"
	EFCoreContextLengthUnlisted        Point = "ef-core-context-length-unlisted"
	EFCoreCyberPolicyUnlisted          Point = "ef-core-cyber-policy-unlisted"
	EFCoreConnectionFailedUnlisted     Point = "ef-core-connection-failed-unlisted"
	EFCoreStatusKeptWithoutCode        Point = "ef-core-status-kept-without-code"
	EFCoreStatusKeptBesideUnlisted     Point = "ef-core-status-kept-beside-unlisted"
	EFCoreStatus100Dropped             Point = "ef-core-status-100-dropped"
	EFCoreStatus99Kept                 Point = "ef-core-status-99-kept"
	EFCoreStatus599Dropped             Point = "ef-core-status-599-dropped"
	EFCoreStatus600Kept                Point = "ef-core-status-600-kept"
	EFCoreQuotedStatusKept             Point = "ef-core-quoted-status-kept"
	EFCoreUnlistedCodeFails            Point = "ef-core-unlisted-code-fails"
	EFCoreNonStringCodeFails           Point = "ef-core-non-string-code-fails"
	EFCoreMalformedStatusFails         Point = "ef-core-malformed-status-fails"
	EFCoreHTTPStatusNotStored          Point = "ef-core-http-status-not-stored"
	EFCoreErrorHidesRefusedReceipt     Point = "ef-core-error-hides-refused-receipt"
	EFCoreErrorHidesCancelTimeout      Point = "ef-core-error-hides-cancel-timeout"
	EFCoreErrorHidesOutcomeUnavailable Point = "ef-core-error-hides-outcome-unavailable"
)

// The EF mutants written in W3.2 item 2 (catalog_ef.go).
const (
	EFCoreUnlistedCodeStored       Point = "ef-core-unlisted-code-stored"
	EFCoreNonStringCodeStored      Point = "ef-core-non-string-code-stored"
	EFCoreConnectionStatusDropped  Point = "ef-core-connection-status-dropped"
	EFCoreUsageLostAfterUnclassed  Point = "ef-core-usage-lost-after-unclassified"
	EFCoreContentLostAfterUnclassd Point = "ef-core-content-lost-after-unclassified"
)
