//go:build wirecheck_mutants

package mutation

// runtimeIA are the Runtime mutants of the IA family written from its clauses
// (scenarios/rules/clauses/IA.tsv), each before the scenario that kills it; their points are in
// points_ia.go.
var runtimeIA = []Mutant{
	// What the Runtime sends.
	{IARequestUnderRequestID, "IA-01.1", "permission_request goes out under envelope id = its request_id instead of the Run ID"},
	{IARequestIDLeftOut, "IA-01.2", "permission_request leaves request_id out of its payload"},
	{IARequestToolLeftOut, "IA-01.3", "permission_request leaves the required tool out"},
	{IARequestTitleLeftOut, "IA-01.4", "permission_request leaves the required title out"},
	{IARequestPayloadAsString, "IA-01.5", "permission_request carries its payload as a JSON-encoded string instead of the object"},
	{IACancelUnderRunID, "IA-04.1", "permission_cancel goes out under the Run ID instead of the withdrawn request's request_id"},
	{IACancelWithPayload, "IA-04.2", "permission_cancel carries a payload naming the request_id"},
	{IAPromptUnderAskID, "IA-15.1", "prompt_for_user_choice goes out under envelope id = its ask_id instead of the Run ID"},
	{IAPromptAskIDLeftOut, "IA-15.2", "prompt_for_user_choice leaves ask_id out of its payload"},
	{IAPromptQuestionsNull, "IA-15.3", "prompt_for_user_choice carries questions: null instead of the array"},
	{IAPromptQuestionIDBlank, "IA-15.4", "the questions of prompt_for_user_choice go out with blank ids"},
	{IAPromptQuestionIDShared, "IA-15.5", "every question of a prompt_for_user_choice goes out with the first question's id"},
	{IAPromptQuestionTextOut, "IA-15.6", "the questions of prompt_for_user_choice leave their question text out"},
	{IAPromptOptionsNull, "IA-15.7", "the questions of prompt_for_user_choice carry options: null instead of the array"},
	{IAPromptAutoMSString, "IA-15.8", "prompt_for_user_choice carries auto_resolution_ms as a string"},

	// Decisions the Runtime takes.
	{IADecisionByRunIDTaken, "IA-03.1", "a permission_decision under a Run ID is applied to that Run's one pending permission request instead of answered not_pending"},
	{IADecisionWithoutApproved, "IA-03.3", "a permission_decision without approved is taken as a denial instead of refused"},
	{IADecisionMessageMistyped, "IA-03.5", "a permission_decision whose message is not a string is taken (the message dropped) instead of refused"},
	{IAChoiceByRunIDTaken, "IA-16.1", "a prompt_for_user_choice_decision under a Run ID is applied to that Run's one pending prompt instead of answered not_pending"},
	{IAUpdatedInputDropped, "IA-03.4", "an approval's updated_input is dropped before the decision reaches the native side"},
	{IABlankIDDecisionAcked, "IA-05.2", "a permission_decision with a blank envelope id and a delivery_id is acknowledged (under the blank id) instead of dropped"},
	{IADroppedDecisionConsumes, "IA-05.3", "a decision dropped for its missing delivery_id withdraws the request it names: a later valid decision is not_pending"},
	{IAChoiceUnaddressedAcked, "IA-05.4", "a prompt_for_user_choice_decision without delivery_id is acknowledged instead of dropped"},
	{IAChoiceUnknownMemberTaken, "IA-16.4", "a user-choice decision with an unknown top-level member is taken (the member ignored) instead of refused"},
	{IAChoiceInnerMemberTaken, "IA-16.5", "a user-choice decision with an unknown member inside a question_answers entry is taken instead of refused"},
	{IAChoiceCancelledString, "IA-16.6", "a user-choice decision whose cancelled is the string \"true\" is taken as a cancellation instead of refused"},
	{IAChoiceCancelledAnswers, "IA-17.1", "a user-choice decision with cancelled: true beside question_answers is taken instead of refused"},
	{IAChoiceBlankQuestionID, "IA-17.2", "a question_answers entry with a blank question_id is taken (the entry ignored) instead of refusing the decision"},
	{IAChoiceRepeatedQuestion, "IA-17.3", "a question_id answered twice in question_answers is taken (the last answer wins) instead of refused"},
	{IAChoiceNullAnswers, "IA-17.4", "a question_answers entry with answers: null is taken as [] instead of refused"},
	{IAChoiceEmptyAnswersOut, "IA-17.5", "an answer of [] is dropped before the decision reaches the native side, as if the question were left out"},
	{IAForeignCheckConsumes, "IA-18.2", "a user-choice decision refused for a foreign question_id consumes the prompt: a later valid decision is not_pending"},
	{IAAnswersByPosition, "IA-19.1", "answers reach the native side matched to the prompt's questions by their position in question_answers, not by question_id"},
	{IAHeaderNamesQuestion, "IA-19.2", "a question_id equal to a question's header is taken as that question's answer instead of refused as foreign"},
	{IAUnansweredFilled, "IA-19.3", "a question left out of question_answers reaches the native side answered with its first option"},

	// The applied-decision memory and the pending interactions.
	{IAReplayReachesNative, "IA-06.2", "an identical replay of an applied decision is handed to the native side again before it is acknowledged applied:true"},
	{IAMemoryClearedAtRunEnd, "IA-06.3", "the applied decisions of a Run leave the replay memory when its Turn finishes: a later identical replay is not_pending"},
	{IAConflictReplacesMemory, "IA-07.2", "a conflicting decision, answered decision_conflict, replaces the applied one in the replay memory: a replay of the first is then decision_conflict"},
	{IAUnknownIDNotReady, "IA-08.1", "a decision for an interaction ID never emitted is answered not_ready (perhaps not published yet) instead of not_pending"},
	{IAWithdrawnAsConflict, "IA-08.2", "a withdrawn request is remembered as answered: a decision for it is decision_conflict instead of not_pending"},
	{IAEndedRunStillPending, "IA-08.3", "the requests a finished Turn left unanswered stay pending: a decision for one is handed to the native side instead of answered not_pending"},
	{IANativeUnknownFailed, "IA-08.4", "a decision the native side reports as an unknown permission is answered runtime_error instead of not_pending"},
	{IARoutesSurviveReconnect, "IA-08.5", "the interaction routes outlive the connection: after a reconnect a decision for a request of the previous connection is applied instead of not_pending"},
	{IANotPublishedFailed, "IA-09.1", "a decision that arrives before the native session is published is answered runtime_error instead of not_ready"},
	{IAUnimplementedUnsupported, "IA-11.1", "a decision for a kind that declares permissions but whose adapter has no path for it is answered unsupported instead of contract_violation"},
	{IAFailedAttemptConsumes, "IA-11.3", "a decision answered contract_violation or runtime_error consumes the request: a later decision is not_pending"},
	{IAMemoryHolds1023, "IA-13.1", "the applied-decision memory evicts its oldest entry once it holds 1023: with 1024 applied the first replay is no longer applied:true"},
	{IAMemoryUnbounded, "IA-13.2", "the applied-decision memory has no entry bound: past 1024 entries nothing is evicted"},
	{IAMemoryExpiresEarly, "IA-13.4", "an applied decision leaves the replay memory after 30 min instead of 1 h"},

	// Acks.
	{IAAckDeliveryIsInteraction, "IA-12.1", "an applied ack carries the interaction ID as its delivery_id instead of the decision's delivery_id"},
	{IAAppliedBeforeNative, "IA-12.2", "a permission decision is acknowledged applied:true before it is handed to the native side, whatever the native outcome"},
	{IAAckUnderRunID, "IA-12.3", "the ack of a permission decision goes out under the Run ID instead of the request_id"},
	{IAChoiceUndeclaredServed, "IA-20.1", "a prompt_for_user_choice_decision is served for a kind that does not declare permissions instead of unsupported"},
	{IAChoiceAckUnderRunID, "IA-20.2", "the ack of a user-choice decision goes out under the Run ID instead of the ask_id"},
	{IAChoiceUnknownAsViolation, "IA-20.3", "a user-choice decision for a prompt no longer (or never) pending is checked against an empty question set and answered contract_violation instead of not_pending"},
	{IAChoiceReplayForgotten, "IA-20.4", "applied user-choice decisions do not enter the replay memory: an identical replay is not_pending instead of applied:true"},
	{IAChoiceNotReadyFailed, "IA-20.5", "a user-choice decision that arrives before the native session is published is answered runtime_error instead of not_ready"},
	{IAChoiceRefusalOwnCode, "IA-20.6", "a user-choice decision refused by strict decoding is answered invalid_decision, a code outside the §4.8 set"},
}
