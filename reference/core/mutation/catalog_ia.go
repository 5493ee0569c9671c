//go:build wirecheck_mutants

package mutation

// coreIA are the Core mutants of the IA family written from its clauses
// (scenarios/rules/clauses/IA.tsv), each before the scenario that kills it; their points are in
// points_ia.go.
var coreIA = []Mutant{
	// Requests Core takes.
	{IAToollessRequestRegistered, "IA-01.3", "a permission_request without tool is registered as an interaction to answer instead of refused"},
	{IATitlelessRequestRegistered, "IA-01.4", "a permission_request without title is registered as an interaction to answer instead of refused"},
	{IABadPayloadRequestRegistered, "IA-01.5", "a permission_request whose payload is not a JSON object is registered (the payload dropped) instead of refused"},
	{IARequestlessRegistered, "IA-02.1", "a permission_request without request_id is registered under an empty interaction ID instead of dropped"},
	{IARunIDAsInteractionID, "IA-02.3", "a permission_request without request_id is registered under the Run ID, so its decision goes out with id = Run ID"},
	{IAAsklessPromptRegistered, "IA-15.2", "a prompt_for_user_choice without ask_id is registered under an empty interaction ID instead of refused"},
	{IAQuestionlessPromptRegistered, "IA-15.3", "a prompt_for_user_choice without questions is registered as a prompt of none instead of refused"},
	{IABlankQuestionIDRegistered, "IA-15.4", "a prompt_for_user_choice with a blank question id is registered instead of refused"},
	{IASharedQuestionIDRegistered, "IA-15.5", "a prompt_for_user_choice whose questions share an id is registered instead of refused"},
	{IATextlessQuestionRegistered, "IA-15.6", "a prompt_for_user_choice with a question without its question text is registered instead of refused"},
	{IAMistypedPromptRegistered, "IA-15.8", "a prompt_for_user_choice whose optional members have other types (multi_select \"yes\", auto_resolution_ms \"5\") is registered without them instead of refused"},
	{IAOptionlessQuestionRegistered, "IA-15.7", "a prompt_for_user_choice with a question without options is registered instead of refused"},

	// Decisions Core sends.
	{IADecisionUnderRunID, "IA-03.1", "permission_decision goes out under the Run ID instead of the request's request_id"},
	{IADecisionBlankDeliveryID, "IA-03.2", "permission_decision goes out with the caller's answer as is: no delivery_id of Core's (blank)"},
	{IADenialOmitsApproved, "IA-03.3", "a denial leaves approved out (false omitted) instead of approved: false"},
	{IADeliveryIDReused, "IA-03.6", "every decision of a Run goes out with the same delivery_id: the sequence number is never advanced"},
	{IADetachedStillAnswered, "IA-04.3", "a permission request withdrawn by permission_cancel still takes a caller's answer, and the decision goes out"},
	{IAAckWaitEarly, "IA-14.1", "the wait for a decision's ack gives up after 7.5 s instead of 15 s: an ack at 10 s no longer settles it"},
	{IARunFramesBeforeAck, "IA-14.1", "the Run's frames waiting when a decision's ack is taken are handled first, done included: an ack sent just before done no longer settles its decision"},
	{IAChoiceDecisionUnderRunID, "IA-16.1", "prompt_for_user_choice_decision goes out under the Run ID instead of the prompt's ask_id"},
	{IAChoiceBlankDeliveryID, "IA-16.2", "prompt_for_user_choice_decision goes out without Core's delivery_id (blank)"},
	{IAChoiceDecisionCarriesAskID, "IA-16.4", "prompt_for_user_choice_decision carries an ask_id member at its top level, a member the payload does not have"},
	{IAChoiceAnswerCarriesQuestion, "IA-16.5", "each question_answers entry carries the question's text beside question_id and answers, a member the entry does not have"},
	{IAChoiceCancelledAsString, "IA-16.6", "a cancelling user-choice decision carries cancelled as the string \"true\" instead of a boolean"},
	{IACancelledWithAnswersSent, "IA-17.1", "a caller's user-choice answer with cancelled: true beside question_answers is taken and sent instead of refused"},
	{IABlankQuestionIDSent, "IA-17.2", "a caller's user-choice answer with a blank question_id is taken and sent instead of refused"},
	{IARepeatedQuestionSent, "IA-17.3", "a caller's user-choice answer naming a question_id twice is taken and sent instead of refused"},
	{IANullAnswersSent, "IA-17.4", "a caller's user-choice answer with answers: null is taken and sent as null instead of refused"},
	{IACoreRequestRoutedByRequestID, "IA-01.1", "Core routes a permission_request by its payload's request_id, as if the interaction ID were its envelope id, instead of by the envelope id (the Run ID)"},
	{IACoreCancelRoutedAsRun, "IA-04.1", "Core reads a permission_cancel's envelope id as a Run ID instead of the withdrawn request's request_id: the cancellation reaches no request"},
	{IACoreCancelNeedsPayload, "IA-04.2", "Core drops a permission_cancel that carries no payload, as if it needed one"},
	{IACoreChoiceRoutedByAskID, "IA-15.1", "Core routes a prompt_for_user_choice by its payload's ask_id instead of by the envelope id (the Run ID)"},
}
