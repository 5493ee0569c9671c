package proto_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wirecheck/wirecheck/proto"
)

// The rule tables. Every rule of protocol-facts.md §3–§6 that proto implements has at least one
// frame it accepts and one it rejects; a rejected frame names the exact error text. Frames are
// whole envelopes in raw JSON, so the id rules run with every case, and every case goes through
// proto.ParseFrame, the one entry point both reference sides and both scripted peers use.
//
// The tables live in rules_<family>_test.go; this file holds the harness, the envelope and id
// rules, strictness, the version rule, the finite code sets and the HTTP errors.

// frameCase is one rule applied to one frame.
type frameCase struct {
	rule  string // the rule, phrased so the table reads as documentation
	frame string // the whole envelope, raw JSON
	want  string // "" when the frame is valid; otherwise the exact error text
	// check, when set, runs on the parsed frame: a rule that needs more than the frame
	// (CheckAgainst, CheckPrepareConfiguration, ...) or an assertion about the decoded values.
	check func(*proto.Frame) error
}

// Identities used throughout the tables.
const (
	transferID = "5f0c3d6e-8a1b-4c2d-9e3f-1a2b3c4d5e6f" // runtime_prepare / workspace_write id
	envUUID    = "0b9d2c1a-7e6f-4a5b-8c9d-0e1f2a3b4c5d"
	sesUUID    = "9a8b7c6d-5e4f-4a3b-9c1d-2e3f4a5b6c7d"
	helloSHA   = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" // sha256("hello")
)

// Inline images: the smallest byte prefixes the profile checks, as canonical data URLs.
var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegBytes = []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00}
	pngURL    = "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	jpegURL   = "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpegBytes)
)

// capsJSON is the prototest fixture with two capabilities supported, as a heartbeat carries it.
var capsJSON = func() string {
	b, err := json.Marshal(proto.MustDeclareCapabilities("streaming", "preparation"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// placeholders keep the payloads readable: $TID, $ENV, $SES, $SHA, $PNG, $JPEG, $CAPS.
var placeholders = strings.NewReplacer(
	"$TID", transferID, "$ENV", envUUID, "$SES", sesUUID, "$SHA", helloSHA,
	"$PNG", pngURL, "$JPEG", jpegURL, "$CAPS", capsJSON,
)

// frame writes an envelope; an empty id or payload is omitted.
func frame(typ, id, payload string) string {
	var b strings.Builder
	b.WriteString(`{"type":`)
	b.WriteString(jstr(typ))
	if id != "" {
		b.WriteString(`,"id":`)
		b.WriteString(jstr(placeholders.Replace(id)))
	}
	if payload != "" {
		b.WriteString(`,"payload":`)
		b.WriteString(placeholders.Replace(payload))
	}
	b.WriteString("}")
	return b.String()
}

// jstr renders s as a JSON string literal.
func jstr(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// b64 renders n bytes of data as a JSON base64 string literal.
func b64(n int) string {
	return `"` + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", n))) + `"`
}

// jsonList renders n copies of item as a JSON array.
func jsonList(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// runCases drives every case through ParseFrame and demands, per rule, at least one valid and one
// invalid frame: a rule with only one side is not proven.
func runCases(t *testing.T, cases []frameCase) {
	t.Helper()
	type sides struct{ valid, invalid int }
	count := map[string]*sides{}
	var order []string
	for _, c := range cases {
		s := count[c.rule]
		if s == nil {
			s = &sides{}
			count[c.rule] = s
			order = append(order, c.rule)
		}
		if c.want == "" {
			s.valid++
		} else {
			s.invalid++
		}
		name := c.rule + "/valid"
		if c.want != "" {
			name = c.rule + "/invalid"
		}
		t.Run(name, func(t *testing.T) {
			got := parseAndCheck(c)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("frame %s\nerror mismatch (-want +got):\n%s", clip(c.frame), diff)
			}
		})
	}
	for _, rule := range order {
		if s := count[rule]; s.valid == 0 || s.invalid == 0 {
			t.Errorf("rule %q has %d valid and %d invalid cases; it needs at least one of each", rule, s.valid, s.invalid)
		}
	}
}

func parseAndCheck(c frameCase) string {
	f, err := proto.ParseFrame([]byte(c.frame))
	if err == nil && c.check != nil {
		err = c.check(f)
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

// expect builds a check that compares a decoded value with what the frame must decode to.
func expect[T any](get func(*proto.Frame) T, want T) func(*proto.Frame) error {
	return func(f *proto.Frame) error {
		if diff := cmp.Diff(want, get(f)); diff != "" {
			return fmt.Errorf("decoded value mismatch (-want +got):\n%s", diff)
		}
		return nil
	}
}

// payloadOf returns the typed payload of a parsed frame.
func payloadOf[T any](f *proto.Frame) *T { return any(f.Payload).(*T) }

// baseFrames is one valid frame per message type: the seeds of the id tests and the fuzz targets.
func baseFrames() map[string]string {
	return map[string]string{
		proto.TypeRuntimePrepare:       frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"file","file":{"path":"/workspace/notes.txt"},"size_bytes":5,"sha256":"$SHA"}`),
		proto.TypeRuntimePrepareResult: frame("runtime_prepare_result", "$TID", `{"outcome":"received","offset":5}`),
		proto.TypeExecutionPrepare:     frame("execution_prepare", "prep-1", `{"session_id":"sess-1","configuration":{"agent_kind":"contract","conversation_id":"","run_id":"","execution_controls":{"web_search":"disabled","text_verbosity":"medium"},"agent_state_key":"agents-api-sess-1","strict_resume":true,"observe_tool_observations":true,"disable_execution_environment":true}}`),
		proto.TypeExecutionStart:       frame("execution_start", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","run_id":"run-1","input":[{"content":[{"type":"input_text","text":"hello"}]}]}`),
		proto.TypeExecutionRelease:     frame("execution_release", "prep-1", `{"handle":"handle-1"}`),
		proto.TypePreparationStatus:    frame("preparation_status", "prep-1", `{"executor_id":"exec-1","handle":"handle-1","revision":2,"state":"ready","expires_at":1800000000000}`),
		proto.TypePromptRequest:        frame("prompt_request", "run-1", `{"agent_kind":"contract","conversation_id":"","run_id":"","input":[{"content":[{"type":"input_text","text":"hello"}]}],"strict_resume":true}`),
		proto.TypePromptCancel:         frame("prompt_cancel", "run-1", `{"delivery_id":"cancel:run-1"}`),
		proto.TypeDeviceShutdown:       frame("device_shutdown", "", `{"reason":"maintenance"}`),
		proto.TypeDelta:                frame("delta", "run-1", `{"item_id":"msg-1","delta":"Hel","sequence":1}`),
		proto.TypeThinking:             frame("thinking", "run-1", `{"text":"pondering","sequence":1}`),
		proto.TypeOutputMessage:        frame("output_message", "run-1", `{"id":"msg-1","status":"completed","phase":"commentary","text":"Hello"}`),
		proto.TypeToolCall:             frame("tool_call", "run-1", `{"observation":{"kind":"command","status":"in_progress","command":"ls","cwd":"/workspace"},"id":"call-1","name":"shell","stage":"before","args":{"command":"ls"}}`),
		proto.TypeUsage:                frame("usage", "run-1", `{"tokens":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":5,"reasoning_output_tokens":0,"total_tokens":15},"model":"m-1"}`),
		proto.TypeError:                frame("error", "run-1", `{"error":"upstream refused","code":"connection_failed","http_status":503}`),
		proto.TypeDone:                 frame("done", "run-1", `{"content":"Hello","usage":{"input_tokens":10,"output_tokens":5},"metadata":{"agent_session_id":"native-1"}}`),
		proto.TypeHeartbeat:            frame("heartbeat", "", `{"ts":1710000000,"active_requests":0,"daemon_version":"1.2.3","supported_agent_kinds":[{"kind":"contract","available":true,"version":"1","capabilities":$CAPS}]}`),
		proto.TypePermissionDecision:   frame("permission_decision", "perm-1", `{"delivery_id":"d-1","approved":true,"updated_input":{"command":"ls -la"}}`),
		proto.TypePromptForUserChoiceDecision: frame("prompt_for_user_choice_decision", "ask-1",
			`{"delivery_id":"d-1","question_answers":[{"question_id":"q1","answers":["yes"]}]}`),
		proto.TypePermissionRequest:   frame("permission_request", "run-1", `{"request_id":"perm-1","tool":"shell","title":"Run ls?","payload":{"command":"ls"}}`),
		proto.TypePermissionCancel:    frame("permission_cancel", "perm-1", ""),
		proto.TypePromptForUserChoice: frame("prompt_for_user_choice", "run-1", `{"ask_id":"ask-1","questions":[{"id":"q1","question":"Proceed?","options":[{"label":"yes"},{"label":"no"}]}]}`),
		proto.TypeInteractionDecisionAck: frame("interaction_decision_ack", "run-1",
			`{"delivery_id":"cancel:run-1","applied":true,"outcome":{"content":"partial","metadata":{"agent_session_id":"native-1"}}}`),
		proto.TypePromptSteer:           frame("prompt_steer", "run-1", `{"input_id":"1","input":[{"content":[{"type":"input_text","text":"also this"}]}],"durable_receipt":true}`),
		proto.TypePromptSteerAck:        frame("prompt_steer_ack", "run-1", `{"input_id":"1","accepted":false,"written":true}`),
		proto.TypeFunctionResult:        frame("function_result", "run-1", `{"delivery_id":"d-1","call_id":"fc-1","success":true,"content":[{"type":"input_text","text":"42"}]}`),
		proto.TypeFunctionCall:          frame("function_call", "run-1", `{"call_id":"fc-1","name":"lookup","arguments":{"q":"x"}}`),
		proto.TypeWorkspaceRead:         frame("workspace_read", "read-1", `{"handle":"handle-1","environment_id":"env-1","path":"src/main.go","max_bytes":4096}`),
		proto.TypeWorkspaceReadResult:   frame("workspace_read_result", "read-1", `{"outcome":"completed","data":"aGVsbG8=","close_acknowledged":true}`),
		proto.TypeWorkspaceWrite:        frame("workspace_write", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","path":"docs/readme.md","size_bytes":5,"sha256":"$SHA"}`),
		proto.TypeWorkspaceWriteResult:  frame("workspace_write_result", "$TID", `{"outcome":"completed","size_bytes":5}`),
		proto.TypeWorkspaceExport:       frame("workspace_export", "export-1", `{"step":"begin","handle":"handle-1","environment_id":"env-1"}`),
		proto.TypeWorkspaceExportResult: frame("workspace_export_result", "export-1", `{"outcome":"chunk","offset":0,"data":"aGVsbG8="}`),
		proto.TypeEnvironmentQuiesce:    frame("environment_quiesce", "susp-1", `{"environment_id":"env-1","suspend_id":"attempt-1"}`),
		proto.TypeEnvironmentResume:     frame("environment_resume", "susp-2", `{"rollback":false,"environment_id":"env-1","suspend_id":"attempt-1"}`),
		proto.TypeEnvironmentQuiesced:   frame("environment_quiesced", "susp-1", `{"environment_id":"env-1","suspend_id":"attempt-1","accepted":true}`),
		proto.TypeEnvironmentResumed:    frame("environment_resumed", "susp-2", `{"environment_id":"env-1","suspend_id":"attempt-1","accepted":false,"error_code":"not_suspended"}`),
		proto.TypeSubagentIdentity:      frame("subagent_identity", "run-1", `{"native_id":"sa-1","parent_native_id":"root","native_created_at":1710000000,"parent_turn_id":"t-1","source_item_id":"i-1","name":"helper","instructions":null}`),
		proto.TypeSubagentLifecycle:     frame("subagent_lifecycle", "run-1", `{"native_id":"sa-1","effect_id":"e-1","status":"running","occurred_at_ms":1710000000000}`),
		proto.TypeSubagentTurn:          frame("subagent_turn", "run-1", `{"native_id":"sa-1","turn_id":"t-2","status":"completed","created_at_ms":1,"started_at_ms":2,"completed_at_ms":null,"usage":null}`),
		proto.TypeSubagentItem:          frame("subagent_item", "run-1", `{"native_id":"sa-1","turn_id":"t-2","item_id":"i-2","position":0,"kind":"output_message","payload":{"text":"hi"}}`),
		proto.TypeSubagentCoordination:  frame("subagent_coordination", "run-1", `{"id":"c-1","kind":"message","status":"sent","actor_id":"sa-1","recipients":["root"],"text":"done","model":null,"reasoning_effort":null}`),
	}
}

// allRuleCases is every table, for the coverage checks and the fuzz seeds.
func allRuleCases() []frameCase {
	var all []frameCase
	for _, table := range [][]frameCase{
		envelopeCases(), idCases(), strictnessCases(),
		transferCases(), prepareResultCases(), writeCases(), writeResultCases(),
		admissionCases(), configurationCases(), preparationStatusCases(),
		readCases(), readResultCases(), exportCases(), suspensionCases(),
		eventCases(), engineFailureCases(), heartbeatCases(),
		interactionCases(), steerCases(), functionCases(), messageInputCases(),
	} {
		all = append(all, table...)
	}
	return all
}

func TestBaseFramesAreValid(t *testing.T) {
	frames := baseFrames()
	for _, spec := range proto.Specs() {
		f, ok := frames[spec.Type]
		if !ok {
			t.Errorf("no base frame for %s", spec.Type)
			continue
		}
		if _, err := proto.ParseFrame([]byte(f)); err != nil {
			t.Errorf("base frame of %s: %v", spec.Type, err)
		}
	}
}

// Every message type is proven by at least one valid and one invalid frame in the rule tables.
func TestRuleTablesCoverEveryType(t *testing.T) {
	valid, invalid := map[string]int{}, map[string]int{}
	nValid, nInvalid := 0, 0
	rules := map[string]bool{}
	for _, c := range allRuleCases() {
		rules[c.rule] = true
		env, err := proto.DecodeEnvelope([]byte(c.frame))
		typ := env.Type
		if err != nil || typ == "" {
			typ = "envelope"
		}
		if c.want == "" {
			valid[typ]++
			nValid++
		} else {
			invalid[typ]++
			nInvalid++
		}
	}
	for _, spec := range proto.Specs() {
		if valid[spec.Type] == 0 || invalid[spec.Type] == 0 {
			t.Errorf("%s: %d valid and %d invalid rule cases", spec.Type, valid[spec.Type], invalid[spec.Type])
		}
	}
	t.Logf("%d rules, %d cases: %d valid, %d invalid", len(rules), nValid+nInvalid, nValid, nInvalid)
}

func envelopeCases() []frameCase {
	done := `{"content":""}`
	return []frameCase{
		{rule: "envelope: type is required", frame: frame("done", "run-1", done)},
		{rule: "envelope: type is required", frame: `{"id":"run-1","payload":{"content":""}}`, want: "envelope.type: is required"},
		{rule: "envelope: type must be a JSON string", frame: `{"type":"done","id":"run-1","payload":{"content":""}}`},
		{rule: "envelope: type must be a JSON string", frame: `{"type":5,"id":"run-1"}`, want: "envelope.type: must be a JSON string"},
		{rule: "envelope: type must be a JSON string", frame: `{"type":null,"id":"run-1"}`, want: "envelope.type: must be a JSON string"},
		{rule: "envelope: type must be a JSON string", frame: `{"type":["done"],"id":"run-1"}`, want: "envelope.type: must be a JSON string"},
		{rule: "envelope: type must not be empty", frame: frame("done", "run-1", done)},
		{rule: "envelope: type must not be empty", frame: `{"type":"","id":"run-1","payload":{"content":""}}`, want: "envelope.type: must not be empty"},
		{rule: "envelope: an unknown type is rejected by name", frame: frame("permission_cancel", "perm-1", "")},
		{rule: "envelope: an unknown type is rejected by name", frame: `{"type":"assignment_bind","id":"a-1","payload":{}}`, want: `envelope.type: unknown message type "assignment_bind"`},
		{rule: "envelope: an unknown type is rejected by name", frame: `{"type":"Done","id":"run-1","payload":{"content":""}}`, want: `envelope.type: unknown message type "Done"`},
		{rule: "envelope: an unknown type is rejected by name", frame: `{"type":"` + strings.Repeat("z", 100) + `"}`, want: `envelope.type: unknown message type "` + strings.Repeat("z", 64) + `…"`},
		{rule: "envelope: a frame is exactly one JSON object", frame: " \n" + frame("done", "run-1", done) + "\n"},
		{rule: "envelope: a frame is exactly one JSON object", frame: `[{"type":"done"}]`, want: "envelope: must be a JSON object"},
		{rule: "envelope: a frame is exactly one JSON object", frame: `null`, want: "envelope: must be a JSON object"},
		{rule: "envelope: a frame is exactly one JSON object", frame: ``, want: "envelope: must be a JSON object"},
		{rule: "envelope: a frame is exactly one JSON object", frame: `{"type":"done","id":"run-1"`, want: "envelope: malformed JSON: unexpected end of JSON input"},
		{rule: "envelope: a frame is exactly one JSON object", frame: frame("done", "run-1", done) + frame("done", "run-1", done), want: "envelope: malformed JSON: invalid character '{' after top-level value"},
		{rule: "envelope: the frame is at most 4 MiB", frame: frame("delta", "run-1", `{"delta":"`+strings.Repeat("a", proto.MaxFrameBytes-100)+`","sequence":1}`)},
		{rule: "envelope: the frame is at most 4 MiB", frame: frame("delta", "run-1", `{"delta":"`+strings.Repeat("a", proto.MaxFrameBytes)+`","sequence":1}`), want: "envelope: frame must be at most 4194304 bytes"},
		{rule: "envelope: id must be a JSON string", frame: frame("done", "run-1", done)},
		{rule: "envelope: id must be a JSON string", frame: `{"type":"done","id":7,"payload":{"content":""}}`, want: "done.id: must be a JSON string"},
		{rule: "envelope: id must be a JSON string", frame: `{"type":"done","id":{"run":"r"},"payload":{"content":""}}`, want: "done.id: must be a JSON string"},
		{rule: "envelope: a null id is an absent id", frame: `{"type":"heartbeat","id":null,"payload":{"ts":1,"active_requests":0}}`},
		{rule: "envelope: a null id is an absent id", frame: `{"type":"done","id":null,"payload":{"content":""}}`, want: "done.id: must carry the Run ID"},
		{rule: "envelope: payload must be a JSON object", frame: frame("done", "run-1", done)},
		{rule: "envelope: payload must be a JSON object", frame: `{"type":"done","id":"run-1","payload":["content"]}`, want: "done.payload: must be a JSON object"},
		{rule: "envelope: payload must be a JSON object", frame: `{"type":"done","id":"run-1","payload":"{}"}`, want: "done.payload: must be a JSON object"},
		{rule: "envelope: payload must be a JSON object", frame: `{"type":"prompt_cancel","id":"run-1","payload":true}`, want: "prompt_cancel.payload: must be a JSON object"},
		{rule: "envelope: permission_cancel has no body", frame: frame("permission_cancel", "perm-1", "")},
		{rule: "envelope: permission_cancel has no body", frame: frame("permission_cancel", "perm-1", "null")},
		{rule: "envelope: permission_cancel has no body", frame: frame("permission_cancel", "perm-1", "{}")},
		{rule: "envelope: permission_cancel has no body", frame: frame("permission_cancel", "perm-1", "{ \n }")},
		{rule: "envelope: permission_cancel has no body", frame: frame("permission_cancel", "perm-1", `{"reason":"withdrawn"}`), want: "permission_cancel.payload: must be absent (this type has no body)"},
		{rule: "envelope: permission_cancel has no body", frame: frame("permission_cancel", "", ""), want: "permission_cancel.id: must carry the interaction ID (request_id)"},
		{rule: "envelope: a bodyless prompt_cancel decodes as zero values", frame: frame("prompt_cancel", "run-1", ""),
			check: expect(func(f *proto.Frame) proto.PromptCancelPayload { return *payloadOf[proto.PromptCancelPayload](f) }, proto.PromptCancelPayload{})},
		{rule: "envelope: a bodyless prompt_cancel decodes as zero values", frame: frame("prompt_cancel", "run-1", "null"),
			check: expect(func(f *proto.Frame) proto.PromptCancelPayload { return *payloadOf[proto.PromptCancelPayload](f) }, proto.PromptCancelPayload{})},
		{rule: "envelope: a bodyless prompt_cancel decodes as zero values", frame: frame("prompt_cancel", "", ""), want: "prompt_cancel.id: must carry the Run ID"},
		{rule: "envelope: a bodyless device_shutdown decodes as zero values", frame: frame("device_shutdown", "", ""),
			check: expect(func(f *proto.Frame) proto.DeviceShutdownPayload { return *payloadOf[proto.DeviceShutdownPayload](f) }, proto.DeviceShutdownPayload{})},
		{rule: "envelope: a bodyless device_shutdown decodes as zero values", frame: frame("device_shutdown", "", `{"reason":7}`), want: "device_shutdown.reason: must be a JSON string"},
		{rule: "envelope: an absent payload of a type with a body fails its required members", frame: frame("done", "run-1", done)},
		{rule: "envelope: an absent payload of a type with a body fails its required members", frame: frame("done", "run-1", ""), want: "done.content: is required"},
		{rule: "envelope: an absent payload of a type with a body fails its required members", frame: frame("workspace_read", "read-1", "null"), want: "workspace_read.environment_id: is required"},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","id":"run-1","payload":{"content":""},"trace":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`,
			check: expect(func(f *proto.Frame) string { return f.Trace }, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","id":"run-1","payload":{"content":""},"trace":"not a traceparent"}`,
			check: expect(func(f *proto.Frame) string { return f.Trace }, "not a traceparent")},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","id":"run-1","payload":{"content":""},"trace":42}`,
			check: expect(func(f *proto.Frame) string { return f.Trace }, "")},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","id":"run-1","payload":{"content":""},"trace":{"traceparent":"00-x"}}`,
			check: expect(func(f *proto.Frame) string { return f.Trace }, "")},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","id":"run-1","payload":{"content":""},"trace":null}`},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"heartbeat","payload":{"ts":1,"active_requests":0},"trace":["00"]}`},
		// The trace is never a request ID: a frame without its id fails on the id, whatever the trace says.
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","payload":{"content":""},"trace":"run-1"}`, want: "done.id: must carry the Run ID"},
		{rule: "envelope: trace is diagnostic only and never a reason to reject", frame: `{"type":"done","id":"run-1","payload":{"content":7},"trace":7}`, want: "done.content: must be a JSON string"},
		{rule: "envelope: unknown envelope members are ignored", frame: `{"type":"done","id":"run-1","payload":{"content":""},"assignment":{"session_id":"s","assignment_id":"a","epoch":1}}`},
		{rule: "envelope: unknown envelope members are ignored", frame: `{"type":"done","id":"run-1","payload":{"content":""},"assignment":{"epoch":1},"extra":[1,2]}`},
		{rule: "envelope: unknown envelope members are ignored", frame: `{"type":"heartbeat","id":"hb","payload":{"ts":1,"active_requests":0},"assignment":{"epoch":1}}`, want: "heartbeat.id: must be absent"},
		{rule: "envelope: member names are exact (a name differing in case is an unknown member)", frame: `{"type":"heartbeat","ID":"hb","Payload":{},"payload":{"ts":1,"active_requests":0}}`},
		{rule: "envelope: member names are exact (a name differing in case is an unknown member)", frame: `{"Type":"done","id":"run-1","payload":{"content":""}}`, want: "envelope.type: is required"},
		{rule: "envelope: member names are exact (a name differing in case is an unknown member)", frame: `{"type":"done","ID":"run-1","payload":{"content":""}}`, want: "done.id: must carry the Run ID"},
		{rule: "envelope: member names are exact (a name differing in case is an unknown member)", frame: `{"type":"done","id":"run-1","PAYLOAD":{"content":""}}`, want: "done.content: is required"},
	}
}

// Envelope encoding: id, payload and trace are omitted when empty.
func TestEnvelopeEncodingOmitsEmptyMembers(t *testing.T) {
	tests := []struct {
		rule string
		env  proto.Envelope
		want string
	}{
		{"heartbeat carries no id", proto.MustEnvelope(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: 1}), `{"type":"heartbeat","payload":{"ts":1,"active_requests":0}}`},
		{"a bodyless type carries no payload", proto.MustEnvelope(proto.TypePermissionCancel, "perm-1", nil), `{"type":"permission_cancel","id":"perm-1"}`},
		{"an empty trace is omitted", proto.Envelope{Type: proto.TypeDone, ID: "run-1", Payload: json.RawMessage(`{"content":""}`)}, `{"type":"done","id":"run-1","payload":{"content":""}}`},
		{"a trace is carried", proto.Envelope{Type: proto.TypeDone, ID: "run-1", Payload: json.RawMessage(`{"content":""}`), Trace: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
			`{"type":"done","id":"run-1","payload":{"content":""},"trace":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got, err := tt.env.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("encoding mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func idCases() []frameCase {
	prep := `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"file","file":{"path":"/workspace/notes.txt"},"size_bytes":5,"sha256":"$SHA"}`
	write := `{"step":"begin","environment_id":"$ENV","session_id":"$SES","path":"docs/readme.md","size_bytes":5,"sha256":"$SHA"}`
	read := `{"handle":"handle-1","environment_id":"env-1","path":"src/main.go","max_bytes":4096}`
	readResult := `{"outcome":"rejected","error_code":"not_found"}`
	export := `{"step":"next","offset":65536}`
	exportResult := `{"outcome":"completed","offset":65536}`
	suspend := `{"environment_id":"env-1","suspend_id":"attempt-1"}`
	suspended := `{"environment_id":"env-1","suspend_id":"attempt-1","accepted":true}`
	id128 := strings.Repeat("r", proto.CorrelationIDMaxBytes)
	id129 := id128 + "r"
	uuidRule := func(typ string) string {
		return typ + ".id: must be a canonical lowercase non-nil UUID (the " + map[string]string{
			"runtime_prepare": "transfer ID", "runtime_prepare_result": "transfer ID",
			"workspace_write": "mutation ID", "workspace_write_result": "mutation ID"}[typ] + ")"
	}
	var cases []frameCase
	for _, tc := range []struct{ typ, payload string }{
		{"runtime_prepare", prep}, {"runtime_prepare_result", `{"outcome":"ready"}`},
		{"workspace_write", write}, {"workspace_write_result", `{"outcome":"ready"}`},
	} {
		rule := tc.typ + ": id is a canonical lowercase non-nil UUID"
		cases = append(cases,
			frameCase{rule: rule, frame: frame(tc.typ, "$TID", tc.payload)},
			frameCase{rule: rule, frame: frame(tc.typ, "00000000-0000-4000-8000-000000000001", tc.payload)},
			frameCase{rule: rule, frame: frame(tc.typ, strings.ToUpper(transferID), tc.payload), want: uuidRule(tc.typ)},
			frameCase{rule: rule, frame: frame(tc.typ, proto.NilUUID, tc.payload), want: uuidRule(tc.typ)},
			frameCase{rule: rule, frame: frame(tc.typ, "{"+transferID+"}", tc.payload), want: uuidRule(tc.typ)},
			frameCase{rule: rule, frame: frame(tc.typ, "urn:uuid:"+transferID, tc.payload), want: uuidRule(tc.typ)},
			frameCase{rule: rule, frame: frame(tc.typ, strings.ReplaceAll(transferID, "-", ""), tc.payload), want: uuidRule(tc.typ)},
			frameCase{rule: rule, frame: frame(tc.typ, " "+transferID, tc.payload), want: uuidRule(tc.typ)},
			frameCase{rule: rule, frame: frame(tc.typ, "", tc.payload), want: uuidRule(tc.typ)},
		)
	}
	// A result echoes its request's id, blank included: a request refused for its blank id is
	// answered under it.
	blankWant := func(typ, means string) string {
		if strings.HasSuffix(typ, "_result") || strings.HasSuffix(typ, "ed") {
			return ""
		}
		return typ + ".id: must not be blank (the " + means + ")"
	}
	for _, tc := range []struct{ typ, payload, means string }{
		{"workspace_read", read, "read operation ID"}, {"workspace_read_result", readResult, "read operation ID"},
		{"workspace_export", export, "export operation ID"}, {"workspace_export_result", exportResult, "export operation ID"},
		{"environment_quiesce", suspend, "suspension request ID"}, {"environment_resume", suspend, "suspension request ID"},
		{"environment_quiesced", suspended, "suspension request ID"}, {"environment_resumed", suspended, "suspension request ID"},
	} {
		rule := tc.typ + ": id is 1 to 128 bytes, not blank"
		want := tc.typ + ".id: must be 1 to 128 bytes (the " + tc.means + ")"
		cases = append(cases,
			frameCase{rule: rule, frame: frame(tc.typ, "op-1", tc.payload)},
			frameCase{rule: rule, frame: frame(tc.typ, id128, tc.payload)},
			frameCase{rule: rule, frame: frame(tc.typ, " op 1 ", tc.payload)},
			frameCase{rule: rule, frame: frame(tc.typ, id129, tc.payload), want: want},
			frameCase{rule: rule, frame: frame(tc.typ, "", tc.payload), want: want},
			frameCase{rule: rule, frame: frame(tc.typ, "  \t", tc.payload), want: blankWant(tc.typ, tc.means)},
		)
	}
	// 128 bytes, counted in bytes rather than characters: 64 two-byte runes fit, one more does not.
	cases = append(cases,
		frameCase{rule: "workspace_read: id is 1 to 128 bytes, not blank", frame: frame("workspace_read", strings.Repeat("é", 64), read)},
		frameCase{rule: "workspace_read: id is 1 to 128 bytes, not blank", frame: frame("workspace_read", strings.Repeat("é", 64)+"x", read), want: "workspace_read.id: must be 1 to 128 bytes (the read operation ID)"},
	)
	hb := `{"ts":1710000000,"active_requests":0}`
	cases = append(cases,
		frameCase{rule: "heartbeat: id is absent", frame: frame("heartbeat", "", hb)},
		frameCase{rule: "heartbeat: id is absent", frame: `{"type":"heartbeat","id":"","payload":{"ts":1,"active_requests":0}}`},
		frameCase{rule: "heartbeat: id is absent", frame: frame("heartbeat", "hb-1", hb), want: "heartbeat.id: must be absent"},
		frameCase{rule: "device_shutdown: id is unused and tolerated", frame: frame("device_shutdown", "", `{}`)},
		frameCase{rule: "device_shutdown: id is unused and tolerated", frame: frame("device_shutdown", "anything", `{}`)},
		frameCase{rule: "device_shutdown: id is unused and tolerated", frame: frame("device_shutdown", "anything", `{"reason":"x","drain":true}`), want: "device_shutdown.drain: unknown member"},
	)
	req := func(runID string) string {
		return `{"agent_kind":"contract","conversation_id":"","run_id":"` + runID + `","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`
	}
	runIDOf := func(f *proto.Frame) string { return f.RunID() }
	cases = append(cases,
		frameCase{rule: "prompt_request: id is the Run ID, or the payload's run_id when the id is empty", frame: frame("prompt_request", "run-env", req("")),
			check: expect(runIDOf, "run-env")},
		frameCase{rule: "prompt_request: id is the Run ID, or the payload's run_id when the id is empty", frame: frame("prompt_request", "", req("run-payload")),
			check: expect(runIDOf, "run-payload")},
		frameCase{rule: "prompt_request: id is the Run ID, or the payload's run_id when the id is empty", frame: frame("prompt_request", "run-env", req("run-payload")),
			check: expect(runIDOf, "run-env")},
		frameCase{rule: "prompt_request: id is the Run ID, or the payload's run_id when the id is empty", frame: frame("prompt_request", "", req("")),
			want: "prompt_request.id: must carry the Run ID (or the payload's run_id)"},
		frameCase{rule: "prompt_request: id is the Run ID, or the payload's run_id when the id is empty", frame: frame("prompt_request", "", req("   ")),
			want: "prompt_request.id: must carry the Run ID (or the payload's run_id)"},
		frameCase{rule: "prompt_request: id is the Run ID, or the payload's run_id when the id is empty", frame: frame("prompt_request", " ", req("run-payload")),
			want: "prompt_request.id: must carry the Run ID (or the payload's run_id)"},
	)
	for _, tc := range []struct{ typ, id, payload, want string }{
		{"execution_prepare", "prep-1", `{"session_id":"s","configuration":{"agent_kind":"k"}}`, "execution_prepare.id: must carry the preparation request ID"},
		{"preparation_status", "prep-1", `{"revision":0,"state":"rejected","operation":"execution_prepare","error_code":"invalid_request"}`, "preparation_status.id: must carry the preparation request ID"},
		{"done", "run-1", `{"content":""}`, "done.id: must carry the Run ID"},
		{"permission_decision", "perm-1", `{"delivery_id":"d-1","approved":false}`, "permission_decision.id: must carry the interaction ID (request_id)"},
		{"prompt_for_user_choice_decision", "ask-1", `{"delivery_id":"d-1","cancelled":true}`, "prompt_for_user_choice_decision.id: must carry the interaction ID (ask_id)"},
		{"interaction_decision_ack", "run-1", `{"delivery_id":"d-1","applied":false,"error_code":"run_inactive"}`, "interaction_decision_ack.id: must carry the ID of the answered request (interaction ID, or Run ID for cancellation and function results)"},
	} {
		rule := tc.typ + ": id is required and not blank"
		cases = append(cases,
			frameCase{rule: rule, frame: frame(tc.typ, tc.id, tc.payload)},
			frameCase{rule: rule, frame: frame(tc.typ, "", tc.payload), want: tc.want},
			frameCase{rule: rule, frame: frame(tc.typ, " \t", tc.payload), want: tc.want},
		)
	}
	return cases
}

func TestRulesEnvelope(t *testing.T)   { runCases(t, envelopeCases()) }
func TestRulesIDs(t *testing.T)        { runCases(t, idCases()) }
func TestRulesStrictness(t *testing.T) { runCases(t, strictnessCases()) }

// Every type applies its own id rule to its base frame: the expected error for a missing id is
// spelled out per type, so a registry entry with the wrong rule fails here.
func TestEveryTypeAppliesItsIDRule(t *testing.T) {
	const (
		runID       = "must carry the Run ID"
		prepID      = "must carry the preparation request ID"
		transfer    = "must be a canonical lowercase non-nil UUID (the transfer ID)"
		mutation    = "must be a canonical lowercase non-nil UUID (the mutation ID)"
		readOp      = "must be 1 to 128 bytes (the read operation ID)"
		exportOp    = "must be 1 to 128 bytes (the export operation ID)"
		suspension  = "must be 1 to 128 bytes (the suspension request ID)"
		interaction = "must carry the interaction ID (request_id)"
	)
	// missing: the error when the id is absent ("" when absence is valid);
	// present: the error when an id "x" is present ("" when valid).
	rules := map[string]struct{ missing, present string }{
		proto.TypeRuntimePrepare:              {transfer, transfer},
		proto.TypeRuntimePrepareResult:        {transfer, transfer},
		proto.TypeExecutionPrepare:            {prepID, ""},
		proto.TypeExecutionStart:              {prepID, ""},
		proto.TypeExecutionRelease:            {prepID, ""},
		proto.TypePreparationStatus:           {prepID, ""},
		proto.TypePromptRequest:               {"must carry the Run ID (or the payload's run_id)", ""},
		proto.TypePromptCancel:                {runID, ""},
		proto.TypeDeviceShutdown:              {"", ""},
		proto.TypeDelta:                       {runID, ""},
		proto.TypeThinking:                    {runID, ""},
		proto.TypeOutputMessage:               {runID, ""},
		proto.TypeToolCall:                    {runID, ""},
		proto.TypeUsage:                       {runID, ""},
		proto.TypeError:                       {runID, ""},
		proto.TypeDone:                        {runID, ""},
		proto.TypeHeartbeat:                   {"", "must be absent"},
		proto.TypePermissionDecision:          {interaction, ""},
		proto.TypePromptForUserChoiceDecision: {"must carry the interaction ID (ask_id)", ""},
		proto.TypePermissionRequest:           {runID, ""},
		proto.TypePermissionCancel:            {interaction, ""},
		proto.TypePromptForUserChoice:         {runID, ""},
		proto.TypeInteractionDecisionAck:      {"must carry the ID of the answered request (interaction ID, or Run ID for cancellation and function results)", ""},
		proto.TypePromptSteer:                 {runID, ""},
		proto.TypePromptSteerAck:              {runID, ""},
		proto.TypeFunctionResult:              {runID, ""},
		proto.TypeFunctionCall:                {runID, ""},
		proto.TypeWorkspaceRead:               {readOp, ""},
		proto.TypeWorkspaceReadResult:         {readOp, ""},
		proto.TypeWorkspaceWrite:              {mutation, mutation},
		proto.TypeWorkspaceWriteResult:        {mutation, mutation},
		proto.TypeWorkspaceExport:             {exportOp, ""},
		proto.TypeWorkspaceExportResult:       {exportOp, ""},
		proto.TypeEnvironmentQuiesce:          {suspension, ""},
		proto.TypeEnvironmentResume:           {suspension, ""},
		proto.TypeEnvironmentQuiesced:         {suspension, ""},
		proto.TypeEnvironmentResumed:          {suspension, ""},
		proto.TypeSubagentIdentity:            {runID, ""},
		proto.TypeSubagentLifecycle:           {runID, ""},
		proto.TypeSubagentTurn:                {runID, ""},
		proto.TypeSubagentItem:                {runID, ""},
		proto.TypeSubagentCoordination:        {runID, ""},
	}
	frames := baseFrames()
	for _, spec := range proto.Specs() {
		rule, ok := rules[spec.Type]
		if !ok {
			t.Errorf("%s: no id rule spelled out in this test", spec.Type)
			continue
		}
		env, err := proto.DecodeEnvelope([]byte(frames[spec.Type]))
		if err != nil {
			t.Fatalf("%s: %v", spec.Type, err)
		}
		for _, tc := range []struct {
			id, want string
		}{{"", rule.missing}, {"x", rule.present}} {
			e := env
			e.ID = tc.id
			want := ""
			if tc.want != "" {
				want = spec.Type + ".id: " + tc.want
			}
			got := ""
			if _, err := proto.ParseEnvelope(e); err != nil {
				got = err.Error()
			}
			if got != want {
				t.Errorf("%s with id %q:\n got %q\nwant %q", spec.Type, tc.id, got, want)
			}
		}
	}
}

// Strict decoding: every Core → Runtime request rejects an unknown member at any depth, and so
// does tool_call; every other Runtime → Core frame ignores unknown members.
func strictnessCases() []frameCase {
	type c = frameCase
	strict := func(typ string) string { return typ + ": strict decoding rejects unknown members at any depth" }
	lenient := func(typ string) string { return typ + ": lenient decoding ignores unknown members" }
	cfg := `"agent_kind":"contract","conversation_id":"","run_id":""`
	cases := []frameCase{
		{rule: strict("runtime_prepare"), frame: frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"file","file":{"path":"/workspace/a"},"size_bytes":0,"sha256":"$SHA"}`)},
		{rule: strict("runtime_prepare"), frame: frame("runtime_prepare", "$TID", `{"step":"commit","checksum":"x"}`), want: "runtime_prepare.checksum: unknown member"},
		{rule: strict("runtime_prepare"), frame: frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"file","file":{"path":"/workspace/a","mode":"0644"},"size_bytes":0,"sha256":"$SHA"}`), want: "runtime_prepare.file.mode: unknown member"},
		{rule: strict("runtime_prepare"), frame: frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"initialize","initialization":{"action":"npm","packages":["left-pad"],"network":"enabled"}}`), want: "runtime_prepare.initialization.network: unknown member"},
		{rule: strict("runtime_prepare"), frame: frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"finalize","sources":{"skills":[{"type":"inline","name":"n","description":"d","version":"1"}]}}`), want: "runtime_prepare.sources.skills[0].version: unknown member"},
		{rule: strict("runtime_prepare"), frame: frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"finalize","sources":{},"budget_ms":1000}`), want: "runtime_prepare.budget_ms: unknown member"},
		{rule: strict("execution_prepare"), frame: frame("execution_prepare", "prep-1", `{"session_id":"s-1","configuration":{`+cfg+`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":null}}}`)},
		{rule: strict("execution_prepare"), frame: frame("execution_prepare", "prep-1", `{"session_id":"s-1","configuration":{`+cfg+`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":null,"home":"/root"}}}`), want: "execution_prepare.configuration.local_environment.home: unknown member"},
		{rule: strict("execution_prepare"), frame: frame("execution_prepare", "prep-1", `{"session_id":"s-1","configuration":{`+cfg+`,"local_environment":{"id":"env-1","workspace_directory":"/workspace","capability_sources":{"directories":[],"archives":[]}}}}`), want: "execution_prepare.configuration.local_environment.capability_sources.archives: unknown member"},
		{rule: strict("execution_prepare"), frame: frame("execution_prepare", "prep-1", `{"session_id":"s-1","configuration":{`+cfg+`,"model":"gpt"}}`), want: "execution_prepare.configuration.model: unknown member"},
		{rule: strict("execution_prepare"), frame: frame("execution_prepare", "prep-1", `{"session_id":"s-1","configuration":{`+cfg+`},"priority":1}`), want: "execution_prepare.priority: unknown member"},
		// Opaque members are passed unchanged: their content is not a wire shape.
		{rule: strict("execution_prepare"), frame: frame("execution_prepare", "prep-1", `{"session_id":"s-1","configuration":{`+cfg+`,"agent_options":{"contract":{"anything":[1,{"goes":true}]}}}}`)},
		{rule: strict("execution_start"), frame: frame("execution_start", "prep-1", `{"executor_id":"e","handle":"h","run_id":"r","input":[{"content":[{"type":"input_text","text":"hi"}]}]}`)},
		{rule: strict("execution_start"), frame: frame("execution_start", "prep-1", `{"executor_id":"e","handle":"h","run_id":"r","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}`), want: "execution_start.input[0].role: unknown member"},
		{rule: strict("execution_release"), frame: frame("execution_release", "prep-1", `{"handle":"h"}`)},
		{rule: strict("execution_release"), frame: frame("execution_release", "prep-1", `{"handle":"h","reason":"user"}`), want: "execution_release.reason: unknown member"},
		{rule: strict("prompt_request"), frame: frame("prompt_request", "run-1", `{`+cfg+`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"https://mcp.example","allowed_tools":null}],"disable_execution_environment":true}`)},
		{rule: strict("prompt_request"), frame: frame("prompt_request", "run-1", `{`+cfg+`,"mcp_http_servers":[{"connection_origin":"service","server_label":"l","server_url":"https://mcp.example","allowed_tools":null,"headers":{}}],"disable_execution_environment":true}`), want: "prompt_request.mcp_http_servers[0].headers: unknown member"},
		{rule: strict("prompt_request"), frame: frame("prompt_request", "run-1", `{`+cfg+`,"execution_controls":{"web_search":"disabled","text_verbosity":"low","output_format":{"type":"json_schema","schema":{},"strict":true}}}`), want: "prompt_request.execution_controls.output_format.strict: unknown member"},
		{rule: strict("prompt_request"), frame: frame("prompt_request", "run-1", `{`+cfg+`,"function_tools":[{"name":"f","description":"d","parameters":{"type":"object"},"strict":true}]}`), want: "prompt_request.function_tools[0].strict: unknown member"},
		{rule: strict("prompt_cancel"), frame: frame("prompt_cancel", "run-1", `{"delivery_id":"d"}`)},
		{rule: strict("prompt_cancel"), frame: frame("prompt_cancel", "run-1", `{"delivery_id":"d","reason":"user"}`), want: "prompt_cancel.reason: unknown member"},
		{rule: strict("device_shutdown"), frame: frame("device_shutdown", "", `{"reason":"x"}`)},
		{rule: strict("device_shutdown"), frame: frame("device_shutdown", "", `{"reason":"x","grace_ms":5}`), want: "device_shutdown.grace_ms: unknown member"},
		{rule: strict("permission_decision"), frame: frame("permission_decision", "perm-1", `{"delivery_id":"d","approved":true}`)},
		{rule: strict("permission_decision"), frame: frame("permission_decision", "perm-1", `{"delivery_id":"d","approved":true,"scope":"session"}`), want: "permission_decision.scope: unknown member"},
		{rule: strict("prompt_for_user_choice_decision"), frame: frame("prompt_for_user_choice_decision", "ask-1", `{"delivery_id":"d","question_answers":[{"question_id":"q1","answers":[]}]}`)},
		{rule: strict("prompt_for_user_choice_decision"), frame: frame("prompt_for_user_choice_decision", "ask-1", `{"delivery_id":"d","question_answers":[{"question_id":"q1","answers":[],"note":"x"}]}`), want: "prompt_for_user_choice_decision.question_answers[0].note: unknown member"},
		{rule: strict("prompt_steer"), frame: frame("prompt_steer", "run-1", `{"input_id":"1","input":[{"content":[{"type":"input_text","text":"x"}]}]}`)},
		{rule: strict("prompt_steer"), frame: frame("prompt_steer", "run-1", `{"input_id":"1","input":[{"content":[{"type":"input_text","text":"x"}]}],"priority":"high"}`), want: "prompt_steer.priority: unknown member"},
		{rule: strict("function_result"), frame: frame("function_result", "run-1", `{"delivery_id":"d","call_id":"c","success":false,"content":[]}`)},
		{rule: strict("function_result"), frame: frame("function_result", "run-1", `{"delivery_id":"d","call_id":"c","success":false,"content":[],"is_error":true}`), want: "function_result.is_error: unknown member"},
		{rule: strict("workspace_read"), frame: frame("workspace_read", "read-1", `{"run_id":"run-1","environment_id":"env-1","path":"","max_bytes":0,"operation":"directory","max_entries":10}`)},
		{rule: strict("workspace_read"), frame: frame("workspace_read", "read-1", `{"run_id":"run-1","environment_id":"env-1","path":"","max_bytes":0,"operation":"directory","max_entries":10,"recursive":true}`), want: "workspace_read.recursive: unknown member"},
		{rule: strict("workspace_write"), frame: frame("workspace_write", "$TID", `{"step":"commit"}`)},
		{rule: strict("workspace_write"), frame: frame("workspace_write", "$TID", `{"step":"commit","mode":"0644"}`), want: "workspace_write.mode: unknown member"},
		{rule: strict("workspace_export"), frame: frame("workspace_export", "export-1", `{"step":"cancel"}`)},
		{rule: strict("workspace_export"), frame: frame("workspace_export", "export-1", `{"step":"cancel","format":"zip"}`), want: "workspace_export.format: unknown member"},
		{rule: strict("environment_quiesce"), frame: frame("environment_quiesce", "susp-1", `{"environment_id":"e","suspend_id":"s"}`)},
		{rule: strict("environment_quiesce"), frame: frame("environment_quiesce", "susp-1", `{"environment_id":"e","suspend_id":"s","force":true}`), want: "environment_quiesce.force: unknown member"},
		{rule: strict("environment_resume"), frame: frame("environment_resume", "susp-1", `{"environment_id":"e","suspend_id":"s","rollback":true}`)},
		{rule: strict("environment_resume"), frame: frame("environment_resume", "susp-1", `{"environment_id":"e","suspend_id":"s","epoch":2}`), want: "environment_resume.epoch: unknown member"},
		{rule: strict("tool_call"), frame: frame("tool_call", "run-1", `{"id":"c","name":"n","stage":"after","result":{"ok":true}}`)},
		{rule: strict("tool_call"), frame: frame("tool_call", "run-1", `{"id":"c","name":"n","stage":"after","duration_ms":5}`), want: "tool_call.duration_ms: unknown member"},
		{rule: strict("tool_call"), frame: frame("tool_call", "run-1", `{"id":"c","name":"n","stage":"after","observation":{"kind":"command","status":"completed","pid":7}}`), want: "tool_call.observation.pid: unknown member"},
		{rule: strict("tool_call"), frame: frame("tool_call", "run-1", `{"id":"c","name":"n","stage":"after","observation":{"kind":"web_search","status":"completed","action":{"type":"search","query":"q","engine":"x"}}}`), want: "tool_call.observation.action.engine: unknown member"},
	}
	// An unknown member that matches a known one but for letter case is ignored like any other
	// unknown member: it never stands in for the known member, at any depth.
	const folded = "lenient decoding: a member differing from a known one only in case is an ignored unknown member"
	cases = append(cases,
		c{rule: folded, frame: frame("delta", "run-1", `{"delta":"kept","sequence":1,"DELTA":"ignored","Sequence":99}`),
			check: expect(func(f *proto.Frame) proto.DeltaPayload { return *payloadOf[proto.DeltaPayload](f) }, proto.DeltaPayload{Delta: "kept", Sequence: 1})},
		c{rule: folded, frame: frame("done", "run-1", `{"content":"","Usage":{"tokens":{}},"METADATA":{"agent_session_id":"x"}}`),
			check: expect(func(f *proto.Frame) proto.DonePayload { return *payloadOf[proto.DonePayload](f) }, proto.DonePayload{})},
		c{rule: folded, frame: frame("error", "run-1", `{"error":"boom","Code":"connection_failed","HTTP_Status":503}`), check: expect(errorCodes, [2]any{"", 0})},
		c{rule: folded, frame: frame("workspace_read_result", "read-1", `{"outcome":"completed","close_acknowledged":true,"directory":{"entries":[{"name":"a","kind":"directory","size_bytes":null,"Size_Bytes":5,"KIND":"file"}],"truncated":false,"Truncated":true}}`),
			check: expect(func(f *proto.Frame) proto.WorkspaceDirectoryResult {
				return *payloadOf[proto.WorkspaceReadResultPayload](f).Directory
			}, proto.WorkspaceDirectoryResult{Entries: []proto.DirectoryEntry{{Name: "a", Kind: "directory"}}})},
		c{rule: folded, frame: frame("heartbeat", "", `{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"k","available":true,"capabilities":$CAPS,"Kind":"other","AVAILABLE":false}]}`),
			check: expect(func(f *proto.Frame) [2]any {
				k := payloadOf[proto.HeartbeatPayload](f).SupportedAgentKinds[0]
				return [2]any{k.Kind, k.Available}
			}, [2]any{"k", true})},
		c{rule: folded, frame: frame("delta", "run-1", `{"Delta":"x","sequence":1}`), want: "delta.delta: is required"},
		c{rule: folded, frame: frame("prompt_steer_ack", "run-1", `{"input_id":"1","Accepted":true}`), want: "prompt_steer_ack.accepted: is required"},
		c{rule: folded, frame: frame("done", "run-1", `{"Content":"x"}`), want: "done.content: is required"},
	)
	for _, tc := range []struct{ typ, id, payload, bad, want string }{
		{"runtime_prepare_result", "$TID", `{"outcome":"ready","budget_ms":1}`, `{"outcome":"ready","offset":"1","budget_ms":1}`, "runtime_prepare_result.offset: must be a JSON integer"},
		{"preparation_status", "prep-1", `{"handle":"h","revision":1,"state":"preparing","assignment":{"epoch":1}}`, `{"handle":"h","revision":"1","state":"preparing","assignment":{}}`, "preparation_status.revision: must be a JSON integer"},
		{"delta", "run-1", `{"delta":"x","sequence":1,"channel":"final"}`, `{"delta":5,"sequence":1,"channel":"final"}`, "delta.delta: must be a JSON string"},
		{"thinking", "run-1", `{"text":"x","signature":"sig"}`, `{"signature":"sig"}`, "thinking.text: is required"},
		{"output_message", "run-1", `{"id":"m","status":"in_progress","role":"assistant"}`, `{"id":"m","status":"in_progress","text":5,"role":"assistant"}`, "output_message.text: must be a JSON string"},
		{"usage", "run-1", `{"model":"m","tokens":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":2,"audio_tokens":0},"future":1}`, `{"model":"m","tokens":{"input_tokens":1},"future":1}`, "usage.tokens.cached_input_tokens: is required"},
		{"error", "run-1", `{"error":"x","retry_after":3}`, `{"retry_after":3}`, "error.error: is required"},
		{"done", "run-1", `{"content":"","stop_reason":"end_turn","usage":{"tokens":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":2},"extra":{}}}`, `{"content":"","stop_reason":"end_turn","metadata":{"agent_session_id":7}}`, "done.metadata.agent_session_id: must be a JSON string"},
		{"heartbeat", "", `{"ts":1,"active_requests":0,"claude_available":true,"supported_agent_kinds":[{"kind":"k","available":false,"capabilities":$CAPS,"models":["m"]}]}`, `{"ts":1,"active_requests":0,"claude_available":true,"supported_agent_kinds":[{"kind":"k","available":"no","capabilities":$CAPS}]}`, "heartbeat.supported_agent_kinds[0].available: must be a JSON boolean"},
		{"permission_request", "run-1", `{"request_id":"p","tool":"t","title":"x","risk":"high"}`, `{"request_id":"p","tool":"t","risk":"high"}`, "permission_request.title: is required"},
		{"prompt_for_user_choice", "run-1", `{"ask_id":"a","questions":[{"id":"q","question":"?","options":[{"label":"y","preview":"p"}],"kind":"radio"}],"timeout":1}`, `{"ask_id":"a","questions":[{"id":"q","question":"?","kind":"radio"}]}`, "prompt_for_user_choice.questions[0].options: is required"},
		{"interaction_decision_ack", "run-1", `{"delivery_id":"d","applied":true,"latency_ms":3}`, `{"delivery_id":"d","latency_ms":3}`, "interaction_decision_ack.applied: is required"},
		{"prompt_steer_ack", "run-1", `{"input_id":"1","accepted":true,"native_id":"n"}`, `{"input_id":"1","accepted":1,"native_id":"n"}`, "prompt_steer_ack.accepted: must be a JSON boolean"},
		{"function_call", "run-1", `{"call_id":"c","name":"n","arguments":{},"namespace":"x"}`, `{"call_id":"c","name":"n","namespace":"x"}`, "function_call.arguments: is required"},
		{"workspace_read_result", "read-1", `{"outcome":"completed","close_acknowledged":true,"directory":{"entries":[{"name":"a","kind":"file","size_bytes":1,"mode":420}],"truncated":false,"cursor":"x"},"elapsed_ms":3}`, `{"outcome":"completed","close_acknowledged":true,"directory":{"entries":[{"name":"a","kind":"file","mode":420}],"truncated":false}}`, "workspace_read_result.directory.entries[0].size_bytes: is required"},
		{"workspace_write_result", "$TID", `{"outcome":"ready","detail":"x"}`, `{"detail":"x"}`, "workspace_write_result.outcome: is required"},
		{"workspace_export_result", "export-1", `{"outcome":"completed","offset":10,"sha256":"x"}`, `{"outcome":"completed","sha256":"x"}`, "workspace_export_result.offset: is required"},
		{"environment_quiesced", "susp-1", `{"environment_id":"e","suspend_id":"s","accepted":true,"drained_ms":4}`, `{"environment_id":"e","suspend_id":"s","drained_ms":4}`, "environment_quiesced.accepted: is required"},
		{"environment_resumed", "susp-1", `{"environment_id":"e","suspend_id":"s","accepted":true,"note":"x"}`, `{"suspend_id":"s","accepted":true,"note":"x"}`, "environment_resumed.environment_id: is required"},
		{"subagent_item", "run-1", `{"native_id":"n","turn_id":"t","item_id":"i","position":1,"kind":"k","payload":{},"extra":1}`, `{"native_id":"n","turn_id":"t","item_id":"i","position":1,"kind":"k","extra":1}`, "subagent_item.payload: is required"},
	} {
		cases = append(cases,
			c{rule: lenient(tc.typ), frame: frame(tc.typ, tc.id, tc.payload)},
			c{rule: lenient(tc.typ), frame: frame(tc.typ, tc.id, tc.bad), want: tc.want},
		)
	}
	return cases
}

// The registry marks exactly the Core → Runtime requests and tool_call strict.
func TestStrictTypes(t *testing.T) {
	var got, want []string
	for _, spec := range proto.Specs() {
		if spec.Strict {
			got = append(got, spec.Type)
		}
		if spec.From == proto.Core || spec.Type == proto.TypeToolCall {
			want = append(want, spec.Type)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("strict types (-want +got):\n%s", diff)
	}
	if len(want) != 17 { // the spec's 16 Core → Runtime types, and tool_call
		t.Errorf("%d strict types, want 17: %v", len(want), want)
	}
}

// facts §1.4: byte-for-byte equality with proto.Version; everything else is rejected.
func TestVersionRule(t *testing.T) {
	if proto.Version != "0.11.0" {
		t.Errorf("proto.Version = %q, want the spec-era 0.11.0 (design.md)", proto.Version)
	}
	tests := []struct {
		version string
		want    bool
	}{
		{proto.Version, true},
		{"0.7.0", false},
		{"0.8.99", false},
		{"0.8.", false},
		{proto.Version + "-dev", false},
		{proto.Version + "+build", false},
		{"0.6.99", false},
		{"1.0.0", false},
		{"", false},
		{"garbage", false},
		{"0.8", false},
		{"0.8.invalid", false},
		{" " + proto.Version, false},
		{proto.Version + " ", false},
		{proto.Version + "\n", false},
		{"v" + proto.Version, false},
		{"0.11", false},
		{"0.11.1", false},
		{"0.10.0", false},
		{"0.12.0", false},
	}
	for _, tt := range tests {
		if got := proto.VersionCompatible(tt.version); got != tt.want {
			t.Errorf("VersionCompatible(%q) = %v, want %v", tt.version, got, tt.want)
		}
	}
}

// Every finite code set is exactly the list of protocol-facts.md §6.3 (and §1.2, §6.1, §6.2), and
// every Known… predicate accepts one listed code and refuses one unlisted code.
func TestFiniteCodeSets(t *testing.T) {
	keys := func(s proto.CodeSet) []string {
		out := make([]string, 0, len(s))
		for k := range s {
			out = append(out, k)
		}
		return out
	}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	sets := []struct {
		name string
		got  proto.CodeSet
		want []string
	}{
		{"preparation_status", proto.PreparationCodes, []string{"invalid_request", "invalid_configuration", "resource_unavailable", "unsupported_preparation", "unsupported_read_preparation", "unsupported_configuration", "request_conflict", "preparation_capacity", "session_binding_conflict", "configuration_conflict", "executor_cleanup_unconfirmed", "native_session_conflict", "history_unavailable", "executor_capacity", "preparation_failed", "status_delivery_failed", "connection_closed", "invalid_start", "unknown_preparation", "read_only_preparation", "unknown_executor", "start_conflict", "preparation_not_ready", "run_conflict", "executor_unavailable", "start_cancelled", "invalid_release", "cleanup_unconfirmed"}},
		{"runtime_prepare_result rejected", proto.RuntimePrepareRejectedCodes, []string{"invalid_request", "resource_unavailable", "runtime_preparation_capacity", "runtime_preparation_unsupported", "runtime_preparation_rejected"}},
		{"runtime_prepare_result failed", proto.RuntimePrepareFailedCodes, []string{"runtime_preparation_failed"}},
		{"runtime_prepare_result unknown", proto.RuntimePrepareUnknownCodes, []string{"runtime_preparation_unconfirmed"}},
		{"workspace_write_result rejected", proto.WriteRejectedCodes, []string{"invalid_request", "resource_unavailable", "write_capacity", "write_unsupported", "write_rejected"}},
		{"workspace_write_result unknown", proto.WriteUnknownCodes, []string{"write_unconfirmed"}},
		{"workspace_write_result reasons", proto.WriteReasons, []string{"destination_directory", "unsafe_destination"}},
		{"workspace_read_result rejected", proto.ReadRejectedCodes, []string{"invalid_request", "read_capacity", "resource_unavailable", "read_unsupported", "not_directory", "not_found", "permission_denied"}},
		{"workspace_read_result unknown", proto.ReadUnknownCodes, []string{"read_unconfirmed"}},
		{"workspace_export_result rejected", proto.ExportRejectedCodes, []string{"resource_unavailable", "read_unsupported"}},
		{"workspace_export_result failed", proto.ExportFailedCodes, []string{"invalid_request", "export_failed"}},
		{"suspension", proto.SuspensionCodes, []string{"invalid_request", "resource_busy", "not_suspended"}},
		{"prompt_steer_ack", proto.SteerCodes, []string{"invalid_input", "run_inactive", "input_conflict", "input_limit", "not_ready", "busy", "in_flight", "unsupported", "contract_violation", "rejected", "outcome_unknown"}},
		{"interaction_decision_ack decisions", proto.DecisionAckCodes, []string{"not_pending", "not_ready", "unsupported", "contract_violation", "runtime_error", "decision_conflict"}},
		{"interaction_decision_ack function results", proto.FunctionResultAckCodes, []string{"invalid_result", "not_ready", "unsupported", "contract_violation", "not_pending", "runtime_error", "decision_conflict"}},
		{"interaction_decision_ack cancellation", proto.CancellationAckCodes, []string{"run_inactive", "cancel_failed", "cancel_output_unavailable", "cancel_outcome_unavailable", "cancel_timeout"}},
		{"engine failure", proto.EngineCodes, []string{"authentication_error", "rate_limit_exceeded", "usage_limit_exceeded", "server_overloaded", "server_error", "invalid_request", "resource_not_found", "request_timeout", "context_length_exceeded", "cyber_policy", "connection_failed"}},
		{"Turn reasons", proto.TurnReasons, []string{"delivery_unknown", "event_stream_incomplete", "device_disconnected", "event_persistence_failed", "preparation_interrupted", "preparation_start_failed", "executor_recovery_failed", "engine_failed", "invalid_executor_result", "cancel_unconfirmed", "cancel_outcome_unavailable", "input_outcome_unknown", "invalid_input", "message_input_unsupported", "function_call_invalid", "function_result_invalid", "function_result_unconfirmed", "interaction_not_supported", "execution_interrupted", "execution_state_unavailable", "execution_state_changed", "cleanup_unconfirmed"}},
	}
	for _, s := range sets {
		if diff := cmp.Diff(s.want, keys(s.got), sorted); diff != "" {
			t.Errorf("%s codes (-facts +proto):\n%s", s.name, diff)
		}
	}

	predicates := []struct {
		name     string
		known    func(string) bool
		listed   string
		unlisted string
	}{
		{"KnownPreparationCode", proto.KnownPreparationCode, "session_binding_conflict", "runtime_preparation_capacity"},
		{"KnownPreparationState", proto.KnownPreparationState, "starting", "paused"},
		{"KnownRuntimePrepareCode(rejected)", func(c string) bool { return proto.KnownRuntimePrepareCode("rejected", c) }, "runtime_preparation_capacity", "runtime_preparation_failed"},
		{"KnownRuntimePrepareCode(failed)", func(c string) bool { return proto.KnownRuntimePrepareCode("failed", c) }, "runtime_preparation_failed", "invalid_request"},
		{"KnownRuntimePrepareCode(unknown)", func(c string) bool { return proto.KnownRuntimePrepareCode("unknown", c) }, "runtime_preparation_unconfirmed", "runtime_preparation_failed"},
		{"KnownRuntimePrepareCode(completed)", func(c string) bool { return proto.KnownRuntimePrepareCode("completed", c) }, "", "invalid_request"},
		{"KnownWriteCode(rejected)", func(c string) bool { return proto.KnownWriteCode("rejected", c) }, "write_rejected", "write_unconfirmed"},
		{"KnownWriteCode(unknown)", func(c string) bool { return proto.KnownWriteCode("unknown", c) }, "write_unconfirmed", "write_rejected"},
		{"KnownWriteCode(failed)", func(c string) bool { return proto.KnownWriteCode("failed", c) }, "", "write_rejected"},
		{"KnownWriteReason", proto.KnownWriteReason, "unsafe_destination", "disk_full"},
		{"KnownReadCode(rejected)", func(c string) bool { return proto.KnownReadCode("rejected", c) }, "not_directory", "read_unconfirmed"},
		{"KnownReadCode(unknown)", func(c string) bool { return proto.KnownReadCode("unknown", c) }, "read_unconfirmed", "not_found"},
		{"KnownExportCode(rejected)", func(c string) bool { return proto.KnownExportCode("rejected", c) }, "read_unsupported", "export_failed"},
		{"KnownExportCode(failed)", func(c string) bool { return proto.KnownExportCode("failed", c) }, "export_failed", "read_unsupported"},
		{"KnownSuspensionCode", proto.KnownSuspensionCode, "resource_busy", "resource_unavailable"},
		{"KnownSteerCode", proto.KnownSteerCode, "in_flight", "not_pending"},
		{"RetryableSteerCode", proto.RetryableSteerCode, "busy", "in_flight"},
		{"KnownDecisionAckCode", proto.KnownDecisionAckCode, "decision_conflict", "invalid_result"},
		{"KnownFunctionResultAckCode", proto.KnownFunctionResultAckCode, "invalid_result", "cancel_failed"},
		{"KnownCancellationAckCode", proto.KnownCancellationAckCode, "cancel_timeout", "not_pending"},
		{"KnownAckCode", proto.KnownAckCode, "cancel_output_unavailable", "input_conflict"},
		{"KnownEngineCode", proto.KnownEngineCode, "cyber_policy", "quota_exceeded"},
		{"KnownTurnReason", proto.KnownTurnReason, "event_stream_incomplete", "device_offline"},
		{"KnownTurnReason(input_<code>)", proto.KnownTurnReason, "input_rejected", "input_busy"},
		{"KnownTurnStatus", proto.KnownTurnStatus, "cancelled", "canceled"},
		{"KnownHTTPError", proto.KnownHTTPError, "incompatible_version", "forbidden"},
		{"KnownWebSearch", proto.KnownWebSearch, "cached", "enabled"},
		{"KnownTextVerbosity", proto.KnownTextVerbosity, "medium", "verbose"},
		{"TerminalPreparationState", proto.TerminalPreparationState, "expired", "ready"},
	}
	for _, p := range predicates {
		if p.listed != "" && !p.known(p.listed) {
			t.Errorf("%s(%q) = false, want true", p.name, p.listed)
		}
		if p.known(p.unlisted) {
			t.Errorf("%s(%q) = true, want false", p.name, p.unlisted)
		}
		if p.known("") {
			t.Errorf("%s(\"\") = true, want false", p.name)
		}
	}
}

// facts §1.2 and §1.3: every HTTP error code and its status; 401, 403 and 426 are permanent.
func TestHTTPErrors(t *testing.T) {
	want := map[string]int{
		"missing_params": 400, "missing_device_id": 400, "bad_json": 400,
		"missing_bearer": 401, "unknown_device": 401, "bad_credential": 401,
		"wrong_runtime_type": 403, "method_not_allowed": 405, "incompatible_version": 426, "internal": 500,
	}
	for code, status := range want {
		if got := proto.HTTPStatusFor(code); got != status {
			t.Errorf("HTTPStatusFor(%q) = %d, want %d", code, got, status)
		}
		if !proto.KnownHTTPError(code) {
			t.Errorf("KnownHTTPError(%q) = false", code)
		}
	}
	if got := proto.HTTPStatusFor("not_a_code"); got != 0 {
		t.Errorf("HTTPStatusFor(unlisted) = %d, want 0", got)
	}
	for status, permanent := range map[int]bool{
		401: true, 403: true, 426: true,
		0: false, 200: false, 400: false, 404: false, 405: false, 408: false, 429: false, 500: false, 502: false, 503: false,
	} {
		if got := proto.PermanentHTTPStatus(status); got != permanent {
			t.Errorf("PermanentHTTPStatus(%d) = %v, want %v", status, got, permanent)
		}
	}
	// Close code 4001 (runtime deleted) is permanent for the daemon; 1000 and 1001 are clean.
	if proto.CloseRuntimeDeleted != 4001 || proto.CloseNormal != 1000 || proto.CloseGoingAway != 1001 {
		t.Errorf("close codes: %d %d %d", proto.CloseRuntimeDeleted, proto.CloseNormal, proto.CloseGoingAway)
	}
}

// The same frame always fails with the same words: when several members break a rule, the error
// names the first in name order, whatever order a map iterates in.
func TestErrorsAreDeterministic(t *testing.T) {
	for _, tc := range []struct{ frame, want string }{
		{frame("runtime_prepare", "$TID", `{"step":"commit","zeta":1,"alpha":2,"mid":3}`), "runtime_prepare.alpha: unknown member"},
		{frame("prompt_steer", "run-1", `{"input_id":"1","input":[{"content":[{"type":"input_text","text":"x","z":1,"b":2,"detail":3}]}]}`), "prompt_steer.input[0].content[0].b: unknown member for a input_text part"},
		{frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"initialize","initialization":{"action":"configure","env":{"Z":1,"M":2,"B":true}}}`), "runtime_prepare.initialization.env.B: must be a JSON string"},
		{frame("runtime_prepare", "$TID", `{"step":"begin","environment_id":"$ENV","session_id":"$SES","action":"initialize","initialization":{"action":"configure","env":{"Z":"\u0000","M":"\u0000","C":"\u0000"}}}`), "runtime_prepare.begin.initialization.env.C: must not contain NUL"},
		{frame("done", "run-1", `{"content":"","metadata":{"z":1,"y":null,"a":[]}}`), "done.metadata.a: must be a JSON string"},
	} {
		for range 50 {
			_, err := proto.ParseFrame([]byte(tc.frame))
			if got := errText(err); got != tc.want {
				t.Fatalf("%s:\n got %q\nwant %q", tc.frame, got, tc.want)
			}
		}
	}
}
