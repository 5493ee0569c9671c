//go:build wirecheck_mutants

package mutation

// coreSU are the Core mutants of the SU family written from its clauses
// (scenarios/rules/clauses/SU.tsv), each before the scenario that kills it; their points are in
// points_su.go.
var coreSU = []Mutant{
	{SUSuspendIDPerEnvironment, "SU-01.10", "Core derives the suspend_id from the Environment ID: every attempt on an Environment reuses it instead of a new one per attempt"},
	{SUResumeNamesRecordID, "SU-01.11", "Core's environment_resume names the attempt's record ID as suspend_id instead of the suspend_id its quiesce sent"},
	{SUResumeSameConnection, "SU-01.12", "Core sends a resume without rollback on the very connection whose quiesce was accepted instead of refusing it (a newer connection is needed)"},
	{SUBusyRefusalUnknown, "SU-02.8", "a reply accepted:false resource_busy is taken as transient and recorded unknown instead of a definite refusal with that code"},
	{SUForeignEnvironmentTaken, "SU-03.5", "a suspension reply naming another environment_id than the request's is taken as its answer"},
	{SUReplyUnknownIDTaken, "SU-03.7", "a suspension reply whose id names no outstanding request is routed by its type to an outstanding request and taken as its answer"},
	{SUOutstandingAtLimitRefused, "SU-09.1", "with one suspension request outstanding on the connection Core refuses a second (the bound read as one)"},
	{SUAnsweredStillCounts, "SU-09.3", "an answered suspension request keeps counting against the connection's bound of two: after two replies no further request goes out"},
	{SUResumeUncounted, "SU-09.4", "resumes are counted apart from quiesces: two quiesces and a resume go out on one connection at once"},
	{SUCloseIsRefusal, "SU-10.2", "a suspension request whose connection closed before its reply is recorded refused instead of unknown"},
	{SUQuiesceResentAfterReconnect, "SU-10.3", "after the daemon reconnects, the environment_quiesce whose connection closed before its reply is sent again on the new connection"},
	{SUResumeCloseIsAck, "SU-10.4", "an environment_resume whose connection closed before its reply is recorded accepted"},
	{SUCoreRollbackAsString, "SU-01.1", "Core's environment_quiesce carries rollback as the string \"false\" instead of leaving it out (or a boolean)"},
	{SUCoreEnvironmentOmitted, "SU-01.2", "Core's suspension requests leave environment_id out"},
	{SUCoreSuspendIDOmitted, "SU-01.3", "Core's suspension requests leave suspend_id out"},
	{SUCoreRequestIDBlank, "SU-01.6", "Core's suspension requests go out with an empty envelope id"},
	{SUCoreQuiesceEnvUppercased, "SU-01.9", "Core's environment_quiesce names the Environment in upper case, not the ID it suspends byte for byte"},
	{SUCoreQuiesceRollback, "SU-01.13", "Core's environment_quiesce carries rollback:true"},
	{SUCoreReplyJudgedByID, "SU-03.6", "a reply is matched against the request's envelope id where its suspend_id belongs: a reply whose id and both identities match is not taken as the answer"},
	{SUCoreReplyWithoutEnvironmentTaken, "SU-02.1", "a suspension reply without environment_id is taken as the answer of the request its id names"},
	{SUCoreReplyWithoutSuspendIDTaken, "SU-02.2", "a suspension reply without suspend_id is taken as the answer of the request its id names"},
	{SUCoreReplyWithoutAcceptedRefusal, "SU-02.3", "a suspension reply without accepted is read as accepted:false: with a listed code it is recorded a refusal"},
}
