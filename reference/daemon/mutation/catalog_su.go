//go:build wirecheck_mutants

package mutation

// runtimeSU are the Runtime mutants of the SU family written from its clauses
// (scenarios/rules/clauses/SU.tsv), each before the scenario that kills it; their points are in
// points_su.go.
var runtimeSU = []Mutant{
	{SUSuspendIDAtLimitRefused, "SU-01.4", "a quiesce whose suspend_id is exactly 128 bytes is refused invalid_request (the bound is checked as < 128)"},
	{SUResumeSuspendIDOverLimit, "SU-01.5", "a resume whose suspend_id is 129 bytes is taken as valid (the bound is checked as <= 129) and answered not_suspended instead of invalid_request"},
	{SURequestIDAtLimitUnanswered, "SU-01.7", "a quiesce or resume whose request id is exactly 128 bytes is taken as oversized and gets no reply"},
	{SUAcceptedFalseOmitted, "SU-02.3", "a refusal leaves accepted out (a false boolean omitted, as omitempty would) instead of encoding accepted:false"},
	{SUDrainedReplyBySuspendID, "SU-03.1", "the reply that ends a drain carries the suspend_id as its envelope id instead of the quiesce's request id"},
	{SURefusalNamesBoundEnvironment, "SU-03.2", "a quiesce refused for naming another Environment is answered with the bound Environment's ID instead of the request's"},
	{SUBusyReplyNamesHeldAttempt, "SU-03.3", "a quiesce refused resource_busy because another attempt holds the Environment echoes the held attempt's suspend_id instead of the request's"},
	{SUQuiesceSuspendIDOverLimit, "SU-04.6", "a quiesce whose suspend_id is 129 bytes is served (the bound is checked as <= 129) instead of accepted:false invalid_request"},
	{SURefusedQuiesceFences, "SU-04.7", "a quiesce refused invalid_request still raises the suspension fence: the Runtime stops admitting work"},
	{SUQuiesceBesideInteraction, "SU-05.2", "a Run whose interaction awaits Core's answer counts as idle: the Runtime quiesces beside it instead of answering resource_busy"},
	{SUQuiesceDuringTransfer, "SU-05.3", "a pending runtime_prepare transfer does not count against idleness: the quiesce is served instead of resource_busy"},
	{SUQuiesceDuringRead, "SU-05.4", "a workspace read in flight does not count against idleness: the quiesce is served instead of resource_busy"},
	{SUQuiesceDuringWrite, "SU-05.5", "a workspace write in progress does not count against idleness: the quiesce is served instead of resource_busy"},
	{SUQuiesceDuringExport, "SU-05.6", "an export in progress does not count against idleness: the quiesce is served instead of resource_busy"},
	{SUQuiesceBesideOwnedPreparation, "SU-05.7", "an owned preparation (preparing, ready or starting) does not count against idleness: the quiesce is served instead of resource_busy"},
	{SUQuiesceBesideBusyExecutor, "SU-05.8", "Executors are not looked at for idleness: a closing Executor or one with unconfirmed cleanup does not make the quiesce resource_busy"},
	{SUQuiesceOtherAttemptAccepted, "SU-05.10", "while suspended under one suspend_id, a quiesce naming the same Environment under another suspend_id is answered accepted:true instead of resource_busy"},
	{SUAcceptedBeforeDrain, "SU-05.11", "accepted:true goes out as soon as the quiesce is admitted, before the drain has closed the idle Executors"},
	{SUDrainBudgetHalved, "SU-05.12", "the drain gives up after 2.5 s instead of 5 s: a drain of 3 s is answered resource_busy"},
	{SUBusyDrainStaysFenced, "SU-05.14", "a drain over 5 s is answered resource_busy but the Runtime stays suspended and refuses work"},
	{SUReadOnlyPrepareAdmitted, "SU-06.2", "after accepted:true a read-only execution_prepare is admitted instead of refused"},
	{SUPromptRequestRuns, "SU-06.3", "after accepted:true a prompt_request runs a Turn instead of error then done"},
	{SURuntimePrepareAdmitted, "SU-06.4", "after accepted:true a runtime_prepare begin is answered ready instead of rejected resource_unavailable"},
	{SUWriteAdmitted, "SU-06.5", "after accepted:true a workspace_write begin is answered ready instead of rejected resource_unavailable"},
	{SUParkClosesConnection, "SU-06.7", "once quiesced the Runtime closes the parked connection (1000) instead of keeping it open until the host wakes it"},
	{SUSuspensionEndsWithConnection, "SU-06.8", "the suspension ends with the parked connection: on a new connection work is admitted again without a resume"},
	{SUResumeKeepsFence, "SU-07.2", "a resume naming the suspended pair on a new connection is answered accepted:true but the fence stays: work is still refused"},
	{SUResumeOtherEnvironment, "SU-07.4", "a resume on a new connection naming the suspended suspend_id under another environment_id is accepted instead of not_suspended"},
	{SUResumeRunningAccepted, "SU-07.6", "a resume without rollback on a Runtime that is not suspended is answered accepted:true (a no-op) instead of not_suspended"},
	{SURollbackResumeDrains, "SU-08.2", "a rollback:true resume on a running source closes its idle Executors (rolls the suspension back) instead of changing nothing"},
}
