//go:build wirecheck_mutants

package mutation

// coreRS are the Core mutants of the RS family written from its clauses
// (scenarios/rules/clauses/RS.tsv), each before the scenario that kills it; their points are in
// points_rs.go.
var coreRS = []Mutant{
	{RSDeltaTextAliasAccepted, "RS-10.1", "Core takes a delta without its delta member but with a text member as a delta of that text"},
	{RSDeltaSequenceUnchecked, "RS-10.2", "Core takes a delta whose sequence is missing or negative as a delta: its text joins the content"},
	{RSThinkingTextUnchecked, "RS-10.3", "Core takes a thinking frame without a string text as a thinking frame instead of noting it invalid"},
	{RSDoneContentUnchecked, "RS-10.4", "Core takes a done whose content is missing or not a string as a valid done with empty content"},
	{RSDoneMetadataUnchecked, "RS-10.5", "Core takes a done whose metadata has a value that is not a string as a valid done (the bad value dropped)"},
	{RSToolCallIDUnchecked, "RS-11.2", "Core takes a tool_call without id or name as a tool call"},
	{RSToolResultNotObjectAccepted, "RS-11.5", "Core takes a tool_call whose result is not a JSON object as a tool call"},
	{RSObservationStatusUnchecked, "RS-11.7", "Core takes a tool_call whose observation lacks status as a tool call"},
	{RSObservationTypesUnchecked, "RS-11.8", "Core takes a tool_call whose observation has a member of the wrong type (cwd, exit_code, duration_ms, content, action) as a tool call, that member dropped"},
	{RSDoneUsageAdded, "RS-14.4", "a done.usage is added to the last usage snapshot instead of replacing it"},
	{RSMissingMeasurementRecordedZero, "RS-14.6", "a token count missing from a usage snapshot is recorded as 0 instead of unknown"},
	{RSDoneWithoutUsageForgets, "RS-15.1", "a done without usage leaves the Turn without usage instead of keeping the last usage snapshot"},
	{RSEmptyContentNotFilled, "RS-15.2", "a done with empty content leaves the Turn's content empty instead of taking the streamed text"},
	{RSModelNotFilled, "RS-15.4", "a done.usage without model leaves the model unknown instead of taking it from the last usage snapshot"},
}
