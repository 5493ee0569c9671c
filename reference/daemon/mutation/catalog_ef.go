//go:build wirecheck_mutants

package mutation

// runtimeEF are the Runtime mutants of the EF family written from its clauses
// (scenarios/rules/clauses/EF.tsv), each before the scenario that kills it; their points are in
// points_ef.go.
var runtimeEF = []Mutant{
	{EFRTAuthenticationAsInvalidRequest, "EF-01.1", "a failure the adapter classified authentication_error goes out as invalid_request"},
	{EFRTRateLimitAsUsageLimit, "EF-01.2", "a failure the adapter classified rate_limit_exceeded goes out as usage_limit_exceeded"},
	{EFRTUsageLimitAsRateLimit, "EF-01.3", "a failure the adapter classified usage_limit_exceeded goes out as rate_limit_exceeded"},
	{EFRTOverloadedAsServerError, "EF-01.4", "a failure the adapter classified server_overloaded goes out as server_error"},
	{EFRTServerErrorAsOverloaded, "EF-01.5", "a failure the adapter classified server_error goes out as server_overloaded"},
	{EFRTInvalidRequestRenamed, "EF-01.6", "a failure the adapter classified invalid_request goes out as bad_request"},
	{EFRTNotFoundRenamed, "EF-01.7", "a failure the adapter classified resource_not_found goes out as not_found"},
	{EFRTTimeoutAsConnectionFailed, "EF-01.8", "a failure the adapter classified request_timeout goes out as connection_failed"},
	{EFRTContextLengthAsInvalidRequest, "EF-01.9", "a failure the adapter classified context_length_exceeded goes out as invalid_request"},
	{EFRTCyberPolicyDropped, "EF-01.10", "a failure the adapter classified cyber_policy goes out with no code (a code list that predates it)"},
	{EFRTConnectionFailedAsTimeout, "EF-01.11", "a failure the adapter classified connection_failed goes out as request_timeout, without its http_status"},
	{EFRTUnclassifiedDefaulted, "EF-02.5", "a native failure with no (or an unlisted, or a malformed) classification goes out with the default code server_error"},
	{EFRTStatus100Dropped, "EF-03.2", "http_status 100 beside connection_failed is dropped by the Runtime (its range checked as 101-599)"},
	{EFRTStatus599Dropped, "EF-03.4", "http_status 599 beside connection_failed is dropped by the Runtime (its range checked as 100-598)"},
	{EFRTUnclassifiableErrorDropped, "EF-04.6", "a native failure whose code is unlisted or not a string, or whose http_status is not an integer from 100 to 599, is dropped: no error frame goes out"},
	{EFRTCodeFromProse, "EF-08.2", "a native failure without classification whose text names a category goes out with that code, read from the prose"},
}
