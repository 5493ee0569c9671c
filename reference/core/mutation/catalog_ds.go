//go:build wirecheck_mutants

package mutation

// coreDS are the Core mutants of the DS family written from its clauses
// (scenarios/rules/clauses/DS.tsv), each before the scenario that kills it; their points are in
// points_ds.go.
var coreDS = []Mutant{
	{DSCoreShutdownNamesDevice, "DS-01.5", "Core's device_shutdown payload carries a device_id member beside reason"},
	{DSCoreShutdownEndsRuns, "DS-06.1", "sending device_shutdown ends the device's Run subscriptions with an error: the Turns fail event_stream_incomplete at once instead of staying open for their done"},
	{DSCoreDoneAfterShutdownCancelled, "DS-06.2", "a done that closes a Run's stream after device_shutdown records the Turn cancelled (with done's content) instead of the outcome the stream reports"},
	{DSCoreLossAfterShutdownCancels, "DS-06.3", "a connection lost after device_shutdown before done records the Turn cancelled instead of failed/event_stream_incomplete"},
}
