//go:build wirecheck_mutants

package mutation

// runtimeDS are the Runtime mutants of the DS family written from its clauses
// (scenarios/rules/clauses/DS.tsv), each before the scenario that kills it; their points are in
// points_ds.go.
var runtimeDS = []Mutant{
	{DSBodylessShutdownDropped, "DS-01.2", "a device_shutdown with no payload is dropped as malformed instead of acted on"},
	{DSReasonlessShutdownDropped, "DS-01.3", "a device_shutdown whose payload leaves reason out ({}) is dropped as malformed instead of acted on"},
	{DSShutdownIDAddressed, "DS-01.4", "a device_shutdown with an envelope id is taken as addressed to the Run of that ID: the other Runs are not cancelled"},
	{DSPromptRunsKept, "DS-02.2", "device_shutdown cancels the prepared Runs but not the Runs started by prompt_request"},
	{DSOneRunCancelled, "DS-02.3", "with several Runs active device_shutdown cancels only one of them"},
	{DSDoneBeforeSettlement, "DS-02.4", "a Run's done goes out as soon as device_shutdown arrives, before its native cancellation has settled"},
	{DSNoEmptyDone, "DS-02.5", "a Run cancelled by device_shutdown whose Turn produced no terminal frame gets no done: its stream never closes"},
	{DSPreparingKept, "DS-03.1", "device_shutdown leaves a preparation still preparing open: its setup goes on and its handle can start"},
	{DSIdleExecutorsKept, "DS-03.3", "device_shutdown leaves idle Executors open: the Session's next prepare is answered ready reused"},
	{DSReadOnlyPreparationsKept, "DS-03.4", "device_shutdown leaves a read-only preparation open: reads through its handle are still served"},
	{DSShutdownAnswered, "DS-04.1", "device_shutdown is answered with an error frame (\"device shutting down\") under its id"},
	{DSShutdownReceipted, "DS-04.2", "each Run device_shutdown cancels gets an interaction_decision_ack applied with its outcome, as a prompt_cancel would"},
	{DSFencedShutdownRefused, "DS-05.1", "while suspended device_shutdown is turned away by the suspension fence with an error frame, like new work"},
}
