// Package scenarios is the wire-scenario language: the model of one ordered Core ↔ Runtime
// conversation, a strict YAML loader whose errors carry file:line, placeholders that bind on first
// sight, matchers, includes, lint, the verdict model, and the embedded catalog.
//
// A scenario is written once and run from both ends: scriptedcore plays its `core` steps against a
// Runtime and checks the `runtime` steps; scriptedruntime does the reverse against a Core. Values a
// peer chooses (an executor ID, an admission handle, a Run ID a real Core picks) are written
// ${name}: the reader binds them the first time it sees them and every later use must repeat them;
// the writer resolves them, generating a value when nothing is bound yet.
//
// A template asks only what the spec asks. Where the spec allows several answers it says so with
// {$one_of: [...]}; a member the spec lets a peer leave out is {$optional: template}.
// {$all: [templates]} is a value that matches every one of them, in order (each binds as it would
// alone, nothing binds unless all match): {$all: ["${export}", {$regex: ...}]} binds ${export} and
// checks its form, and as a step's id it keys the step by "${export}", as a plain "${export}" id
// would. {$not: template} is a value that does not match the template with the bindings so far,
// and binds nothing: {$all: ["${t2}", {$not: "${t1}"}]} binds a value that differs from ${t1}. A
// scripted writer sends an $all's sample, or else its first template resolved, and binds the
// rest from it; a $not sends its sample. A received
// frame matches its template as sent or as its receiver decodes it (proto decodes it, it is encoded
// again): members the receiver ignores, optional members at their zero value and engine failure
// codes the decoder normalises never fail a scenario, while everything the wire defines is
// compared exactly.
//
// A `silence` step ({from: peer, window: d}) requires the peer to send nothing for the window
// (heartbeats aside). Where the spec admits both a silence and a reply (an unknown transfer's
// chunk, say, may be answered rejected resource_unavailable or left unanswered), `allow: [frames]`
// lists the replies it may send instead, each at most once: one that comes inside the window is
// taken, one that has not come by its end may still come later, once, and is skipped wherever it
// arrives; any other frame still breaks the silence. A frame the silence took stands for a later
// frame step that expects the same frame, so `allow` also says "this frame may come early" (a
// retry whose interval the spec leaves open). A scripted peer playing the silent side stays
// silent. Each use names its docs/spec-readings.md entry in a comment. A `settle` step takes
// `allow` too: frames native settlement does not gate (a status the spec does not tie to it),
// which may come inside its window, with the same rules.
//
// A frame step written optional: true is a frame the peer may send there or not at all, where the
// spec admits both (a status a Runtime may or may not publish before a rejection): the reader does
// not wait for it and skips it, once, if it comes before the frames of the next step that reads
// (or inside the next silence), never later; a scripted writer sends it.
//
// A `check` step asks the Core under test about what the wire cannot show. check.capabilities
// reads the capability snapshot of the connection: declared none or complete, and with complete
// the capabilities it supports or lacks (a check waits until it holds, so it orders a heartbeat
// before the steps after it). check.turn reads the Turn record of a Run: status, reason
// (error_code), engine (engine_error_code), and, when written, engine_http_status (0 for none),
// preparation_error_code, the usage
// snapshot (compared member for member as a usage frame's payload: a snapshot replaces, never
// adds), content, and error: the recorded error of an engine_failed Turn, which is the text of
// its error frame exactly (only with reason engine_failed; Core words its own failures).
// check.preparation reads the result of the Environment preparation (runtime_prepare) Core ran
// last, once it has ended: state (completed, rejected, failed or unknown) and, when written,
// error_code, exit_code and operation (the index of the operation that ended it); {refuses, code}
// instead makes a caller set the device's preparation now to one operation, the runtime_prepare begin payload refuses describes (identity as written; {$repeat}
// reaches a size bound) with body (text, when written; body_bytes: n instead, n bytes of the letter
// a made when the check runs, for a size past what $repeat may expand to) as its content, which Core must refuse
// inside itself with that API error code (invalid_preparation): nothing of it reaches the wire. A Core-side scenario writes Core's runtime_prepare frames as a Runtime-side one does;
// what a Core is configured to prepare is read from them (begin headers, chunk data concatenated;
// a begin written with body_bytes: n has a body of n bytes of the letter a, made at play time, for
// a body too big to spell: no chunk step of that transfer follows, and the scenario tests: core).
// adds) and content. check.workspace reads the record of a workspace operation a caller started
// through Core's API (op: the id its frames carry, as written): state (completed, rejected,
// failed, unknown), error_code, cleanup (cleanup_unconfirmed when Core did not see the read-only
// preparation it used released; omitted: confirmed or none, compared always), and what it handed the caller (content: the bytes of a byte read
// or an export archive, base64, compared byte for byte; directory: the listing). With refuses
// (read, write or export) and code it makes a caller's request now, on the scenario's Turn, which
// Core must refuse inside itself with that API error code: nothing of it reaches the wire; path
// (a string or a {$repeat}) is the path a refused read or write names, and operation, max_bytes
// and max_entries the members of a refused read as workspace_read names them (without any of the
// three, a byte read of max_bytes 1). truncated (an op check) says whether Core recorded the
// completed byte read cut at max_bytes (true) or as the file's complete content (false).
// check.suspension reads the record of a suspension request a caller made through Core's API
// (op: the id of its environment_quiesce or environment_resume frame, as written): state
// (accepted, refused, unknown) and error_code; with refuses: quiesce and code it makes a caller's
// quiesce now, for the scenario's device, which Core must refuse inside itself with that code;
// refuses: resume with attempt (the suspend_id its quiesce sent, a bound ${placeholder}) makes a
// caller's resume of that attempt, without rollback, on the device's current connection.
// check.subagents reads the sub-agent observation frames Core recorded for the Turn of a Run
// (run), in arrival order: frames, each {type, payload}, compared member for member (none
// missing, none extra; an empty list says none was recorded). It waits while the Turn runs and
// fails once the Turn has ended with another list.
// check.interaction {refuses, answer, code} makes a caller answer the interaction refuses (a
// request_id, ask_id or call_id of the scenario's Turn) now with answer (the decision's payload
// without delivery_id and call_id), which Core must refuse inside itself with that API error code.
// refuses may name a bound placeholder (${run}). With code unknown_interaction it names a request
// Core must never have recorded (one it dropped as invalid): the caller answers at once, without
// waiting for Core to record it, so such a check comes after a later frame of the Run that Core
// has visibly taken (a decision it sent for a later request).
// check.interactions {run, registered} reads the interactions Core registered for the Turn of a
// Run: registered lists each as {type, id}, the request frame that opened it (permission_request,
// prompt_for_user_choice, function_call) and its interaction ID (request_id, ask_id, call_id; a
// bound placeholder resolves), in any order, none missing and none extra (an empty list: none).
// It waits while the Turn runs and fails once the Turn has ended with another set; so a check
// that a request registered nothing comes after the Turn has ended (check.turn), when nothing
// more can be taken. It shows a request Core registered under no interaction ID, which no
// answer can name (IA-02.1, IA-15.2).
// check.decision {delivery, state} reads what Core recorded of a decision it sent (a
// permission_decision, prompt_for_user_choice_decision or function_result), named by the
// delivery_id it carried: awaited (Core waits for its ack), applied or refused (an ack with that
// delivery_id said so), unconfirmed (Core waits no more and no ack settled it). It waits until the
// state holds. It shows what an ack settled without assuming Core sends one decision at a time.
// check.start {configuration, code, missing} makes a caller start a Turn now on the scenario's
// device with that configuration, which Core must refuse inside itself with that API error code
// (invalid_turn, or admission_denied naming the missing capabilities).
// check.admission {refuses: start, missing: [...]} makes a caller ask for a Turn now, on the
// scenario's device (kind contract, Environment none), which Core must refuse at device selection,
// naming the capabilities its latest declaration lacks: nothing of it reaches the wire.
// check.cancel {run} makes a caller cancel the Turn of the Run now (a placeholder Core chose but
// never sent names the scenario's Turn), which Core must take; it holds once Core has recorded the
// cancellation. What Core sends for it is written in the steps after: a cancellation requested
// before any preparation_status named the admission's handle reaches the wire only as the
// execution_release that follows the first status (so no frame step could both cause and expect
// it); a later execution_release or prompt_cancel step for that Turn expects Core's frame and
// causes nothing more.
// check.input {run, refuses, code} makes a caller give the Turn of the Run one active input now,
// refuses (a list of messages, as prompt_steer's input, under a key of the caller's own), which
// Core must refuse inside itself with that API error code (invalid_input for an input that does
// not validate, IN-01.5): nothing of it reaches the wire. check.input {run, gives, key} makes a
// caller give the Turn that input now, which Core must take (record for delivery); it holds once
// Core has. key is the caller's idempotency key and the input_id a later prompt_steer step writes
// for the input (a ${placeholder}, as written): that step expects Core's frame and causes nothing
// more. When, and whether, Core sends it is Core's (one input at a time, IN-20), so an input whose
// frame no step may expect (one Core must hold back) is given this way.
// check.device_status {online: true|false} is the one check the Runtime side answers itself: it
// asks Core's device-status route (GET ?device_id=, with the device's Bearer credential) until the
// answer names the device and says online as written.
// check.journal {run, kind, type, note} reads the journal of the Turn of a Run (what Core serves at
// GET /api/v1/turns/{id}/journal) until it holds an entry of that kind (received, sent,
// transition, admission, note) whose frame type is type, when given, and whose note contains
// note, when given (one of the two is required); it fails once the Turn has ended without one.
// What Core did with a frame that changes no outcome (an invalid tool_call it only notes, RS-11)
// shows nowhere else.
//
// A `handshake` changes what the Runtime presents and says how Core must refuse it
// (expect: status, error, and at: bootstrap or upgrade; status: any, in a Core-side scenario,
// accepts every refusal, for one the spec requires without naming its answer). upgrade_without [device_id, version,
// bearer] bootstraps with a valid identity and then upgrades without those, the only way to reach
// the upgrade's own 400 missing_params; bootstrap {method, body} sends a malformed bootstrap (its
// Bearer header valid) to reach the bootstrap's own refusals (405, bad_json, missing_device_id). No
// Runtime under test can be made to do either, so such a scenario tests a Core. Every Core of the
// gate knows the device not-an-agent-daemon (transport.NonDaemonDeviceID) under the Runtime's own
// credential as one of another runtime type: a handshake naming it reaches 403 wrong_runtime_type.
//
// `bootstrap_answer` changes what the scripted Core answers a Runtime's bootstrap with:
// heartbeat_seconds (sent as written, zero and negative included, to reach the daemon's 15 s
// fallback); ws_url_query, appended to the ws_url's query (a legacy token=... the daemon must strip
// before it dials); unusable, the answers of the first bootstraps in order, each one an error a
// daemon must not use: {status: 503} (the usual body under a non-2xx status), {device_id: ""} or
// {oversize: true} (a padding member over 64 KiB first, so a body read no further than 64 KiB does
// not decode). After each, the daemon's next request, if it makes one, must be a bootstrap, never
// a dial (CN-44.2/.3/.4, named in the failure); against a Runtime on a virtual clock it must not
// come before the clock moves (a backoff, CN-18.4), and the scripted Core then moves the clock a
// minute once a timer of the daemon falls due in it. The daemon may instead stop: exit, or make
// no request for 30 s; the scenario then passes there without its steps (docs/spec-readings.md,
// bootstrap-error-retry-or-stop). The bootstrap after the last unusable answer gets the usual one
// and the steps begin once the Runtime has connected. No Core under test can be made to answer otherwise, so such a
// scenario tests a Runtime, and the self-check leaves out those with unusable answers (the
// scripted Runtime bootstraps once).
//
// bootstrap_answer.stalled_upgrades: n makes the scripted Core read the first n WebSocket upgrades
// and never answer them (TCP accepted, no 101, no refusal). The daemon must still be waiting 9 s
// later (a second of slack for a daemon on the wall clock, which arms its timer a moment before
// its request arrives) and must give the request up once its 10 s handshake timeout has passed
// (CN-21), then connect again after a backoff; the steps begin once it has. The scripted Core moves
// the clock itself (a wait against a Runtime in another process, so the child-process run leaves
// such a scenario to the in-process one), and the self-check leaves it out.
//
// A `disconnect` with awaited: true is a close the peer named in `by` makes on its own, because of
// the steps before it: the other side causes nothing, waits for the close and compares code and
// reason as written; a socket dropped without a close frame fails it. any_close: true (no code)
// is such an end whose code the spec does not fix (a frame over the 4 MiB read limit, CN-41): any
// close code, or a drop, passes; a frame other than a heartbeat before it fails.
// may_end: true (by: runtime, with reading: its docs/spec-readings.md entry) is an end the spec
// allows and does not demand: from that step on the Runtime may end its transport (any close, a
// drop, its exit). Core causes nothing and goes on with the steps; if the transport ends at a
// later step, the scenario ends there and passes with the steps before, since what follows asks
// only a Runtime that stayed (after device_shutdown, say). A frame sent instead of the one a step
// expects still fails it; a scripted Runtime stays. stopped: true
// first has the launcher stop the peer: a Runtime (SIGTERM, its context)
// must then close as written (CN-20: 1000 "client closing"); a Core shuts down and must close every
// daemon connection cleanly, with 1000 or 1001 (CN-20: a clean close is not an error, so one that
// is no error is clean), never with an error code nor by dropping the socket. dropped: true (no
// code) is the end of the transport the peer makes on its own after a write that ran out of its
// per-frame write timeout (CN-42: "a failed write closes the session"): a drop or a close frame
// with any code; the frames read before it are discarded, being whatever part of the stalled
// output the kernel's buffers kept (docs/spec-readings.md, how-a-transport-ends). A frame step written
// with invalid: the 4 MiB envelope error is one the reader's read limit refuses: the reader
// expects its transport to close instead of a frame, and a writer whose write fails because the
// peer closed first goes on to the next step.
//
// `restart: core` restarts a Core under test: its driver stops it as its process exits (its
// ordinary stop or a kill, the driver's choice) and starts it again over the same durable
// records, at the same address, with the same devices and credentials (a clock the driver moves
// keeps its time), and the step ends once the new Core serves bootstraps. What Core promised
// durably survives; what it held in memory does not, as at any restart. The Runtime's transport
// ends with the stopped process: any close code, or a drop (disconnect {by: core, stopped: true}
// is the step that judges a clean close); a frame Core sends instead fails the step. The Runtime
// connects again only at a later reconnect step, so checks in between read the records the new
// Core started from. Only a scenario that tests: core has one (a Runtime under test sees no more
// of a restart than the end of its transport, which disconnect makes); the scripted Core, in the
// self-check, plays it as that end (1001). A driver that cannot restart its Core makes the
// scenario not applicable.
//
// A frame step written with pad_payload_to: n is sent with its payload exactly n bytes long as
// encoded on the wire: the scripted writer puts spaces after the payload's opening brace
// (PadPayload), which JSON ignores, so a valid frame reaches a payload bound (a 96 KiB
// workspace_write, an 8 KiB workspace_export) its members alone cannot. The payload decodes as
// written and a reader matches it as usual; the frame must still pass proto (or declare the bound
// it breaks with invalid:), a payload longer than n fails the load (or, when bound values make it
// so, the run), and only a scripted peer pads: a core frame needs tests: runtime, a runtime frame
// tests: core (docs/spec-readings.md, payload-bytes-as-sent).
//
// stop_reading: core (or runtime) makes that scripted peer stop reading its socket, as a stalled
// TCP peer does, until resume_reading names it; resumed, it first reads what piled up. The other
// side's writes then fill the kernel's buffers and block, which is how a scenario reaches a
// peer's per-frame write timeout (CN-42) and send budgets; the scripted Core gives its sockets a
// 16 KiB receive buffer in such a scenario, so fewer bytes fill them. The step is played by the
// peer it names (a peer under test cannot be made to stall), and the other one skips it. A write
// blocks only once the writer has more bytes in flight than both buffers hold, so such a scenario
// must make the side under test send more than its send buffer (several MiB on loopback). A core
// frame step played while the scripted Runtime has stopped reading makes Core send its frame (its
// driver causes it, as at any core step) and does not wait for it: the scripted Runtime reads and
// matches the frames of those steps at the resume_reading: runtime that follows (which the loader
// requires), in step order, before any later step. So a scenario has Core queue frames behind a
// blocked write: Core's send queue holds 64 (protocol-facts §1.7), and what Core sends next waits
// for room, within its send budget.
// await_stall: core then waits (within the step bound) until the Runtime is blocked in a write to
// the stalled socket, so that whatever it is made to send next (a preparation_status, say) is
// queued behind a write that cannot complete. Against the in-process reference that is what the
// daemon's kernel states: a write of it got EAGAIN (its send buffer is full) and the kernel has
// taken no byte of it since (the harness does the daemon's socket writes through the socket's
// RawConn, package internal/sockwatch); the frame being written, bigger than both socket buffers,
// cannot complete while Core reads nothing. The in-process reference gets a small socket send
// buffer in a scenario with await_stall, so that write blocks on a frame of a few hundred KiB.
// Against a Runtime whose sockets cannot be watched, the wait is a guess from Core's side of the
// socket: at least 4 KiB unread, a count that has not moved for 200 ms of real time (a Runtime
// slowed by a loaded machine between two writes can pass for a blocked one). A daemon in another
// process may buffer all its output in its kernel, so an await_stall scenario is not applicable
// against one anyway (nor through the fault relay, which keeps reading). await_stall: runtime is the same wait on the scripted Runtime's side, against a Core
// (its socket gets a 16 KiB receive buffer; the in-process reference Core a small send buffer):
// Core is then blocked in a write, and an advance moves Core's transport clock too, which runs
// its per-frame write deadline (CN-42).
//
// advance moves the Runtime's virtual clock, against a Runtime that brings one (the in-process
// reference), only once the Runtime has taken in everything the steps before sent: every byte
// Core wrote has reached the daemon's kernel (SIOCOUTQ on Core's socket is 0) and every socket of
// the daemon has a read waiting on an empty receive queue, or has met its end (its receive loop
// has dispatched every frame, and since the reference decides in that loop, armed every timer
// those frames start: a preparation_status's 5 s send budget starts as it is queued). It then
// waits, up to ReferenceRuntime.DueWait (1 s, stretched on a machine that starves the process, see
// clock.Fake.WaitDue), for a timer due within the span, for timers the daemon's native
// work arms in goroutines of their own, and moves the clock. A daemon whose receive loop does not
// get back to reading within the step bound (in process a 30 s safety net, runner.InProcessBound;
// stuck behind its own full send queue) is noted in the transcript and the clock moves anyway.
// Against a Runtime in another process an advance is a wait of real time. docs/performance.md,
// "Waits in process", lists how each wait in process is decided.
//
// `requires` names capabilities the `contract` kind must declare and `excludes` those it must not:
// a scenario that excludes tests the answer of a Runtime without them (an `unsupported` reply), so
// `wirecheck certify` checks exactly what a Runtime leaves out, and reports the rest not
// applicable. The gate plays such a scenario against the reference with those capabilities
// withheld (in process, and as a child process with `wirecheck runtime --withhold`).
//
// `unavailable_kinds` (tests: runtime) names agent kinds other than `contract` that the Runtime's
// heartbeat must advertise with available: false: the scenario asks for a Run or a preparation
// of a kind that is advertised and cannot run (RS-04.2, AD-11.2). Each of them must also declare
// every capability of `requires`, so that its availability is the only rule the request breaks (a
// missing capability is a second rule, whose code the spec does not order against the first:
// docs/spec-readings.md, two-rules-at-once). A Runtime that does not advertise one of them so finds
// the scenario not applicable. docs/contract-harness.md §1.1 defines the optional kind
// `contract-unavailable` for it, which the reference advertises (and the scripted Runtime of the
// self-check, declaring exactly the scenario's `requires`).
//
// A document whose first key is `table:` stands for one scenario per (operation, state) pair:
// the states a side can be brought into, the operations tried in each, and per pair the clauses
// it checks, or under `except:` why the pair is not tried (table.go). Every pair needs one or the
// other, so a new state or operation cannot be added without its row.
//
// A code relaxation (a $one_of of codes, an $optional code, alternatives that differ in a code)
// names the reading of the spec that allows it: `reading: <entry of docs/spec-readings.md>`.
//
// {$tar: {name: content, ...}} matches a string that is a tar archive in base64 (an export's): the
// archive is read (TarFiles) and its regular files, name → content in base64, are matched against
// the object as a template: none missing, none extra, each content byte for byte (a content may be
// a ${placeholder} or a matcher; {} is an archive with no files). Only what the spec fixes is
// compared: names (cleaned: ./a is a) and bytes; directories, links and other entries, the entry
// order and every other header member (times, owners, modes) are the Runtime's. A name archived
// twice counts as its last entry; an archive whose files would hold more bytes than itself (a
// sparse entry) does not match. A scripted writer sends the ustar archive of the files, in name
// order (docs/spec-readings.md, export-archive-files).
//
// `export_pull: {id, archive}` (only with tests: runtime) has the scripted Core pull the export a
// workspace_export begin before it started, to its end, however the Runtime cuts the archive: it
// reads the chunk at offset 0, answers each chunk with next at the bytes received so far, and
// reads what comes at that offset, a chunk or completed, until completed. Any other answer, a
// chunk that breaks a wire rule (no data, over 64 KiB) or comes at another offset, and a completed
// at another offset fail the step, at the offset it had reached. The chunks' data concatenated, in
// base64, is then matched against archive ({$tar: ...}, or a ${placeholder} that binds it); without
// archive any archive passes. The self-check's scripted Runtime serves what archive renders to (an
// unbound placeholder: an empty tar archive) in chunks of seeded sizes from 1 byte to 64 KiB, and
// expects each next at the bytes it delivered.
//
// {$repeat: {text: t, count: n}} is the string of n copies of t, written where a value must pass a
// size limit (a runtime_prepare frame over 1 MiB); it expands at load time, at most 4 MiB.
// {$repeat: {item: v, count: n}} is the list of n copies (1 to 4096) of the template v, numbered
// as a repeat step's copies are (below): a contract Turn's 1,025 events, say.
//
// A `repeat: {count: n, steps: [...]}` step stands for its steps written n times (1 to 4096), in
// order, at load time: in the copy numbered i (1 to n) every ${i} in a string of the steps is the
// decimal i, and ${i+k} or ${i-k} (k a decimal) is i+k or i-k, so ids and texts stay distinct
// (p-${i} is p-1, …, p-n) and a copy can name its neighbour's (the request that follows decision
// d-${i} is p-${i+1}). There these are no placeholders, and always strings (${i} alone is "7",
// never the number 7), everywhere in the copy, a $repeat item's included. The steps hold no include
// and no repeat, and a repeat stands only in a scenario's own steps (not in any_order or a table).
// The copies are ordinary steps, each with its own index; a mistake in the steps is reported once,
// at its line. The repeats of one file expand to at most MaxRepeatNodes YAML nodes in all.
//
// A `bound: {from: peer, names: [n, ...]}` step requires the placeholders ${n}, … to be bound by
// now. The peer that reads from's frames judges it; from, which wrote them, skips it. So a scenario
// says "at least one of these frames took this answer" where the spec does not say which: each of
// 1,024 replays may be answered {$one_of: [not_pending, applied]}, the not_pending alternative
// binding ${forgotten} (error_code: {$all: ["${forgotten}", not_pending], sample: not_pending}), and
// bound requires that one did (IA-13.2, docs/spec-readings.md, which-entry-is-evicted). A scripted
// writer sends a $one_of's first alternative, so the one that binds comes first.
//
// A frame may write `trace`, the envelope's trace: a writer sends it as written, a reader compares
// it ({$absent: true}: the frame must carry none). A frame without `trace` sends none and ignores
// the one it receives, since traces are diagnostic only.
//
// Every spec link of a scenario names a heading of the spec (or of docs/contract-harness.md, for the
// rules that are ours); spec_anchors.txt lists them, generated from the spec files:
//
//go:generate go run ./internal/specanchors -spec ../../shared/spec -o spec_anchors.txt
package scenarios
