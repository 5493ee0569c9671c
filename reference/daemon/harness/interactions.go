package harness

import "errors"

// Family is the kind of interaction a Turn asks Core to answer.
type Family string

const (
	Permission Family = "permission"  // permission_request → permission_decision
	UserChoice Family = "user_choice" // prompt_for_user_choice → prompt_for_user_choice_decision
	Function   Family = "function"    // function_call → function_result
)

// Withdrawal is the payload of a permission_cancel Event: the Turn withdrew the permission request
// RequestID. The Runtime sends it under the request ID, without a body.
type Withdrawal struct{ RequestID string }

// Interactive is a Turn that asks Core to decide (permission_request, prompt_for_user_choice) or to
// run a function (function_call) through its Events, then waits for the answer.
type Interactive interface {
	// Resolve hands the answer to the pending interaction id of family to the native Turn: a
	// *proto.PermissionDecisionPayload, *proto.PromptForUserChoiceDecisionPayload or
	// *proto.FunctionResultPayload (for a function, id is the call_id). It returns once the native
	// side applied it (nil) or refused it: ErrInteractionNotReady (nothing applied, retryable),
	// ErrInteractionUnknown (the native side knows no such pending interaction),
	// ErrInteractionUnimplemented (the adapter has no path for this family); any other error is a
	// native failure and nothing was applied.
	Resolve(family Family, id string, answer any) error
}

// Interaction errors of an Interactive Turn.
var (
	ErrInteractionNotReady      = errors.New("the native session is not yet published")
	ErrInteractionUnknown       = errors.New("the native side knows no such pending interaction")
	ErrInteractionUnimplemented = errors.New("the adapter does not implement this interaction family")
)
