package scenarios

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
)

// Every loader error names file:line and the rule; each case is one mistake a scenario author makes.
func TestLoaderErrors(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown top-level key", "id: a\ntitle: t\nstep: []\n",
			`f.yaml:3: scenario: unknown key "step" (allowed: id, title, spec, rules, labels, requires, excludes, unavailable_kinds, tests, heartbeat, handshake, bootstrap_answer, vars, include, steps)`},
		{"bad step kind", "id: a\ntitle: t\nsteps:\n  - send: {}\n",
			`f.yaml:4: unknown step kind "send" (one of core, runtime, silence, settle, disconnect, reconnect, advance, any_order, check, include, fault, stop_reading, resume_reading, await_stall, export_pull, restart, repeat, bound)`},
		{"body_bytes on a chunk", "id: a\ntitle: t\ntests: core\nsteps:\n  - core: {type: runtime_prepare, id: \"${t}\", body_bytes: 5, payload: {step: chunk, data: aGVsbG8=}}\n",
			`f.yaml:5: body_bytes is the body of an operation Core prepares: only on a core runtime_prepare begin`},
		{"body_bytes out of range", "id: a\ntitle: t\ntests: core\nsteps:\n  - core: {type: runtime_prepare, id: \"${t}\", body_bytes: 0, payload: {step: commit}}\n",
			`f.yaml:5: body_bytes must be an integer from 1 to 67108864`},
		{"body_bytes outside tests core", "id: a\ntitle: t\nsteps:\n  - core: {type: runtime_prepare, id: \"${t}\", body_bytes: 5, payload: {step: begin, environment_id: 11111111-1111-4111-8111-111111111111, session_id: 22222222-2222-4222-8222-222222222222, action: file, file: {path: /workspace/a}, size_bytes: 5, sha256: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824}}\n",
			`f.yaml:4: body_bytes configures the body a Core under test prepares (a scripted core sends only the frames written): the scenario needs tests: core`},
		{"body_bytes with a chunk", "id: a\ntitle: t\ntests: core\nsteps:\n  - core: {type: runtime_prepare, id: \"${t}\", body_bytes: 5, payload: {step: begin, environment_id: 11111111-1111-4111-8111-111111111111, session_id: 22222222-2222-4222-8222-222222222222, action: file, file: {path: /workspace/a}, size_bytes: 5, sha256: 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824}}\n  - core: {type: runtime_prepare, id: \"${t}\", payload: {step: chunk, data: aGVsbG8=}}\n",
			`f.yaml:6: a chunk of a transfer whose begin has body_bytes: that body is made at play time, not spelled by chunks`},
		{"restart of a runtime", "id: a\ntitle: t\ntests: core\nsteps:\n  - restart: runtime\n",
			`f.yaml:5: restart: only core restarts (a Runtime's restart is not in the language)`},
		{"restart outside tests core", "id: a\ntitle: t\nsteps:\n  - restart: core\n",
			`f.yaml:4: restart restarts a Core under test (a Runtime under test sees only its transport end, which disconnect makes): the scenario needs tests: core`},
		{"restart with options", "id: a\ntitle: t\ntests: core\nsteps:\n  - restart: {peer: core}\n",
			`f.yaml:5: restart must be a string`},
		{"unknown message type", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancle, id: r}\n",
			`f.yaml:4: unknown message type "prompt_cancle"`},
		{"wrong sender", "id: a\ntitle: t\nsteps:\n  - core: {type: done, id: r, payload: {content: x}}\n",
			`f.yaml:4: done is sent by runtime, not core`},
		{"frame fails proto validation", "id: a\ntitle: t\nsteps:\n  - runtime:\n      type: preparation_status\n      id: p\n      payload: {revision: 0, state: ready, handle: h}\n",
			`f.yaml:5: frame breaks a wire rule: preparation_status.revision: must be at least 1 on ready (declare ` + "`invalid:`" + ` if that is the point)`},
		{"declared invalid but valid", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, invalid: nope}\n",
			`f.yaml:4: frame declares invalid "nope" but proto accepts it`},
		{"unknown key in a frame", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, paylod: {}}\n",
			`f.yaml:4: core frame: unknown key "paylod" (allowed: type, id, payload, trace, invalid, raw, lost, copies, corrupted, optional, pad_payload_to, body_bytes)`},
		{"bad id", "id: Exec/One\ntitle: t\nsteps:\n  - silence: core\n",
			`f.yaml:1: id "Exec/One" must be lowercase segments separated by / (e.g. execution/cancel-waits)`},
		{"unknown capability", "id: a\ntitle: t\nrequires: [teleport]\nsteps:\n  - silence: core\n",
			`f.yaml:3: requires: "teleport" is not a capability`},
		{"unavailable kind contract", "id: a\ntitle: t\ntests: runtime\nunavailable_kinds: [contract]\nsteps:\n  - silence: core\n",
			`f.yaml:4: unavailable_kinds: "contract" is the kind every scenario runs on; name another`},
		{"unavailable kind twice", "id: a\ntitle: t\ntests: runtime\nunavailable_kinds: [k, k]\nsteps:\n  - silence: core\n",
			`f.yaml:4: unavailable_kinds: "k" is named twice`},
		{"unavailable kind blank", "id: a\ntitle: t\ntests: runtime\nunavailable_kinds: [' ']\nsteps:\n  - silence: core\n",
			`f.yaml:4: unavailable_kinds: a kind must not be blank`},
		{"unavailable kinds on a Core test", "id: a\ntitle: t\nunavailable_kinds: [k]\nsteps:\n  - silence: core\n",
			`f.yaml:3: unavailable_kinds says what a Runtime under test must advertise: the scenario needs tests: runtime`},
		{"bad duration", "id: a\ntitle: t\nsteps:\n  - advance: soon\n",
			`f.yaml:4: advance must be a duration such as 50ms or 5m, got "soon"`},
		{"status and code disagree", "id: a\ntitle: t\nhandshake:\n  version: x\n  expect: {status: 401, error: incompatible_version}\n",
			`f.yaml:5: handshake.expect: error "incompatible_version" does not go with status 401 (facts §1.2)`},
		{"matcher without sample", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: {$regex: \"^c\"}}}\n",
			`f.yaml:4: $regex needs a sample string that matches it, for scripted writers to send`},
		{"fault is reserved", "id: a\ntitle: t\nsteps:\n  - fault: drop\n",
			`f.yaml:4: fault takes one rule of the fault schedule language (docs/fault-injection.md)`},
		{"mixed any_order", "id: a\ntitle: t\nsteps:\n  - any_order:\n    - core: {type: prompt_cancel, id: r}\n    - runtime: {type: done, id: r, payload: {content: x}}\n",
			`f.yaml:6: any_order frames must all come from one peer`},
		{"silence allows no list", "id: a\ntitle: t\nsteps:\n  - silence: {from: runtime, allow: {type: done}}\n",
			`f.yaml:4: silence.allow: a list of the frames the peer may send instead of nothing`},
		{"silence allows a frame of the other peer", "id: a\ntitle: t\nsteps:\n  - silence: {from: core, allow: [{type: done, id: r, payload: {content: x}}]}\n",
			`f.yaml:4: done is sent by runtime, not core`},
		{"silence allows an invalid frame", "id: a\ntitle: t\nsteps:\n  - silence: {from: runtime, allow: [{type: done, id: r, payload: {}, invalid: 'done.content: is required'}]}\n",
			`f.yaml:4: silence.allow holds frames a peer may send as they are: no raw, invalid, lost, copies, corrupted, optional or pad_payload_to`},
		{"optional in any_order", "id: a\ntitle: t\nsteps:\n  - any_order:\n    - runtime: {type: done, id: r, payload: {content: x}, optional: true}\n    - runtime: {type: done, id: q, payload: {content: x}}\n",
			`f.yaml:5: an any_order group holds the frames that must come: optional goes on a frame step of its own`},
		{"a relaxed code without its reading", "id: a\ntitle: t\nsteps:\n  - runtime: {type: interaction_decision_ack, id: r, payload: {delivery_id: d, applied: false, error_code: {$one_of: [not_pending, runtime_error]}}}\n",
			`f.yaml:4: payload.error_code accepts more than one answer: name the spec reading that allows it, reading: <entry of docs/spec-readings.md>`},
		{"a reading that is no entry name", "id: a\ntitle: t\nsteps:\n  - runtime: {type: interaction_decision_ack, id: r, payload: {delivery_id: d, applied: false, error_code: {$one_of: [not_pending, runtime_error], reading: Two Codes}}}\n",
			`f.yaml:4: payload.error_code: reading "Two Codes" is not an entry name (lowercase words joined by -, as the headings of docs/spec-readings.md)`},
		{"any_close with a code", "id: a\ntitle: t\nsteps:\n  - disconnect: {by: runtime, any_close: true, code: 1009}\n",
			`f.yaml:4: disconnect.any_close accepts any end of the transport: it takes no code or reason and is neither stopped nor dropped`},
		{"may_end by core", "id: a\ntitle: t\nsteps:\n  - disconnect: {by: core, may_end: true, reading: r}\n",
			`f.yaml:4: disconnect.may_end lets the Runtime end its transport from here on, any way it likes: it is by: runtime and takes no code, reason, awaited, stopped, dropped or any_close`},
		{"may_end with a code", "id: a\ntitle: t\nsteps:\n  - disconnect: {may_end: true, code: 1000, reading: r}\n",
			`f.yaml:4: disconnect.may_end lets the Runtime end its transport from here on, any way it likes: it is by: runtime and takes no code, reason, awaited, stopped, dropped or any_close`},
		{"may_end without its reading", "id: a\ntitle: t\nsteps:\n  - disconnect: {by: runtime, may_end: true}\n",
			`f.yaml:4: disconnect.may_end needs reading: <entry of docs/spec-readings.md> that lets the Runtime end its transport here`},
		{"a reading without may_end", "id: a\ntitle: t\nsteps:\n  - disconnect: {by: runtime, code: 1000, awaited: true, reading: r}\n",
			`f.yaml:4: disconnect.reading names the reading of a may_end`},
		{"settle.allow that is no list", "id: a\ntitle: t\nsteps:\n  - settle: {allow: {type: done, id: r}}\n",
			`f.yaml:4: settle.allow: a list of the frames the peer may send instead of nothing`},
		{"settle.allow of an optional frame", "id: a\ntitle: t\nsteps:\n  - settle: {allow: [{type: done, id: r, payload: {content: ''}, optional: true}]}\n",
			`f.yaml:4: settle.allow holds frames a peer may send as they are: no raw, invalid, lost, copies, corrupted, optional or pad_payload_to`},
		{"check.interactions type", "id: a\ntitle: t\nsteps:\n  - check: {interactions: {run: r, registered: [{type: permission_decision, id: x}]}}\n",
			`f.yaml:4: check.interactions.registered[].type "permission_decision" is not a request that opens an interaction (permission_request, prompt_for_user_choice, function_call)`},
		{"check.interactions empty id", "id: a\ntitle: t\nsteps:\n  - check: {interactions: {run: r, registered: [{type: permission_request, id: \"\"}]}}\n",
			`f.yaml:4: check.interactions.registered[].id is required: an interaction ID is a non-empty string`},
		{"check.interactions twice", "id: a\ntitle: t\nsteps:\n  - check: {interactions: {run: r, registered: [{type: function_call, id: c}, {type: function_call, id: c}]}}\n",
			`f.yaml:4: check.interactions.registered lists function_call c twice`},
		{"check.interactions without a list", "id: a\ntitle: t\nsteps:\n  - check: {interactions: {run: r}}\n",
			`f.yaml:4: check.interactions.registered must be a list of {type, id} (empty: Core registered none)`},
		{"check.interactions without run", "id: a\ntitle: t\nsteps:\n  - check: {interactions: {registered: []}}\n",
			`f.yaml:4: check.interactions.run is required`},
		{"check.decision state", "id: a\ntitle: t\nsteps:\n  - check: {decision: {delivery: d, state: settled}}\n",
			`f.yaml:4: check.decision.state must be one of [awaited applied refused unconfirmed]`},
		{"resume refusal without its attempt", "id: a\ntitle: t\nsteps:\n  - check: {suspension: {refuses: resume, code: c}}\n",
			`f.yaml:4: check.suspension.refuses: resume needs attempt, the suspend_id its quiesce sent`},
		{"attempt on a quiesce refusal", "id: a\ntitle: t\nsteps:\n  - check: {suspension: {refuses: quiesce, attempt: x, code: c}}\n",
			`f.yaml:4: check.suspension.attempt belongs to refuses: resume`},
		{"refuses another request", "id: a\ntitle: t\nsteps:\n  - check: {suspension: {refuses: shutdown, code: c}}\n",
			`f.yaml:4: check.suspension.refuses must be quiesce or resume`},
		{"check.cancel without its run", "id: a\ntitle: t\nsteps:\n  - check: {cancel: {}}\n",
			`f.yaml:4: check.cancel.run is required`},
		{"check.cancel with a member of another check", "id: a\ntitle: t\nsteps:\n  - check: {cancel: {run: r, code: c}}\n",
			`f.yaml:4: check.cancel: unknown key "code" (allowed: run)`},
		{"check.input without its code", "id: a\ntitle: t\nsteps:\n  - check: {input: {run: r, refuses: []}}\n",
			`f.yaml:4: check.input needs run, refuses (the caller's input) and code; or run, gives and key`},
		{"check.input refusing no list", "id: a\ntitle: t\nsteps:\n  - check: {input: {run: r, refuses: {content: []}, code: invalid_input}}\n",
			`f.yaml:4: check.input.refuses is the caller's input: a list of messages, as prompt_steer's input`},
		{"check.input giving without its key", "id: a\ntitle: t\nsteps:\n  - check: {input: {run: r, gives: []}}\n",
			`f.yaml:4: check.input with gives needs run and key (the input_id a later prompt_steer step writes for it), and no refuses or code`},
		{"check.input giving and refusing", "id: a\ntitle: t\nsteps:\n  - check: {input: {run: r, gives: [], key: k, code: invalid_input}}\n",
			`f.yaml:4: check.input with gives needs run and key (the input_id a later prompt_steer step writes for it), and no refuses or code`},
		{"check.input refusing with a key", "id: a\ntitle: t\nsteps:\n  - check: {input: {run: r, refuses: [], code: invalid_input, key: k}}\n",
			`f.yaml:4: check.input needs run, refuses (the caller's input) and code; or run, gives and key`},
		{"check.input giving no list", "id: a\ntitle: t\nsteps:\n  - check: {input: {run: r, gives: {content: []}, key: k}}\n",
			`f.yaml:4: check.input.gives is the caller's input: a list of messages, as prompt_steer's input`},
		{"repeat without a count", "id: a\ntitle: t\nsteps:\n  - repeat: {steps: [{silence: core}]}\n",
			`f.yaml:4: repeat.count must be an integer from 1 to 4096`},
		{"repeat too often", "id: a\ntitle: t\nsteps:\n  - repeat: {count: 4097, steps: [{silence: core}]}\n",
			`f.yaml:4: repeat.count must be an integer from 1 to 4096`},
		{"repeat of nothing", "id: a\ntitle: t\nsteps:\n  - repeat: {count: 2, steps: []}\n",
			`f.yaml:4: repeat.steps: a list of the steps written count times`},
		{"repeat with an unknown key", "id: a\ntitle: t\nsteps:\n  - repeat: {count: 2, index: j, steps: [{silence: core}]}\n",
			`f.yaml:4: repeat: unknown key "index" (allowed: count, steps)`},
		{"repeat in a repeat", "id: a\ntitle: t\nsteps:\n  - repeat:\n      count: 2\n      steps:\n        - repeat: {count: 2, steps: [{silence: core}]}\n",
			`f.yaml:7: repeat.steps holds steps written out: no repeat`},
		{"include in a repeat", "id: a\ntitle: t\nsteps:\n  - repeat: {count: 2, steps: [{include: p}]}\n",
			`f.yaml:4: repeat.steps holds steps written out: no include`},
		{"repeat in any_order", "id: a\ntitle: t\nsteps:\n  - any_order:\n    - repeat: {count: 2, steps: [{silence: core}]}\n    - core: {type: prompt_cancel, id: r}\n",
			`f.yaml:5: any_order holds only core or runtime frame steps, not "repeat"`},
		{"a mistake in a repeat's steps", "id: a\ntitle: t\nsteps:\n  - repeat: {count: 3, steps: [{core: {type: prompt_cancle, id: \"r-${i}\"}}]}\n",
			`f.yaml:4: unknown message type "prompt_cancle"`},
		{"a repeat's number written wrong", "id: a\ntitle: t\nsteps:\n  - repeat: {count: 2, steps: [{core: {type: prompt_cancel, id: \"r-${i+}\"}}]}\n",
			`f.yaml:4: malformed placeholder "${i+}": a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _`},
		{"$repeat of text and item", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: {$repeat: {text: x, item: y, count: 2}}}}\n",
			`f.yaml:4: $repeat takes text (copies of a string) or item (a list of copies), not both`},
		{"$repeat of an item too often", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: {$repeat: {item: y, count: 0}}}}\n",
			`f.yaml:4: $repeat.count of an item must be an integer from 1 to 4096`},
		{"$repeat of an item with its number written wrong", "id: a\ntitle: t\nsteps:\n  - core:\n      type: prompt_cancel\n      id: r\n      payload: {delivery_id: {$repeat: {item: \"d-${i-}\", count: 2}}}\n",
			`f.yaml:7: malformed placeholder "${i-}": a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _`},
		{"bound without names", "id: a\ntitle: t\nsteps:\n  - bound: {from: runtime}\n",
			`f.yaml:4: bound needs from (the peer whose frames bind them) and names (the placeholders, without ${})`},
		{"bound of a placeholder written as one", "id: a\ntitle: t\nsteps:\n  - bound: {from: runtime, names: [\"${x}\"]}\n",
			`f.yaml:4: bound.names: "${x}" is no placeholder name (a lowercase letter, then lowercase letters, digits or _; no ${})`},
		{"bound of no name", "id: a\ntitle: t\nsteps:\n  - bound: {from: runtime, names: []}\n",
			`f.yaml:4: bound.names: at least one placeholder name`},
		{"bound from no peer", "id: a\ntitle: t\nsteps:\n  - bound: {from: caller, names: [x]}\n",
			`f.yaml:4: bound.from must be core or runtime, got "caller"`},
		{"a core frame Core sends while the Runtime stops reading for good", "id: a\ntitle: t\ntests: core\nsteps:\n  - stop_reading: runtime\n  - core: {type: device_shutdown}\n  - advance: 1s\n",
			`f.yaml:6: a core frame step after stop_reading: runtime is read once the scripted Runtime reads again: a resume_reading: runtime must follow it`},
		{"$all of one template", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: {$all: [\"${r}\"]}}\n",
			`f.yaml:4: $all needs a list of at least two templates, every one of which the value must match`},
		{"an id that is an object", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: {run: r}}\n",
			`f.yaml:4: id is a string (${name} placeholders allowed) or a matcher such as {$all: ["${name}", {$regex: ...}]}`},
		{"$all and $not together", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: {$all: [a, b], $not: c}}\n",
			`f.yaml:4: a matcher holds exactly one of $any, $absent, $regex, $one_of, $optional, $all, $not, $tar`},
		{"yaml syntax", "id: a\ntitle: [t\n",
			`f.yaml:1: did not find expected ',' or ']'`},
		// The strict walker (internal/yamlstrict), shared with fault schedules.
		{"anchor", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: &d c}}\n",
			`f.yaml:4: YAML anchors (&d) are not supported in scenarios: use include or vars`},
		{"merge key", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {<<: {delivery_id: c}}}\n",
			`f.yaml:4: YAML merge keys (<<) are not supported in scenarios: use include or vars`},
		{"tag", "id: !!str a\ntitle: t\nsteps:\n  - silence: core\n",
			`f.yaml:1: YAML tags (!!str) are not supported in scenarios`},
		{"duplicate payload member", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: a, delivery_id: b}}\n",
			`f.yaml:4: payload: duplicate key "delivery_id"`},
		{"duplicate var", "id: a\ntitle: t\nvars: {x: 1, x: 2}\nsteps:\n  - silence: core\n",
			`f.yaml:3: vars: duplicate key "x"`},
		{"not a JSON number", "id: a\ntitle: t\nsteps:\n  - runtime: {type: usage, id: r, payload: {input_tokens: +1}}\n",
			`f.yaml:4: "+1" is not a JSON number`},
		{"quoted status", "id: a\ntitle: t\nhandshake:\n  version: x\n  expect: {status: \"400\"}\n",
			`f.yaml:5: handshake.expect.status must be an HTTP status, or any (a refusal whose answer the spec does not name)`},
		{"status any with a code", "id: a\ntitle: t\ntests: core\nhandshake:\n  credential_in_query: true\n  expect: {status: any, error: bad_credential}\n",
			`f.yaml:6: handshake.expect: status any accepts every code; name no error`},
		{"status any judged on a Runtime", "id: a\ntitle: t\nhandshake:\n  version: x\n  expect: {status: any}\n",
			`f.yaml:4: handshake.expect.status any judges a Core's refusal; a scripted Core must answer a definite status: the scenario needs tests: core`},
		{"lost is a boolean", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, lost: yes}\n",
			`f.yaml:4: lost must be true or false, got "yes"`},
		{"silence without a peer", "id: a\ntitle: t\nsteps:\n  - silence: {window: 1s}\n",
			`f.yaml:4: silence.from: a peer (core or runtime) is required`},
		{"unknown upgrade part", "id: a\ntitle: t\ntests: core\nhandshake:\n  upgrade_without: [token]\n  expect: {status: 400, error: missing_params}\n",
			`f.yaml:5: handshake.upgrade_without: "token" is not one of device_id, version, bearer`},
		{"upgrade_without without expect", "id: a\ntitle: t\ntests: core\nhandshake:\n  upgrade_without: [bearer]\n",
			`f.yaml:5: handshake.upgrade_without needs expect: an upgrade without them is refused`},
		{"upgrade_without tests a Core", "id: a\ntitle: t\nhandshake:\n  upgrade_without: [bearer]\n  expect: {status: 400, error: missing_params}\n",
			`f.yaml:4: handshake.upgrade_without tests a Core (a Runtime under test always sends them): the scenario needs tests: core`},
		{"refused at an unknown request", "id: a\ntitle: t\nhandshake:\n  credential: \"\"\n  expect: {status: 401, error: missing_bearer, at: dial}\n",
			`f.yaml:5: handshake.expect.at must be bootstrap or upgrade, got "dial"`},
		{"unknown preparation code", "id: a\ntitle: t\nsteps:\n  - check: {turn: {run: r, status: failed, reason: preparation_start_failed, preparation_error_code: run_clash}}\n",
			`f.yaml:4: check.turn.preparation_error_code "run_clash" is not a preparation error code (facts §4.3)`},
		{"error text without engine_failed", "id: a\ntitle: t\nsteps:\n  - check: {turn: {run: r, status: failed, reason: invalid_executor_result, error: boom}}\n",
			`f.yaml:4: check.turn.error is the error frame's text an engine_failed Turn keeps (PJ-08.2): it needs reason: engine_failed`},
		{"usage that is no usage", "id: a\ntitle: t\nsteps:\n  - check: {turn: {run: r, status: completed, usage: {input_tokens: many}}}\n",
			`f.yaml:4: check.turn.usage is not a usage snapshot: usage.input_tokens: must be a JSON integer`},
		{"lacks without complete", "id: a\ntitle: t\nsteps:\n  - check: {capabilities: {kind: contract, declared: none, lacks: [preparation]}}\n",
			`f.yaml:4: check.capabilities.lacks needs declared: complete`},
		{"pad smaller than the payload", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: c}, pad_payload_to: 10}\n",
			`f.yaml:5: pad_payload_to 10: the payload is already 19 bytes`},
		{"pad without a payload", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - core: {type: prompt_cancel, id: r, pad_payload_to: 10}\n",
			`f.yaml:5: pad_payload_to needs a payload to pad`},
		{"pad past the frame limit", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {}, pad_payload_to: 4194305}\n",
			`f.yaml:5: pad_payload_to must be a number of bytes from 2 to 4194304 (the frame limit)`},
		{"pad on a frame a Core under test sends", "id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: c}, pad_payload_to: 100}\n",
			`f.yaml:4: pad_payload_to shapes the bytes a scripted core writes, which a Core under test does not: the scenario needs tests: runtime`},
		{"pad on a frame a Runtime under test sends", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - runtime: {type: done, id: r, payload: {content: x}, pad_payload_to: 100}\n",
			`f.yaml:5: pad_payload_to shapes the bytes a scripted runtime writes, which a Runtime under test does not: the scenario needs tests: core`},
		{"pad in a silence's allow", "id: a\ntitle: t\ntests: core\nsteps:\n  - silence: {from: runtime, allow: [{type: done, id: r, payload: {content: x}, pad_payload_to: 100}]}\n",
			`f.yaml:5: silence.allow holds frames a peer may send as they are: no raw, invalid, lost, copies, corrupted, optional or pad_payload_to`},
		{"a padded frame over its payload bound", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - core: {type: workspace_export, id: x, payload: {step: next, offset: 0}, pad_payload_to: 8193}\n",
			`f.yaml:5: frame breaks a wire rule: workspace_export.payload: must be at most 8192 bytes (declare ` + "`invalid:`" + ` if that is the point)`},
		{"a $tar file name that is not clean", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x, archive: {$tar: {/etc/passwd: aGk=}}}\n",
			`f.yaml:5: $tar: "/etc/passwd" is not a clean relative file name (no leading /, no . or .. element, no trailing /)`},
		{"a $tar content that is not base64", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x, archive: {$tar: {a.txt: hello}}}\n",
			`f.yaml:5: $tar: the content of "a.txt" must be base64 (standard, padded): illegal base64 data at input byte 4`},
		{"a $tar that is not an object", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x, archive: {$tar: [a]}}\n",
			`f.yaml:5: $tar needs an object of file name to content (base64); {} for an archive with no files`},
		{"a $tar with a sample", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x, archive: {$tar: {}, sample: aGk=}}\n",
			`f.yaml:5: $tar takes no sample: a scripted writer sends the archive of its files`},
		{"export_pull without an id", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {archive: {$tar: {}}}\n",
			`f.yaml:5: export_pull.id: the export's id, as its begin carried it, is required`},
		{"export_pull with an unknown key", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x, files: {}}\n",
			`f.yaml:5: export_pull: unknown key "files" (allowed: id, archive)`},
		{"export_pull with a literal archive not base64", "id: a\ntitle: t\ntests: runtime\nsteps:\n  - export_pull: {id: x, archive: 'not base64'}\n",
			`f.yaml:5: export_pull.archive: a literal archive is its bytes in base64, at least one`},
		{"lacks an unknown capability", "id: a\ntitle: t\nsteps:\n  - check: {capabilities: {kind: contract, declared: complete, lacks: [teleport]}}\n",
			`f.yaml:4: check.capabilities.lacks: "teleport" is not a capability`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(c.yaml))
			var errs LoadErrors
			if !errors.As(err, &errs) {
				t.Fatalf("no load error; want %s", c.want)
			}
			if diff := cmp.Diff(c.want, errs[0].Error()); diff != "" {
				t.Fatalf("first error (-want +got):\n%s\nall:\n%v", diff, err)
			}
		})
	}
}

// Lint reports every error of every file, sorted by file and line, not just the first.
// settle.allow and disconnect.may_end load into the step the players read.
func TestSettleAllowAndMayEndLoad(t *testing.T) {
	scs, err := Parse("f.yaml", []byte("id: a\ntitle: t\nsteps:\n  - settle: {window: 50ms, allow: [{type: done, id: r, payload: {content: ''}}]}\n"+
		"  - disconnect: {by: runtime, may_end: true, reading: device-shutdown-may-end-the-session}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cat, errs := Link(scs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	a, _ := cat.Get("a")
	st := a.Steps
	if len(st[0].Allow) != 1 || st[0].Allow[0].From != proto.Runtime || st[0].Allow[0].Frame.Type != "done" || st[0].Window != 50*time.Millisecond {
		t.Errorf("settle: allow %v, window %v", st[0].Allow, st[0].Window)
	}
	if cl := st[1].Close; cl == nil || !cl.MayEnd || cl.By != proto.Runtime || cl.Awaited || cl.Reading != "device-shutdown-may-end-the-session" {
		t.Errorf("disconnect: %+v", st[1].Close)
	}
}

func TestLoadDirReportsEveryError(t *testing.T) {
	_, err := LoadDir("testdata/broken")
	var errs LoadErrors
	if !errors.As(err, &errs) {
		t.Fatalf("want load errors, got %v", err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`testdata/broken/a.yaml:4: unknown step kind "sned" (one of core, runtime, silence, settle, disconnect, reconnect, advance, any_order, check, include, fault, stop_reading, resume_reading, await_stall, export_pull, restart, repeat, bound)`,
		`testdata/broken/a.yaml:5: silence must be core or runtime, got "nobody"`,
		`testdata/broken/b.yaml:1: include "no/such/scenario": no such scenario`,
		`testdata/broken/b.yaml:8: duplicate scenario id "broken/b" (first at testdata/broken/b.yaml:1)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
}

func TestIncludesExpandInOrderAndDetectCycles(t *testing.T) {
	files := map[string]string{
		"p.yaml": "id: p\ntitle: p\nsteps:\n  - core: {type: prompt_cancel, id: r}\n",
		"q.yaml": "id: q\ntitle: q\ninclude: [p]\nsteps:\n  - silence: runtime\n  - include: p\n",
		"c.yaml": "id: c1\ntitle: c\ninclude: [c2]\nsteps: [{silence: core}]\n---\nid: c2\ntitle: c\ninclude: [c1]\nsteps: [{silence: core}]\n",
	}
	var all []*Scenario
	for name, text := range files {
		scs, err := Parse(name, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, scs...)
	}
	cat, errs := Link(all)
	q, _ := cat.Get("q")
	var kinds []string
	for _, st := range q.Steps {
		kinds = append(kinds, string(st.Kind)+"@"+st.Included)
	}
	if diff := cmp.Diff([]string{"core@p", "silence@", "core@p"}, kinds); diff != "" {
		t.Fatalf("expanded steps (-want +got):\n%s", diff)
	}
	if q.Steps[2].Index != 3 {
		t.Fatalf("steps are numbered after expansion; got index %d", q.Steps[2].Index)
	}
	if len(errs) == 0 || !strings.Contains(errs[0].Msg, "include cycle: c1 → c2 → c1") {
		t.Fatalf("want an include cycle error, got %v", errs)
	}
}

func TestMatchID(t *testing.T) {
	for _, c := range []struct {
		pattern, id string
		want        bool
	}{
		{"execution", "execution/cancel", true},
		{"execution/", "execution/cancel", true},
		{"execution/**", "execution/a/b", true},
		{"exec", "execution/cancel", false},
		{"execution/*-handle", "execution/stale-handle", true},
		{"connection/version/*", "connection/version/empty", true},
		{"connection/*", "connection/version/empty", true},
		{"execution/cancel", "execution/cancel", true},
		{"execution/cancel", "execution/cancellation", false},
	} {
		if got := MatchID(c.pattern, c.id); got != c.want {
			t.Errorf("MatchID(%q, %q) = %v, want %v", c.pattern, c.id, got, c.want)
		}
	}
}

// An alias bomb is refused at once instead of being expanded.
func TestAliasesAreRefused(t *testing.T) {
	_, err := Parse("f.yaml", []byte("id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: &d c}}\n  - core: {type: prompt_cancel, id: r, payload: {delivery_id: *d}}\n"))
	if err == nil || !strings.Contains(err.Error(), "f.yaml:5: YAML aliases (*d) are not supported in scenarios") {
		t.Fatalf("err = %v", err)
	}
}

// The matchers that hold templates say how they are written.
func TestTemplateMatcherErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"{a: {$one_of: [x]}}", "f.yaml:4: $one_of needs a list of at least two templates, the answers the spec allows"},
		{"{a: {$optional: }}", "f.yaml:4: $optional needs the template a present member must match"},
		{"{a: {$optional: x, $regex: y, sample: y}}", "f.yaml:4: a matcher holds exactly one of $any, $absent, $regex, $one_of, $optional"},
	} {
		_, err := Parse("f.yaml", []byte("id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: r, payload: "+c.yaml+"}\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %s", c.yaml, err, c.want)
		}
	}
}
