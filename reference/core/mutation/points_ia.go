package mutation

// The decision points of the Core mutants in catalog_ia.go.
const (
	// Requests Core takes (IA-01, IA-02, IA-15).
	IAToollessRequestRegistered    Point = "ia-toolless-request-registered"
	IATitlelessRequestRegistered   Point = "ia-titleless-request-registered"
	IABadPayloadRequestRegistered  Point = "ia-bad-payload-request-registered"
	IARequestlessRegistered        Point = "ia-requestless-registered"
	IARunIDAsInteractionID         Point = "ia-run-id-as-interaction-id"
	IAAsklessPromptRegistered      Point = "ia-askless-prompt-registered"
	IAQuestionlessPromptRegistered Point = "ia-questionless-prompt-registered"
	IABlankQuestionIDRegistered    Point = "ia-blank-question-id-registered"
	IASharedQuestionIDRegistered   Point = "ia-shared-question-id-registered"
	IATextlessQuestionRegistered   Point = "ia-textless-question-registered"
	IAOptionlessQuestionRegistered Point = "ia-optionless-question-registered"
	IAMistypedPromptRegistered     Point = "ia-mistyped-prompt-registered"

	// Decisions Core sends (IA-03, IA-04, IA-14, IA-16, IA-17).
	IADecisionUnderRunID          Point = "ia-decision-under-run-id"
	IADecisionBlankDeliveryID     Point = "ia-decision-blank-delivery-id"
	IADenialOmitsApproved         Point = "ia-denial-omits-approved"
	IADeliveryIDReused            Point = "ia-delivery-id-reused"
	IADetachedStillAnswered       Point = "ia-detached-still-answered"
	IAAckWaitEarly                Point = "ia-ack-wait-early"
	IARunFramesBeforeAck          Point = "ia-run-frames-before-ack"
	IAChoiceDecisionUnderRunID    Point = "ia-choice-decision-under-run-id"
	IAChoiceBlankDeliveryID       Point = "ia-choice-blank-delivery-id"
	IAChoiceDecisionCarriesAskID  Point = "ia-choice-decision-carries-ask-id"
	IAChoiceAnswerCarriesQuestion Point = "ia-choice-answer-carries-question"
	IAChoiceCancelledAsString     Point = "ia-choice-cancelled-as-string"
	IACancelledWithAnswersSent    Point = "ia-cancelled-with-answers-sent"
	IABlankQuestionIDSent         Point = "ia-blank-question-id-sent"
	IARepeatedQuestionSent        Point = "ia-repeated-question-sent"
	IANullAnswersSent             Point = "ia-null-answers-sent"
)

// The IA mutants of the gateway's routing, written in W3.2 item 2 (catalog_ia.go).
const (
	IACoreRequestRoutedByRequestID Point = "ia-core-request-routed-by-request-id"
	IACoreCancelRoutedAsRun        Point = "ia-core-cancel-routed-as-run"
	IACoreCancelNeedsPayload       Point = "ia-core-cancel-needs-payload"
	IACoreChoiceRoutedByAskID      Point = "ia-core-choice-routed-by-ask-id"
)
