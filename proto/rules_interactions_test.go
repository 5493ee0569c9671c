package proto_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// Interactions, active input, functions and MessageInput (facts §4.8–§4.12, §4.18).

func TestRulesInteractions(t *testing.T) { runCases(t, interactionCases()) }
func TestRulesSteering(t *testing.T)     { runCases(t, steerCases()) }
func TestRulesFunctions(t *testing.T)    { runCases(t, functionCases()) }
func TestRulesMessageInput(t *testing.T) { runCases(t, messageInputCases()) }

// userChoice is the request the decision cases answer.
func userChoice() *proto.PromptForUserChoicePayload {
	f, err := proto.ParseFrame([]byte(frame("prompt_for_user_choice", "run-1",
		`{"ask_id":"ask-1","questions":[{"id":"q1","header":"Deploy","question":"Proceed?","options":[{"label":"yes"},{"label":"no"}]},{"id":"q2","question":"Which region?","multi_select":true,"is_other":true,"options":[{"label":"eu","description":"Europe"}]}]}`)))
	if err != nil {
		panic(err)
	}
	return f.Payload.(*proto.PromptForUserChoicePayload)
}

func interactionCases() []frameCase {
	type c = frameCase
	decision := func(members string) string {
		return frame("prompt_for_user_choice_decision", "ask-1", `{"delivery_id":"d-1"`+members+`}`)
	}
	belongs := func(f *proto.Frame) error {
		return payloadOf[proto.PromptForUserChoiceDecisionPayload](f).CheckAnswersBelongTo(userChoice())
	}
	ack := func(members string) string { return frame("interaction_decision_ack", "perm-1", "{"+members+"}") }
	const qa = "prompt_for_user_choice_decision: question_answers have a unique non-blank question_id and an answers array ([] is an explicit non-answer)"
	cases := []frameCase{
		{rule: "permission_request: request_id (the interaction ID), tool and title are required", frame: frame("permission_request", "run-1", `{"request_id":"perm-1","tool":"shell","title":"Run ls?","detail":"in /workspace","payload":{"command":"ls"}}`)},
		{rule: "permission_request: request_id (the interaction ID), tool and title are required", frame: frame("permission_request", "run-1", `{"tool":"shell","title":"Run ls?"}`), want: "permission_request.request_id: is required"},
		{rule: "permission_request: request_id (the interaction ID), tool and title are required", frame: frame("permission_request", "run-1", `{"request_id":" ","tool":"shell","title":"Run ls?"}`), want: "permission_request.request_id: must not be blank"},
		{rule: "permission_request: request_id (the interaction ID), tool and title are required", frame: frame("permission_request", "run-1", `{"request_id":"p","title":"Run ls?"}`), want: "permission_request.tool: is required"},
		{rule: "permission_request: request_id (the interaction ID), tool and title are required", frame: frame("permission_request", "run-1", `{"request_id":"p","tool":"shell","title":"t","payload":"ls"}`), want: "permission_request.payload: must be a JSON object"},
		{rule: "permission_decision: delivery_id (non-blank) and approved are required", frame: frame("permission_decision", "perm-1", `{"delivery_id":"d-1","approved":false,"message":"no"}`)},
		{rule: "permission_decision: delivery_id (non-blank) and approved are required", frame: frame("permission_decision", "perm-1", `{"delivery_id":"","approved":true}`), want: "permission_decision.delivery_id: must not be blank"},
		{rule: "permission_decision: delivery_id (non-blank) and approved are required", frame: frame("permission_decision", "perm-1", `{"approved":true}`), want: "permission_decision.delivery_id: is required"},
		{rule: "permission_decision: delivery_id (non-blank) and approved are required", frame: frame("permission_decision", "perm-1", `{"delivery_id":"d-1"}`), want: "permission_decision.approved: is required"},
		{rule: "permission_decision: updated_input is a JSON object", frame: frame("permission_decision", "perm-1", `{"delivery_id":"d-1","approved":true,"updated_input":{"command":"ls -la"}}`)},
		{rule: "permission_decision: updated_input is a JSON object", frame: frame("permission_decision", "perm-1", `{"delivery_id":"d-1","approved":true,"updated_input":"ls -la"}`), want: "permission_decision.updated_input: must be a JSON object"},

		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"ask-1","questions":[{"id":"q1","question":"?","options":[]},{"id":"q2","question":"?","options":[{"label":"a"}],"is_secret":true}],"tool_use_id":"tu-1","auto_resolution_ms":30000}`)},
		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"","questions":[]}`), want: "prompt_for_user_choice.ask_id: must not be blank"},
		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"a"}`), want: "prompt_for_user_choice.questions: is required"},
		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"a","questions":[{"id":"q1","question":"?","options":[]},{"id":"q1","question":"?","options":[]}]}`), want: "prompt_for_user_choice.questions[1].id: must be unique"},
		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"a","questions":[{"id":" ","question":"?","options":[]}]}`), want: "prompt_for_user_choice.questions[0].id: must not be blank"},
		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"a","questions":[{"id":"q","question":"?","options":[{"description":"x"}]}]}`), want: "prompt_for_user_choice.questions[0].options[0].label: is required"},
		{rule: "prompt_for_user_choice: ask_id and questions are required; question ids are unique and not blank; options are required", frame: frame("prompt_for_user_choice", "run-1", `{"ask_id":"a","questions":[{"id":"q","question":"?","options":[]}],"auto_resolution_ms":-1}`), want: "prompt_for_user_choice.auto_resolution_ms: must not be negative"},

		{rule: "prompt_for_user_choice_decision: delivery_id is required and not blank", frame: decision(`,"question_answers":[{"question_id":"q1","answers":["yes"]}]`)},
		{rule: "prompt_for_user_choice_decision: delivery_id is required and not blank", frame: frame("prompt_for_user_choice_decision", "ask-1", `{"delivery_id":" ","cancelled":true}`), want: "prompt_for_user_choice_decision.delivery_id: must not be blank"},
		{rule: "prompt_for_user_choice_decision: delivery_id is required and not blank", frame: frame("prompt_for_user_choice_decision", "ask-1", `{"cancelled":true}`), want: "prompt_for_user_choice_decision.delivery_id: is required"},
		{rule: "prompt_for_user_choice_decision: the payload is a JSON object", frame: decision(``)},
		{rule: "prompt_for_user_choice_decision: the payload is a JSON object", frame: frame("prompt_for_user_choice_decision", "ask-1", `[{"question_id":"q1","answers":[]}]`), want: "prompt_for_user_choice_decision.payload: must be a JSON object"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"q2","answers":["eu","us"]},{"question_id":"q1","answers":[]}]`)},
		{rule: qa, frame: decision(`,"question_answers":[]`)},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"q1","answers":["yes"]},{"question_id":"q1","answers":["no"]}]`), want: "prompt_for_user_choice_decision.question_answers[1].question_id: must not repeat"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"","answers":["yes"]}]`), want: "prompt_for_user_choice_decision.question_answers[0].question_id: must not be blank"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"  ","answers":["yes"]}]`), want: "prompt_for_user_choice_decision.question_answers[0].question_id: must not be blank"},
		{rule: qa, frame: decision(`,"question_answers":[{"answers":["yes"]}]`), want: "prompt_for_user_choice_decision.question_answers[0].question_id: is required"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"q1"}]`), want: "prompt_for_user_choice_decision.question_answers[0].answers: is required"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"q1","answers":null}]`), want: "prompt_for_user_choice_decision.question_answers[0].answers: must not be null"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"q1","answers":"yes"}]`), want: "prompt_for_user_choice_decision.question_answers[0].answers: must be a JSON array"},
		{rule: qa, frame: decision(`,"question_answers":[{"question_id":"q1","answers":[1]}]`), want: "prompt_for_user_choice_decision.question_answers[0].answers[0]: must be a JSON string"},
		{rule: qa, frame: decision(`,"question_answers":null`), want: "prompt_for_user_choice_decision.question_answers: must not be null"},
		{rule: qa, frame: decision(`,"question_answers":{"q1":["yes"]}`), want: "prompt_for_user_choice_decision.question_answers: must be a JSON array"},
		{rule: "prompt_for_user_choice_decision: cancelled carries no answers", frame: decision(`,"cancelled":true,"reason":"timeout"`)},
		{rule: "prompt_for_user_choice_decision: cancelled carries no answers", frame: decision(`,"cancelled":true,"question_answers":[]`)},
		{rule: "prompt_for_user_choice_decision: cancelled carries no answers", frame: decision(`,"cancelled":false,"question_answers":[{"question_id":"q1","answers":["yes"]}]`)},
		{rule: "prompt_for_user_choice_decision: cancelled carries no answers", frame: decision(`,"cancelled":true,"question_answers":[{"question_id":"q1","answers":[]}]`), want: "prompt_for_user_choice_decision.question_answers: must be absent when cancelled is true"},
		{rule: "prompt_for_user_choice_decision: unknown members are rejected anywhere", frame: decision(`,"question_answers":[{"question_id":"q1","answers":["yes"]}],"reason":"user"`)},
		{rule: "prompt_for_user_choice_decision: unknown members are rejected anywhere", frame: decision(`,"answers":{"q1":["yes"]}`), want: "prompt_for_user_choice_decision.answers: unknown member"},
		{rule: "prompt_for_user_choice_decision: unknown members are rejected anywhere", frame: decision(`,"question_answers":[{"question_id":"q1","answers":["yes"],"header":"Deploy"}]`), want: "prompt_for_user_choice_decision.question_answers[0].header: unknown member"},
		{rule: "prompt_for_user_choice_decision CheckAnswersBelongTo: every answered question was emitted", frame: decision(`,"question_answers":[{"question_id":"q2","answers":["eu"]}]`), check: belongs},
		{rule: "prompt_for_user_choice_decision CheckAnswersBelongTo: every answered question was emitted", frame: decision(`,"cancelled":true`), check: belongs},
		{rule: "prompt_for_user_choice_decision CheckAnswersBelongTo: every answered question was emitted", frame: decision(`,"question_answers":[{"question_id":"q1","answers":["yes"]},{"question_id":"q3","answers":[]}]`), check: belongs,
			want: "prompt_for_user_choice_decision.question_answers[1].question_id: must name a question the request emitted"},
		{rule: "prompt_for_user_choice_decision CheckAnswersBelongTo: every answered question was emitted", frame: decision(`,"question_answers":[{"question_id":"Q1","answers":["yes"]}]`), check: belongs,
			want: "prompt_for_user_choice_decision.question_answers[0].question_id: must name a question the request emitted"},

		{rule: "interaction_decision_ack: delivery_id (non-blank) and applied are required", frame: ack(`"delivery_id":"d-1","applied":true`)},
		{rule: "interaction_decision_ack: delivery_id (non-blank) and applied are required", frame: ack(`"delivery_id":"","applied":true`), want: "interaction_decision_ack.delivery_id: must not be blank"},
		{rule: "interaction_decision_ack: delivery_id (non-blank) and applied are required", frame: ack(`"delivery_id":"d-1"`), want: "interaction_decision_ack.applied: is required"},
		{rule: "interaction_decision_ack: applied carries no error_code", frame: ack(`"delivery_id":"d-1","applied":false,"error_code":"not_pending","error":"unknown request"`)},
		{rule: "interaction_decision_ack: applied carries no error_code", frame: ack(`"delivery_id":"d-1","applied":true,"error_code":"not_pending"`), want: "interaction_decision_ack.error_code: must be empty when applied is true"},
		{rule: "interaction_decision_ack: error_code is a listed decision, function-result or cancellation code", frame: ack(`"delivery_id":"d-1","applied":false,"error_code":"nope"`), want: "interaction_decision_ack.error_code: must be a listed decision, function-result or cancellation code"},
		{rule: "interaction_decision_ack: error_code is a listed decision, function-result or cancellation code", frame: ack(`"delivery_id":"d-1","applied":false,"error_code":"input_conflict"`), want: "interaction_decision_ack.error_code: must be a listed decision, function-result or cancellation code"},
		{rule: "interaction_decision_ack: a cancellation outcome is a done snapshot", frame: frame("interaction_decision_ack", "run-1", `{"delivery_id":"cancel:run-1","applied":true,"outcome":{"content":"partial","usage":{"output_tokens":3},"metadata":{"agent_session_id":"native-1"}}}`)},
		{rule: "interaction_decision_ack: a cancellation outcome is a done snapshot", frame: frame("interaction_decision_ack", "run-1", `{"delivery_id":"cancel:run-1","applied":true,"outcome":{"metadata":{}}}`), want: "interaction_decision_ack.outcome.content: is required"},
		{rule: "interaction_decision_ack: a cancellation outcome is a done snapshot", frame: frame("interaction_decision_ack", "run-1", `{"delivery_id":"cancel:run-1","applied":true,"outcome":{"content":"","usage":{"cost_usd":-1}}}`), want: "interaction_decision_ack.outcome.usage.cost_usd: must not be negative"},
	}
	for _, code := range []string{"not_pending", "not_ready", "unsupported", "contract_violation", "runtime_error", "decision_conflict", "invalid_result", "run_inactive", "cancel_failed", "cancel_output_unavailable", "cancel_outcome_unavailable", "cancel_timeout"} {
		cases = append(cases, c{rule: "interaction_decision_ack: error_code is a listed decision, function-result or cancellation code", frame: ack(`"delivery_id":"d-1","applied":false,"error_code":"` + code + `"`)})
	}
	return cases
}

func steerCases() []frameCase {
	type c = frameCase
	steer := func(inputID string) string {
		return frame("prompt_steer", "run-1", `{"input_id":`+jstr(inputID)+`,"input":[{"content":[{"type":"input_text","text":"also"}]}],"durable_receipt":true}`)
	}
	ack := func(members string) string { return frame("prompt_steer_ack", "run-1", "{"+members+"}") }
	const phases = "prompt_steer_ack: a receipt is written (not accepted), accepted, or an error code"
	cases := []frameCase{
		{rule: "prompt_steer: input_id is required, not blank and at most 256 bytes", frame: steer("1")},
		{rule: "prompt_steer: input_id is required, not blank and at most 256 bytes", frame: steer(strings.Repeat("9", 256))},
		{rule: "prompt_steer: input_id is required, not blank and at most 256 bytes", frame: steer(strings.Repeat("9", 257)), want: "prompt_steer.input_id: must be at most 256 bytes"},
		{rule: "prompt_steer: input_id is required, not blank and at most 256 bytes", frame: steer(strings.Repeat("é", 129)), want: "prompt_steer.input_id: must be at most 256 bytes"},
		{rule: "prompt_steer: input_id is required, not blank and at most 256 bytes", frame: steer(" "), want: "prompt_steer.input_id: must not be blank"},
		{rule: "prompt_steer: input_id is required, not blank and at most 256 bytes", frame: frame("prompt_steer", "run-1", `{"input":[{"content":[{"type":"input_text","text":"x"}]}]}`), want: "prompt_steer.input_id: is required"},
		{rule: "prompt_steer: input is required and must validate; durable_receipt is a boolean", frame: frame("prompt_steer", "run-1", `{"input_id":"2","input":[{"content":[{"type":"input_text","text":"x"}]}]}`)},
		{rule: "prompt_steer: input is required and must validate; durable_receipt is a boolean", frame: frame("prompt_steer", "run-1", `{"input_id":"2"}`), want: "prompt_steer.input: is required"},
		{rule: "prompt_steer: input is required and must validate; durable_receipt is a boolean", frame: frame("prompt_steer", "run-1", `{"input_id":"2","input":[{"content":[{"type":"input_text","text":"x"}]}],"durable_receipt":1}`), want: "prompt_steer.durable_receipt: must be a JSON boolean"},

		{rule: phases, frame: ack(`"input_id":"1","accepted":false,"written":true`)},
		{rule: phases, frame: ack(`"input_id":"1","accepted":true`)},
		{rule: phases, frame: ack(`"input_id":"1","accepted":false,"error_code":"busy","error":"another input awaits its receipt"`)},
		{rule: phases, frame: ack(`"input_id":"1","accepted":false`), want: "prompt_steer_ack.error_code: is required when the input is neither written nor accepted"},
		{rule: phases, frame: ack(`"input_id":"1","accepted":true,"written":true`), want: "prompt_steer_ack.written: is a separate phase: an accepted receipt does not also claim written"},
		{rule: phases, frame: ack(`"input_id":"1","accepted":true,"error_code":"busy"`), want: "prompt_steer_ack.error_code: must be empty on a written or accepted receipt"},
		{rule: phases, frame: ack(`"input_id":"1","accepted":false,"written":true,"error_code":"outcome_unknown"`), want: "prompt_steer_ack.error_code: must be empty on a written or accepted receipt"},
		{rule: "prompt_steer_ack: input_id and accepted are required", frame: ack(`"input_id":"1","accepted":true`)},
		{rule: "prompt_steer_ack: input_id and accepted are required", frame: ack(`"input_id":"","accepted":true`), want: "prompt_steer_ack.input_id: must not be blank"},
		{rule: "prompt_steer_ack: input_id and accepted are required", frame: ack(`"input_id":"1","written":true`), want: "prompt_steer_ack.accepted: is required"},
		{rule: "prompt_steer_ack: error_code is a listed active-input code", frame: ack(`"input_id":"1","accepted":false,"error_code":"not_pending"`), want: "prompt_steer_ack.error_code: must be a listed prompt_steer_ack code"},
	}
	for _, code := range []string{"invalid_input", "run_inactive", "input_conflict", "input_limit", "not_ready", "busy", "in_flight", "unsupported", "contract_violation", "rejected", "outcome_unknown"} {
		cases = append(cases, c{rule: "prompt_steer_ack: error_code is a listed active-input code", frame: ack(`"input_id":"1","accepted":false,"error_code":"` + code + `"`)})
	}
	return cases
}

func functionCases() []frameCase {
	call := func(members string) string { return frame("function_call", "run-1", "{"+members+"}") }
	result := func(members string) string { return frame("function_result", "run-1", "{"+members+"}") }
	return []frameCase{
		{rule: "function_call: call_id and name are required and not blank; arguments is required raw JSON", frame: call(`"call_id":"fc-1","name":"lookup","arguments":{"q":"x"}`)},
		{rule: "function_call: call_id and name are required and not blank; arguments is required raw JSON", frame: call(`"call_id":"fc-1","name":"lookup","arguments":"{\"q\":\"x\"}"`)},
		{rule: "function_call: call_id and name are required and not blank; arguments is required raw JSON", frame: call(`"call_id":"","name":"lookup","arguments":{}`), want: "function_call.call_id: must not be blank"},
		{rule: "function_call: call_id and name are required and not blank; arguments is required raw JSON", frame: call(`"call_id":"fc-1","name":" ","arguments":{}`), want: "function_call.name: must not be blank"},
		{rule: "function_call: call_id and name are required and not blank; arguments is required raw JSON", frame: call(`"call_id":"fc-1","name":"lookup"`), want: "function_call.arguments: is required"},
		{rule: "function_call: call_id and name are required and not blank; arguments is required raw JSON", frame: call(`"call_id":"fc-1","name":"lookup","arguments":null`), want: "function_call.arguments: must not be null"},
		{rule: "function_result: delivery_id, call_id and success are required", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":false,"content":[{"type":"input_text","text":"not found"}]`)},
		{rule: "function_result: delivery_id, call_id and success are required", frame: result(`"delivery_id":" ","call_id":"fc-1","success":true,"content":[]`), want: "function_result.delivery_id: must not be blank"},
		{rule: "function_result: delivery_id, call_id and success are required", frame: result(`"delivery_id":"d-1","call_id":"","success":true,"content":[]`), want: "function_result.call_id: must not be blank"},
		{rule: "function_result: delivery_id, call_id and success are required", frame: result(`"delivery_id":"d-1","call_id":"fc-1","content":[]`), want: "function_result.success: is required"},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true,"content":[]`)},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true,"content":[{"type":"input_text","text":""},{"type":"input_image","image_url":"$JPEG"}]`)},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true`), want: "function_result.content: is required"},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true,"content":null`), want: "function_result.content: must not be null"},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true,"content":[{"type":"input_image","image_url":"https://example.com/chart.png"}]`), want: "function_result.content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true,"content":[{"type":"input_text"}]`), want: "function_result.content[0].text: is required"},
		{rule: "function_result: content is required and non-null; every part is validated", frame: result(`"delivery_id":"d-1","call_id":"fc-1","success":true,"content":[null]`), want: "function_result.content[0]: must not be null"},
	}
}

func messageInputCases() []frameCase {
	steer := func(input string) string {
		return frame("prompt_steer", "run-1", `{"input_id":"1","input":`+input+`}`)
	}
	text := func(s string) string { return `{"type":"input_text","text":` + jstr(s) + `}` }
	image := func(url string) string { return `{"type":"input_image","image_url":` + jstr(url) + `}` }
	msg := func(parts ...string) string { return `{"content":[` + strings.Join(parts, ",") + `]}` }
	in := func(msgs ...string) string { return "[" + strings.Join(msgs, ",") + "]" }
	firstText := func(f *proto.Frame) string { return payloadOf[proto.PromptSteerPayload](f).Input[0].Content[0].Text }
	png := base64.StdEncoding.EncodeToString(pngBytes)
	const exactlyOne = "MessageInput: a part is input_text with exactly text, or input_image with exactly image_url"
	const profile = "MessageInput: an image is a png or jpeg data URL in canonical standard base64 whose bytes are that format; no remote URL"
	return []frameCase{
		{rule: "MessageInput: at least one message", frame: steer(in(msg(text("hi"))))},
		{rule: "MessageInput: at least one message", frame: steer(`[]`), want: "prompt_steer.input: must contain at least one message"},
		{rule: "MessageInput: at least one message", frame: steer(`null`), want: "prompt_steer.input: must not be null"},
		{rule: "MessageInput: at least one message", frame: steer(`{"content":[]}`), want: "prompt_steer.input: must be a JSON array"},
		{rule: "MessageInput: every message has content with at least one part", frame: steer(in(msg(text("a")), msg(text("b"))))},
		{rule: "MessageInput: every message has content with at least one part", frame: steer(in(msg(text("a")), `{"content":[]}`)), want: "prompt_steer.input[1].content: must contain at least one part"},
		{rule: "MessageInput: every message has content with at least one part", frame: steer(in(`{}`)), want: "prompt_steer.input[0].content: is required"},
		{rule: "MessageInput: every message has content with at least one part", frame: steer(in(`{"content":null}`)), want: "prompt_steer.input[0].content: must not be null"},
		{rule: "MessageInput: every message has a meaningful part (non-blank text or an image); empty text beside other content is allowed", frame: steer(in(msg(text(""), image(pngURL))))},
		{rule: "MessageInput: every message has a meaningful part (non-blank text or an image); empty text beside other content is allowed", frame: steer(in(msg(text(" "), text("hi"))))},
		{rule: "MessageInput: every message has a meaningful part (non-blank text or an image); empty text beside other content is allowed", frame: steer(in(msg(text("")))), want: "prompt_steer.input[0].content: must contain non-blank text or an image"},
		{rule: "MessageInput: every message has a meaningful part (non-blank text or an image); empty text beside other content is allowed", frame: steer(in(msg(text("ok")), msg(text(" \t\n"), text("\u00a0")))), want: "prompt_steer.input[1].content: must contain non-blank text or an image"},
		{rule: "MessageInput: text is never trimmed or normalized on the wire", frame: steer(in(msg(text("  two  spaces \n")))), check: expect(firstText, "  two  spaces \n")},
		{rule: "MessageInput: text is never trimmed or normalized on the wire", frame: steer(in(msg(`{"type":"input_text","text":7}`))), want: "prompt_steer.input[0].content[0].text: must be a JSON string"},
		{rule: exactlyOne, frame: steer(in(msg(text("a"), image(jpegURL))))},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"input_text","text":"a","image_url":"` + pngURL + `"}`))), want: "prompt_steer.input[0].content[0].image_url: unknown member for a input_text part"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"input_image","image_url":"` + pngURL + `","text":"alt"}`))), want: "prompt_steer.input[0].content[0].text: unknown member for a input_image part"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"input_image","image_url":"` + pngURL + `","detail":"high"}`))), want: "prompt_steer.input[0].content[0].detail: unknown member for a input_image part"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"input_image","file_id":"file-1"}`))), want: "prompt_steer.input[0].content[0].file_id: unknown member for a input_image part"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"input_image"}`))), want: "prompt_steer.input[0].content[0].image_url: is required"},
		{rule: exactlyOne, frame: steer(in(msg(`{"text":"a"}`))), want: "prompt_steer.input[0].content[0].type: is required"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"input_file","file_id":"f"}`))), want: "prompt_steer.input[0].content[0].type: must be input_text or input_image"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":"output_text","text":"a"}`))), want: "prompt_steer.input[0].content[0].type: must be input_text or input_image"},
		{rule: exactlyOne, frame: steer(in(msg(`{"type":null,"text":"a"}`))), want: "prompt_steer.input[0].content[0].type: must be a JSON string"},
		{rule: exactlyOne, frame: steer(in(msg(`"hi"`))), want: "prompt_steer.input[0].content[0]: must be a JSON object"},
		{rule: profile, frame: steer(in(msg(image(pngURL))))},
		{rule: profile, frame: steer(in(msg(image(jpegURL))))},
		{rule: profile, frame: steer(in(msg(image("https://example.com/cat.png")))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: profile, frame: steer(in(msg(image("file-abc123")))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: profile, frame: steer(in(msg(image("")))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: profile, frame: steer(in(msg(image("data:image/gif;base64,R0lGODlh")))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: profile, frame: steer(in(msg(image("data:image/PNG;base64," + png)))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: profile, frame: steer(in(msg(image("data:image/png," + png)))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: profile, frame: steer(in(msg(image("data:image/png;base64," + strings.TrimRight(png, "="))))), want: "prompt_steer.input[0].content[0].image_url: must be canonical standard base64"},
		{rule: profile, frame: steer(in(msg(image("data:image/png;base64," + png[:8] + "\n" + png[8:])))), want: "prompt_steer.input[0].content[0].image_url: must be canonical standard base64"},
		{rule: profile, frame: steer(in(msg(image("data:image/png;base64," + base64.URLEncoding.EncodeToString(append(pngBytes, 0xFB, 0xFF)))))), want: "prompt_steer.input[0].content[0].image_url: must be canonical standard base64"},
		{rule: profile, frame: steer(in(msg(image("data:image/png;base64," + png[:len(png)-2] + "F=")))), want: "prompt_steer.input[0].content[0].image_url: must be canonical standard base64"},
		{rule: profile, frame: steer(in(msg(image("data:image/png;base64,")))), want: "prompt_steer.input[0].content[0].image_url: declares image/png but the bytes are not PNG"},
		{rule: profile, frame: steer(in(msg(image("data:image/png;base64," + base64.StdEncoding.EncodeToString(jpegBytes))))), want: "prompt_steer.input[0].content[0].image_url: declares image/png but the bytes are not PNG"},
		{rule: profile, frame: steer(in(msg(image("data:image/jpeg;base64," + png)))), want: "prompt_steer.input[0].content[0].image_url: declares image/jpeg but the bytes are not JPEG"},
		{rule: profile, frame: steer(in(msg(image(" " + pngURL)))), want: "prompt_steer.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		// The same MessageInput rules on every carrier: prompt_request and execution_start too.
		{rule: "MessageInput: the same rules apply to prompt_request.input and execution_start.input", frame: frame("prompt_request", "run-1", `{"agent_kind":"k","conversation_id":"","run_id":"","input":`+in(msg(text("a"), image(pngURL)))+`}`)},
		{rule: "MessageInput: the same rules apply to prompt_request.input and execution_start.input", frame: frame("prompt_request", "run-1", `{"agent_kind":"k","conversation_id":"","run_id":"","input":`+in(msg(image("http://x/y.jpg")))+`}`), want: "prompt_request.input[0].content[0].image_url: must be a data:image/png;base64 or data:image/jpeg;base64 URL"},
		{rule: "MessageInput: the same rules apply to prompt_request.input and execution_start.input", frame: frame("prompt_request", "run-1", `{"agent_kind":"k","conversation_id":"","run_id":"","input":[]}`), want: "prompt_request.input: must contain at least one message"},
		{rule: "MessageInput: the same rules apply to prompt_request.input and execution_start.input", frame: frame("execution_start", "prep-1", `{"executor_id":"e","handle":"h","run_id":"r","input":`+in(msg(text("x")), msg(`{"type":"input_text"}`))+`}`), want: "execution_start.input[1].content[0].text: is required"},
	}
}
