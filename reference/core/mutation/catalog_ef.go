//go:build wirecheck_mutants

package mutation

// coreEF are the Core mutants of the EF family written from its clauses
// (scenarios/rules/clauses/EF.tsv), each before the scenario that kills it; their points are in
// points_ef.go.
var coreEF = []Mutant{
	{EFCoreAuthenticationErrorUnlisted, "EF-01.1", "Core's list of accepted codes lacks authentication_error: it is stored unclassified"},
	{EFCoreRateLimitUnlisted, "EF-01.2", "Core's list of accepted codes lacks rate_limit_exceeded: it is stored unclassified"},
	{EFCoreUsageLimitUnlisted, "EF-01.3", "Core's list of accepted codes lacks usage_limit_exceeded: it is stored unclassified"},
	{EFCoreServerOverloadedUnlisted, "EF-01.4", "Core's list of accepted codes lacks server_overloaded: it is stored unclassified"},
	{EFCoreServerErrorUnlisted, "EF-01.5", "Core's list of accepted codes lacks server_error: it is stored unclassified"},
	{EFCoreInvalidRequestUnlisted, "EF-01.6", "Core's list of accepted codes lacks invalid_request: it is stored unclassified"},
	{EFCoreResourceNotFoundUnlisted, "EF-01.7", "Core's list of accepted codes lacks resource_not_found: it is stored unclassified"},
	{EFCoreRequestTimeoutUnlisted, "EF-01.8", "Core's list of accepted codes lacks request_timeout: it is stored unclassified"},
	{EFCoreContextLengthUnlisted, "EF-01.9", "Core's list of accepted codes lacks context_length_exceeded: it is stored unclassified"},
	{EFCoreCyberPolicyUnlisted, "EF-01.10", "Core's list of accepted codes lacks cyber_policy (a list that predates it): it is stored unclassified"},
	{EFCoreConnectionFailedUnlisted, "EF-01.11", "Core's list of accepted codes lacks connection_failed: it is stored unclassified, its http_status dropped"},
	{EFCoreStatusKeptWithoutCode, "EF-02.3", "an error with no code keeps an integer http_status from 100 to 599 as engine_http_status"},
	{EFCoreStatusKeptBesideUnlisted, "EF-02.4", "beside an unlisted or non-string code an integer http_status from 100 to 599 is kept as engine_http_status"},
	{EFCoreStatus100Dropped, "EF-03.2", "http_status 100 beside connection_failed is dropped (the range checked as 101-599)"},
	{EFCoreStatus99Kept, "EF-03.3", "http_status 99 beside connection_failed is kept (the range checked as 99-599)"},
	{EFCoreStatus599Dropped, "EF-03.4", "http_status 599 beside connection_failed is dropped (the range checked as 100-598)"},
	{EFCoreStatus600Kept, "EF-03.5", "http_status 600 beside connection_failed is kept (the range checked as 100-600)"},
	{EFCoreQuotedStatusKept, "EF-03.6", "a numeric string http_status (\"502\") beside connection_failed is taken for the integer and kept"},
	{EFCoreUnlistedCodeFails, "EF-04.1", "an error frame whose code is an unlisted string fails to decode: the Turn fails invalid_executor_result instead of engine_failed"},
	{EFCoreNonStringCodeFails, "EF-04.2", "an error frame whose code is not a string fails to decode: the Turn fails invalid_executor_result instead of engine_failed"},
	{EFCoreMalformedStatusFails, "EF-04.3", "an error frame whose http_status is not an integer from 100 to 599 fails to decode: invalid_executor_result instead of engine_failed"},
	{EFCoreHTTPStatusNotStored, "EF-05.2", "an accepted http_status beside connection_failed is not stored in the Turn outcome (engine_http_status stays 0)"},
	{EFCoreErrorHidesRefusedReceipt, "EF-06.4", "an error frame followed by a cancellation receipt that was not applied records engine_failed instead of cancel_unconfirmed"},
	{EFCoreErrorHidesCancelTimeout, "EF-06.5", "an error frame followed by no cancellation receipt within 15 s records engine_failed instead of cancel_unconfirmed"},
	{EFCoreErrorHidesOutcomeUnavailable, "EF-06.6", "an error frame followed by an applied receipt without outcome records engine_failed instead of cancel_outcome_unavailable"},
	{EFCoreUnlistedCodeStored, "EF-02.1", "an error frame's code that is a string outside the 11 is stored as written as engine_error_code"},
	{EFCoreNonStringCodeStored, "EF-02.2", "an error frame's code that is not a string (a number, object, ...) is stored as its JSON text as engine_error_code"},
	{EFCoreConnectionStatusDropped, "EF-03.1", "connection_failed's integer http_status from 100 to 599 is dropped at extraction: the outcome keeps the code alone"},
	{EFCoreUsageLostAfterUnclassed, "EF-04.4", "after an error frame whose http_status Core did not keep (absent or malformed), the Run's usage is left out of the outcome"},
	{EFCoreContentLostAfterUnclassd, "EF-04.5", "after an error frame whose http_status Core did not keep (absent or malformed), done's content is left out of the outcome"},
}
