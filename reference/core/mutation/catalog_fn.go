//go:build wirecheck_mutants

package mutation

// coreFN are the Core mutants of the FN family written from its clauses
// (scenarios/rules/clauses/FN.tsv), each before the scenario that kills it; their points are in
// points_fn.go.
var coreFN = []Mutant{
	{FNCoreBlankToolName, "FN-01.1", "Core admits a Turn whose function tool has a blank name and sends it in execution_prepare"},
	{FNCoreDeferredWithoutSearch, "FN-02.2", "Core admits a Turn with a deferred function tool and no tool_search and sends it"},
	{FNCoreCallWithoutIDTaken, "FN-05.2", "Core takes a function_call without call_id (or a blank one) as a pending call instead of failing the Turn function_call_invalid"},
	{FNCoreCallWithoutNameTaken, "FN-05.3", "Core takes a function_call without name as a pending call instead of failing the Turn function_call_invalid"},
	{FNCoreCallWithoutArgumentsTaken, "FN-05.4", "Core takes a function_call without arguments as a pending call instead of failing the Turn function_call_invalid"},
	{FNCoreResultWithoutDelivery, "FN-06.2", "Core sends function_result without a delivery_id"},
	{FNCoreResultWithoutCallID, "FN-06.3", "Core sends function_result without the call_id of the call it answers"},
	{FNCoreFalseSuccessOmitted, "FN-06.4", "Core leaves success out of a function_result when it is false"},
	{FNCoreEmptyContentNull, "FN-06.5", "Core sends an empty function result's content as null instead of []"},
	{FNCoreContentPartsUnchecked, "FN-06.6", "Core takes a caller's function result whose content part is not a valid InputContent (unknown type, missing or extra member) and sends it"},
	{FNCoreCallRoutedByCallID, "FN-05.1", "Core routes a function_call by its payload's call_id instead of by the envelope id (the Run ID)"},
	{FNCoreEmptyDescriptionOmitted, "FN-01.2", "a function tool whose description is empty goes out without the member"},
	{FNCoreDeferLoadingAsString, "FN-01.4", "a function tool's defer_loading true goes out as the string \"true\""},
}
