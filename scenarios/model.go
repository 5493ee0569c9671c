package scenarios

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// Pos is a place in a scenario file.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Side names the implementation a scenario can test: the Runtime (played against by scriptedcore),
// the Core (played against by scriptedruntime) or both.
type Side string

const (
	SideBoth    Side = "both"
	SideRuntime Side = "runtime"
	SideCore    Side = "core"
)

// Covers reports whether a scenario for side s can test an implementation of side impl.
func (s Side) Covers(impl Side) bool { return s == SideBoth || s == impl }

// Scenario is one ordered conversation.
type Scenario struct {
	ID    string
	Title string
	Spec  []string // references into the spec, shown in reports
	// Rules are the IDs of the rules (see Rules) whose violation, on the side the scenario tests,
	// the scenario would catch; `wirecheck coverage` is computed from them.
	Rules    []string
	Labels   []string
	Requires []string // capabilities the Runtime must declare for kind `contract` and each of UnavailableKinds
	// Excludes: capabilities whose declaration makes the scenario not applicable (it tests what a
	// Runtime without them must answer).
	Excludes []string
	// UnavailableKinds: agent kinds the Runtime must advertise with available: false, declaring
	// every capability of Requires (the scenario asks it for a Run or a preparation of a kind it
	// cannot run); otherwise the scenario is not applicable.
	UnavailableKinds []string
	// Vars are values bound before the first step, on both sides; an including scenario's vars
	// override those of the scenarios it includes (Vars holds the merged set after linking).
	Vars  map[string]Value
	Tests Side
	// Heartbeat "auto": the scripted Runtime heartbeats at once on every connection and the
	// scripted Core filters heartbeats unless a step expects one. "manual": heartbeats are steps.
	Heartbeat string
	Handshake *Handshake
	// BootstrapAnswer changes what the scripted Core answers a Runtime's bootstrap with; nil: the
	// usual answer. Runtime-side only: no Core under test can be made to answer otherwise.
	BootstrapAnswer *BootstrapAnswer
	Include         []string
	Steps           []*Step // with includes expanded
	Pos             Pos

	own     []*Step          // as written, before include expansion
	ownVars map[string]Value // as written
}

// HeartbeatAuto and HeartbeatManual are the heartbeat modes.
const (
	HeartbeatAuto   = "auto"
	HeartbeatManual = "manual"
)

// Handshake overrides what the Runtime presents when it connects, for rejection scenarios, and
// says how Core must answer.
type Handshake struct {
	DeviceID          *string
	Credential        *string
	Version           *string
	CredentialInQuery bool
	// UpgradeWithout: the Runtime bootstraps with its identity as usual, then sends the WebSocket
	// upgrade without these (UpgradeParams): the only way to reach the upgrade's own
	// missing_params rule, since a bootstrap without a Bearer is refused first. Core-side only.
	UpgradeWithout []string
	// Bootstrap, if set, replaces the bootstrap request with a malformed one, the only way to
	// reach the bootstrap's own refusals (405, bad_json, missing_device_id). Core-side only.
	Bootstrap *BootstrapOverride
	Expect    *HTTPExpect // nil: the connection is accepted
}

// BootstrapAnswer is what the scripted Core's bootstrap response says instead of its defaults.
type BootstrapAnswer struct {
	// HeartbeatSeconds is the response's heartbeat_seconds (the default 15 when nil); zero and
	// negative values are sent as written, to reach a daemon's fallback (CN-24).
	HeartbeatSeconds *int
	// WSURLQuery is appended to the ws_url's query as written ("token=legacy"): a credential-like
	// parameter the daemon must strip before it dials (CN-03).
	WSURLQuery string
	// Unusable are the answers of the first bootstraps, one each, in order: answers a daemon must
	// not use (CN-44). It never dials with them; it may bootstrap again, after a backoff (CN-18.4),
	// or stop (docs/spec-readings.md, bootstrap-error-retry-or-stop); the bootstrap after the last
	// one gets the usual answer.
	Unusable []UnusableAnswer
	// StalledUpgrades is how many of the first WebSocket upgrades the scripted Core reads and
	// never answers (TCP accepted, no 101, no refusal): the daemon must give each up when its
	// 10 s handshake timeout runs out, not before (CN-21), and connect again.
	StalledUpgrades int
}

// UnusableAnswer is one bootstrap answer a daemon must take for a transient failure. Its body is
// the usual answer unless changed here, so a daemon that used it would dial.
type UnusableAnswer struct {
	Status   int     // the HTTP status (default 200); non-2xx is an error however good the body
	DeviceID *string // replaces the answer's device_id ("" is an error)
	// Oversize puts a padding member over 64 KiB before the answer's members: a daemon that reads
	// at most 64 KiB of the body (CN-44) cannot decode it.
	Oversize bool
}

// Describe says what makes the answer unusable, in words.
func (u UnusableAnswer) Describe() string {
	switch {
	case u.Status != 0 && (u.Status < 200 || u.Status > 299):
		return fmt.Sprintf("status %d", u.Status)
	case u.Oversize:
		return "a body over 64 KiB"
	case u.DeviceID != nil:
		return fmt.Sprintf("device_id %q", *u.DeviceID)
	}
	return "usable"
}

// Forbids names what the spec says of the answer, with its clause: why a dial with it fails.
func (u UnusableAnswer) Forbids() string {
	switch {
	case u.Status != 0 && (u.Status < 200 || u.Status > 299):
		return "a non-2xx bootstrap answer is an error and is never dialled with (CN-44.3)"
	case u.Oversize:
		return "at most 64 KiB of the answer is read, so it does not decode and is never dialled with (CN-44.2)"
	case u.DeviceID != nil:
		return "an answer with an empty device_id is an error and is never dialled with (CN-44.4)"
	}
	return ""
}

// BootstrapOverride is the bootstrap request a handshake sends instead of the Runtime's own; the
// Bearer header stays valid.
type BootstrapOverride struct {
	Method string  // default POST
	Body   *string // sent byte for byte; nil: the usual {"device_id": ...}
}

// The parts of the upgrade a handshake can leave out.
const (
	UpgradeDeviceID = "device_id" // the device_id query parameter
	UpgradeVersion  = "version"   // the version query parameter
	UpgradeBearer   = "bearer"    // the Authorization header
)

// UpgradeParams lists what handshake.upgrade_without may name.
var UpgradeParams = []string{UpgradeDeviceID, UpgradeVersion, UpgradeBearer}

// HTTPExpect is the rejection Core must answer with.
type HTTPExpect struct {
	Status int
	Error  string
	At     string // the request refused: ExpectAtBootstrap, ExpectAtUpgrade, or "" for either
	// AnyStatus (status: any) accepts every refusal, whatever its status and code: for a refusal
	// the spec requires without naming its answer (CN-03.5). Status and Error are then unset.
	AnyStatus bool
}

// Refuses reports whether an answer of status and code is the refusal e expects.
func (e *HTTPExpect) Refuses(status int, code string) bool {
	if e.AnyStatus {
		return status >= 400
	}
	return status == e.Status && code == e.Error
}

// String is the refusal as a failure names it.
func (e *HTTPExpect) String() string {
	if e.AnyStatus {
		return "a refusal (any status: the spec names none)"
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s", e.Status, e.Error))
}

// The requests a refusal can answer.
const (
	ExpectAtBootstrap = "bootstrap"
	ExpectAtUpgrade   = "upgrade"
)

// StepKind is what a step does.
type StepKind string

const (
	StepCore       StepKind = "core"    // Core sends a frame
	StepRuntime    StepKind = "runtime" // the Runtime sends a frame
	StepSilence    StepKind = "silence"
	StepSettle     StepKind = "settle"
	StepDisconnect StepKind = "disconnect"
	StepReconnect  StepKind = "reconnect"
	StepAdvance    StepKind = "advance"
	StepAnyOrder   StepKind = "any_order"
	StepCheck      StepKind = "check"
	StepFault      StepKind = "fault" // arm a fault on the relay between the peers
	// StepStopReading: the peer named (From) stops reading its socket, as a stalled TCP peer
	// does: what the other side writes piles up in the kernel's buffers until its writes block.
	// StepResumeReading: it reads again, first what piled up.
	StepStopReading   StepKind = "stop_reading"
	StepResumeReading StepKind = "resume_reading"
	// StepAwaitStall: the peer named (From), which stopped reading, waits until the other side's
	// output has filled its socket's receive queue: the other side is then writing to it, so what
	// the other side sends next waits behind that write.
	StepAwaitStall StepKind = "await_stall"
	// StepExportPull: Core pulls the export the steps before began to its end (ExportPull).
	StepExportPull StepKind = "export_pull"
	// StepRestart: the peer named (From: only core) stops as its process exits and starts again
	// over the same durable records, at the same address; the Runtime's transport ends with it
	// (any close, or a drop) and a later reconnect step connects again. Only a scenario that
	// tests: core has one: a Runtime under test sees no more of a restart than a transport's end.
	StepRestart StepKind = "restart"
	// StepBound: the placeholders named (Names) are bound by now. The peer that reads From's
	// frames judges it; From skips it. A placeholder that only one $one_of alternative binds says
	// that alternative was taken at least once (of many replays, one answered otherwise).
	StepBound StepKind = "bound"
)

// Step is one step of a scenario.
type Step struct {
	Kind  StepKind
	Pos   Pos
	Index int // 1-based position in the expanded scenario

	From  proto.Peer     // core/runtime/silence: the peer that sends (or stays quiet)
	Frame *FrameTemplate // core/runtime
	Group []*Step        // any_order: frame steps of one peer, in any order
	// Allow (silence): frames the silent peer may send instead of nothing, each at most once, where
	// the spec admits both a silence and a reply (docs/spec-readings.md). Frame steps of the silent
	// peer; one that has not come by the end of the window may still come later, once, and is then
	// skipped wherever it arrives; one taken stands for a later step expecting the same frame
	// (internal/script.Player).
	Allow    []*Step
	Window   time.Duration // silence, settle: how long the peer must stay quiet
	Advance  time.Duration // advance; settle: how far the clock moves once the window passed
	Close    *CloseSpec    // disconnect
	Check    *Check        // check
	Fault    *FaultStep    // fault
	Export   *ExportPull   // export_pull
	Included string        // the scenario this step was included from, if any
	Names    []string      // bound: the placeholders that must be bound
}

// ExportPull is an export_pull step: the scripted Core pulls an export whose begin a step before
// sent, to its end, however the Runtime cuts the archive into chunks (protocol-facts §4.15, rules
// WS-27/WS-28). It reads a chunk at offset 0, then answers each chunk with next at the bytes
// received so far and reads the chunk at that offset, until completed at that offset; a chunk
// breaking a wire rule (no data, more than 64 KiB), another offset, or any other answer fails the
// step. The chunks' data concatenated is the archive, then matched against Archive.
//
// A scripted Runtime (the self-check) plays the other end: it serves the archive Archive renders
// to (an unbound placeholder: an empty tar archive), in chunks of seeded sizes from 1 byte to
// 64 KiB, and expects each next at the bytes it delivered. Only a scenario that tests a Runtime
// may hold the step: a Core under test pulls on its caller's word, which no step cues.
type ExportPull struct {
	ID Value // the export's id (a string template), as its begin carried it
	// Archive is a template of the archive in base64: {$tar: {name: content}} compares the files
	// it holds, a ${placeholder} binds it; nil: any archive.
	Archive Value
}

// FaultStep is one fault rule to arm on the relay between the peers. Rule is the rule as the
// decoder package fault registers made it at load time (a fault.Rule; RegisterFaultDecoder), nil
// when none was registered. A ${name} placeholder in its match is bound from the scenario's
// bindings when it is armed.
type FaultStep struct {
	Rule any
	Pos  Pos
}

// Frames returns the frame steps of a step: itself, or the members of an any_order group.
func (s *Step) Frames() []*Step {
	if s.Kind == StepAnyOrder {
		return s.Group
	}
	if s.Frame != nil {
		return []*Step{s}
	}
	return nil
}

// Describe renders a step in one line for messages.
func (s *Step) Describe() string {
	switch s.Kind {
	case StepCore, StepRuntime:
		return fmt.Sprintf("%s sends %s", s.From, s.Frame.Type)
	case StepSilence:
		if len(s.Allow) > 0 {
			return fmt.Sprintf("%s stays silent for %v, or sends only what the step allows", s.From, s.Window)
		}
		return fmt.Sprintf("%s stays silent for %v", s.From, s.Window)
	case StepSettle:
		return "native work settles"
	case StepDisconnect:
		return fmt.Sprintf("the transport drops (%s)", s.Close)
	case StepReconnect:
		return "the Runtime reconnects"
	case StepAdvance:
		return fmt.Sprintf("the clock advances %v", s.Advance)
	case StepAnyOrder:
		return fmt.Sprintf("%d frames in any order", len(s.Group))
	case StepCheck:
		return "Core-side check: " + s.Check.String()
	case StepFault:
		return "a fault is armed on the relay"
	case StepStopReading:
		return fmt.Sprintf("%s stops reading its socket", s.From)
	case StepResumeReading:
		return fmt.Sprintf("%s reads its socket again", s.From)
	case StepAwaitStall:
		return fmt.Sprintf("%s waits until the unread output fills its socket", s.From)
	case StepExportPull:
		return fmt.Sprintf("core pulls export %s to its end", compact(s.Export.ID))
	case StepRestart:
		return fmt.Sprintf("%s restarts over its durable records", s.From)
	case StepBound:
		return fmt.Sprintf("the %s's frames have bound ${%s}", s.From, strings.Join(s.Names, "}, ${"))
	}
	return string(s.Kind)
}

// DefaultSilenceWindow is how long a peer must stay quiet for a silence or settle step.
const DefaultSilenceWindow = 50 * time.Millisecond

// FrameTemplate is a frame with placeholders and matchers.
type FrameTemplate struct {
	Type    string
	ID      Value // a string template, or nil for no id
	Payload Value // nil: no payload member
	// Trace is the envelope's trace: a writer sends it as written, a reader compares it (a string
	// template or a matcher: {$absent: true} when the trace must not be there). nil: a writer
	// sends none and a reader ignores it (traces are diagnostic, facts §7).
	Trace Value
	// Invalid declares that the frame breaks a rule on purpose; it holds the expected proto error.
	Invalid string
	// Raw is sent verbatim instead of an envelope (garbage, invalid JSON).
	Raw *string
	// PadPayloadTo, when not 0, is the exact size in bytes of the payload as a scripted writer sends
	// it: the encoded payload object gets JSON whitespace after its opening brace (PadPayload), so a
	// valid frame can reach a payload bound (facts §2.3) that its members alone cannot. The value
	// decodes unchanged; a reader compares it as always. Only a frame a scripted peer always writes
	// may carry it (a core frame in a scenario that tests: runtime, a runtime frame in one that
	// tests: core): a peer under test sends its own bytes.
	PadPayloadTo int
	// BodyBytes, on a core runtime_prepare begin of a scenario that tests: core, is the size of the
	// operation's body, n bytes of the letter a made when the scenario begins, instead of the data
	// of chunk steps (the scenario writes none for that transfer): what Core is configured to
	// prepare, for a body too big to spell (a Runtime that rejects the begin then needs no chunk).
	BodyBytes int
	// What an armed fault does to this frame on its way (the writer sends it as written): Lost, the
	// reader never sees it; Copies, the reader sees it that many times; Corrupted, the reader gets
	// a broken frame instead (invalid_json, invalid_frame) or loses the transport (oversize).
	Lost      bool
	Copies    int
	Corrupted string
	// Optional: the peer may send this frame here or not at all, where the spec admits both
	// (docs/spec-readings.md). A reader does not wait for it: it skips it, once, if it comes before
	// the frames of the next step that reads (or inside the next silence), never later; a writer
	// sends it.
	Optional bool
	Pos      Pos
}

// CloseSpec says who drops the transport and how.
type CloseSpec struct {
	By     proto.Peer // who closes; the Runtime by default (its socket drops)
	Code   int        // 0: an abrupt drop without a close frame
	Reason string
	// Awaited: the closing peer closes on its own, because of what came before (a frame over its
	// limit, say); the other side waits for the close and compares code and reason as written
	// instead of causing it.
	Awaited bool
	// Stopped: the closing peer is stopped by whoever launched it (SIGTERM, its context) and must
	// close as written on its way out (CN-20). Implies Awaited. A Core (by: core) shuts down: a
	// clean close, 1000 or 1001, is what it must send (the code written is the one a scripted Core
	// sends), never an error code nor a dropped socket.
	Stopped bool
	// Dropped: the closing peer ends the transport on its own after a write that ran out of its
	// per-frame write timeout (CN-42): "a failed write closes the session", which says nothing of
	// how, so a drop without a close frame and a close frame with any code both pass
	// (docs/spec-readings.md, how-a-transport-ends). Implies Awaited; what the other side reads
	// before the end is discarded: it is the output that piled up while that side stopped reading,
	// of which the kernel's buffers kept an unpredictable part.
	Dropped bool
	// AnyClose: the closing peer ends the transport on its own because of the steps before (a
	// frame over its 4 MiB read limit, CN-41), with any close code or none: the spec fixes that the
	// transport ends, not the code. Implies Awaited; it takes no code. Frames other than heartbeats
	// read before the end fail it.
	AnyClose bool
	// MayEnd (by: runtime): from this step on the Runtime may end its transport, by a close with
	// any code, a drop or its exit, where the spec neither demands nor forbids that it stay
	// connected (after device_shutdown, say). Core causes nothing and waits for nothing here. If
	// the transport ends at a later step, the scenario ends there: every step before it held,
	// the rest asks what only a connected Runtime can answer. A frame the Runtime sends instead
	// of the one a step expects still fails. Reading names the docs/spec-readings.md entry.
	MayEnd  bool
	Reading string
}

func (c *CloseSpec) String() string {
	if c.MayEnd {
		return fmt.Sprintf("%s may end the transport from here on (any close, a drop, an exit)", c.By)
	}
	if c.Stopped {
		return fmt.Sprintf("%s is stopped and closes with %d %q", c.By, c.Code, c.Reason)
	}
	if c.Dropped {
		return fmt.Sprintf("%s ends the transport on its own after a failed write (a drop or any close)", c.By)
	}
	if c.AnyClose {
		return fmt.Sprintf("%s ends the transport on its own (any close code, or a drop)", c.By)
	}
	if c.Awaited {
		return fmt.Sprintf("%s closes on its own with %d %q", c.By, c.Code, c.Reason)
	}
	if c.Code == 0 {
		return fmt.Sprintf("%s drops the socket", c.By)
	}
	return fmt.Sprintf("%s closes with %d %q", c.By, c.Code, c.Reason)
}

// Check is a Core-side outcome check, answered by the Core implementation.
type Check struct {
	// Capabilities: Core's admission snapshot for the connection; Declared "none" means no
	// capability is known (none inferred), "complete" that kind Kind is advertised with a complete
	// declaration.
	Capabilities *CapabilitiesCheck
	// Turn: the recorded outcome of the Turn of a Run.
	Turn *TurnCheck
	// Preparation: the result of the Environment preparation (runtime_prepare) Core last ran.
	Preparation *PreparationCheck
	// Workspace: a workspace operation's recorded outcome, or a refusal inside Core
	// (workspace_check.go).
	Workspace *WorkspaceCheck
	// Suspension: a suspension request's recorded outcome, or a refusal inside Core
	// (suspension_check.go).
	Suspension *SuspensionCheck
	// Subagents: the sub-agent frames Core recorded for a Run's Turn (subagents_check.go).
	Subagents *SubagentsCheck
	// Interaction: an answer Core must refuse inside itself (interaction_check.go).
	Interaction *InteractionCheck
	// Interactions: the interactions Core registered for a Run's Turn (interactions_check.go).
	Interactions *InteractionsCheck
	// Decision: what Core recorded of a decision it sent, by delivery_id (decision_check.go).
	Decision *DecisionCheck
	// Start: a Turn start Core must refuse inside itself (start_check.go).
	Start *StartCheck
	// Admission: a caller's start Core must refuse at device selection (admission_check.go).
	Admission *AdmissionCheck
	// DeviceStatus: what Core's device-status route answers (device_status_check.go); the
	// Runtime side asks it itself.
	DeviceStatus *DeviceStatusCheck
	// Journal: an entry of the journal of a Run's Turn (journal_check.go).
	Journal *JournalCheck
	// Cancel: a caller's cancellation Core must take (caller_check.go).
	Cancel *CancelCheck
	// Input: a caller's active input Core must refuse inside itself (caller_check.go).
	Input *InputCheck
	Pos   Pos
}

func (c *Check) String() string {
	switch {
	case c.Capabilities != nil:
		s := fmt.Sprintf("capabilities of kind %q are %s", c.Capabilities.Kind, c.Capabilities.Declared)
		if len(c.Capabilities.Supports) > 0 {
			s += ", supporting " + strings.Join(c.Capabilities.Supports, ", ")
		}
		if len(c.Capabilities.Lacks) > 0 {
			s += ", lacking " + strings.Join(c.Capabilities.Lacks, ", ")
		}
		return s
	case c.Turn != nil:
		s := fmt.Sprintf("turn of run %v is %s", c.Turn.Run, c.Turn.Status)
		if c.Turn.Reason != "" {
			s += " with reason " + c.Turn.Reason
		}
		if c.Turn.PreparationCode != "" {
			s += " and preparation code " + c.Turn.PreparationCode
		}
		if c.Turn.EngineOneOf != nil {
			s += " and engine_error_code " + c.Turn.EngineOneOf.String()
		}
		if c.Turn.Usage != nil {
			s += " with usage " + compact(c.Turn.Usage)
		}
		if c.Turn.Content != nil {
			s += fmt.Sprintf(" with content %q", *c.Turn.Content)
		}
		if c.Turn.EngineHTTPStatus != nil {
			s += fmt.Sprintf(" with engine_http_status %d", *c.Turn.EngineHTTPStatus)
		}
		if c.Turn.Error != nil {
			s += fmt.Sprintf(" with error %q", *c.Turn.Error)
		}
		return s
	case c.Preparation != nil:
		return c.Preparation.String()
	case c.Workspace != nil:
		return c.Workspace.String()
	case c.Suspension != nil:
		return c.Suspension.String()
	case c.Subagents != nil:
		return c.Subagents.String()
	case c.Interaction != nil:
		return c.Interaction.String()
	case c.Interactions != nil:
		return c.Interactions.String()
	case c.Decision != nil:
		return c.Decision.String()
	case c.Start != nil:
		return c.Start.String()
	case c.Admission != nil:
		return c.Admission.String()
	case c.DeviceStatus != nil:
		return c.DeviceStatus.String()
	case c.Journal != nil:
		return c.Journal.String()
	case c.Cancel != nil:
		return c.Cancel.String()
	case c.Input != nil:
		return c.Input.String()
	}
	return "?"
}

// CapabilitiesCheck checks Core's capability snapshot.
type CapabilitiesCheck struct {
	Kind     string
	Declared string // "none" or "complete"
	// Supports and Lacks (with Declared "complete") name capabilities the snapshot's declaration
	// of Kind supports, or does not: a check waits until a heartbeat that changes them has been
	// applied, so later steps are ordered after it.
	Supports []string
	Lacks    []string
}

// Judge reports whether Core's snapshot holds: k is its declaration of the kind (nil when no
// capability is known for it). got says what the snapshot is, for messages.
func (c *CapabilitiesCheck) Judge(k *proto.SupportedAgentKind) (ok bool, got string) {
	if k == nil {
		return c.Declared == "none", "declared none"
	}
	supported := func(name string) bool {
		if k.Capabilities == nil {
			return false
		}
		v, known := k.Capabilities.Get(name)
		return known && v.Supported()
	}
	var wrong []string
	for _, name := range c.Supports {
		if !supported(name) {
			wrong = append(wrong, name+" unsupported")
		}
	}
	for _, name := range c.Lacks {
		if supported(name) {
			wrong = append(wrong, name+" supported")
		}
	}
	if len(wrong) > 0 {
		return false, "declared complete with " + strings.Join(wrong, ", ")
	}
	return c.Declared == "complete", "declared complete"
}

// TurnCheck checks a Turn's recorded outcome.
type TurnCheck struct {
	Run    Value // string template
	Status string
	Reason string // Core's error_code; "" when none is expected
	Engine string // engine_error_code, when expected ("" : none)
	// EngineOneOf, when written as {$one_of: [...], reading: ...}, is every engine_error_code the
	// outcome may hold ("" for none): where the spec lets Core keep a classification or not.
	EngineOneOf *Matcher
	// PreparationCode is the preparation error code the outcome keeps (protocol-facts §6.2,
	// preparation_start_failed); "" leaves it unchecked.
	PreparationCode string
	// Usage, when not nil, is a template of the outcome's usage snapshot in the members of a usage
	// frame's payload: every member compared, none missing and none extra (a snapshot replaces,
	// it never adds). nil leaves it unchecked.
	Usage Value
	// Content, when not nil, is the outcome's content exactly (done's, or filled from earlier
	// frames when done's is empty).
	Content *string
	// EngineHTTPStatus, when not nil, is the outcome's engine_http_status exactly (0: none kept;
	// protocol-facts §6.1).
	EngineHTTPStatus *int
	// Error, when not nil, is the outcome's recorded error exactly: an engine_failed Turn keeps
	// the text of its error frame (PJ-08.2). Only with reason engine_failed: the text of Core's
	// own failures is Core's to word.
	Error *string
}

// PreparationCheck checks the result of the Environment preparation Core ran last (on the
// latest connection): a check waits until it has ended (no longer running).
type PreparationCheck struct {
	State string // completed, rejected, failed or unknown
	// ErrorCode, ExitCode and Operation (the index of the operation that ended it, or the number
	// of operations once completed) are compared when written.
	ErrorCode string
	ExitCode  *int
	Operation *int
	// Refuses, instead of a result, is the payload of a runtime_prepare begin (its identity as
	// written) that a caller now sets as the device's one preparation operation through Core's
	// API, which Core must refuse inside itself with the API error Code: nothing reaches the wire
	// (a begin whose whole frame would be over 1 MiB, RP-10).
	Refuses Value
	// Body, with Refuses, is the operation's content as the caller gives it (text; nil: none), for
	// a skill, plugin or file whose begin Core computes size_bytes and sha256 for: a refusal that
	// must break one header rule alone needs a body, or the empty one breaks RP-08.4 as well.
	Body *string
	// BodyBytes, with Refuses and instead of Body, is a content of that many bytes (the letter a),
	// made when the check runs: a body past the 4 MiB a $repeat may expand to at load (RP-08.2).
	BodyBytes int
	Code      string
}

// PreparationStates are the states a preparation ends in.
var PreparationStates = []string{"completed", "rejected", "failed", "unknown"}

func (c *PreparationCheck) String() string {
	if c.Refuses != nil {
		return "Core refuses a preparation with " + c.Code
	}
	s := "the preparation ended " + c.State
	if c.ErrorCode != "" {
		s += " with " + c.ErrorCode
	}
	if c.ExitCode != nil {
		s += fmt.Sprintf(" (exit_code %d)", *c.ExitCode)
	}
	if c.Operation != nil {
		s += fmt.Sprintf(" at operation %d", *c.Operation)
	}
	return s
}

// FaultArmer arms a scenario's fault step on the relay between the peers. Exactly one of the two
// scripted peers of a pairing arms; the other is given none and skips fault steps.
type FaultArmer interface {
	Arm(ctx context.Context, f *FaultStep, b *Bindings) error
}

// A DropWitness is a FaultArmer that also says when a fault has dropped a frame. A `lost` step
// then waits for the drop instead of taking it for granted, so the next step cannot overtake the
// frame the fault removes (a resend racing the receipt it answers, say).
type DropWitness interface {
	// AwaitDrop returns once n frames of type frameType have been dropped, or ctx ends.
	AwaitDrop(ctx context.Context, frameType string, n int) error
}

// HasFaults reports whether a scenario arms faults (it then needs a relay between the peers).
func (s *Scenario) HasFaults() bool {
	for _, st := range s.Steps {
		if st.Kind == StepFault {
			return true
		}
	}
	return false
}

// Awaited is the frame step a pull expects once received bytes of the archive came: the chunk at
// offset 0 first; after a chunk, the chunk at that offset or completed there (WS-28.2). Its data is
// any string: what a chunk may hold is the wire rules' to judge.
func (e *ExportPull) Awaited(st *Step, received int) *Step {
	chunk := map[string]Value{"outcome": proto.OutcomeChunk, "offset": jsonInt(received), "data": &Matcher{Any: "string"}}
	var want Value = chunk
	if received > 0 {
		want = &Matcher{OneOf: []Value{chunk, map[string]Value{"outcome": proto.OutcomeCompleted, "offset": jsonInt(received)}}}
	}
	return e.frame(st, proto.Runtime, proto.TypeWorkspaceExportResult, want)
}

// Next is the next Core sends once received bytes came: offset = the bytes received (WS-28.3).
func (e *ExportPull) Next(st *Step, received int) *Step {
	return e.frame(st, proto.Core, proto.TypeWorkspaceExport, map[string]Value{"step": proto.ExportNext, "offset": jsonInt(received)})
}

// Chunk is the chunk a scripted Runtime serves at offset, and Completed its last frame.
func (e *ExportPull) Chunk(st *Step, offset int, data string) *Step {
	return e.frame(st, proto.Runtime, proto.TypeWorkspaceExportResult, map[string]Value{"outcome": proto.OutcomeChunk, "offset": jsonInt(offset), "data": data})
}

// Completed is the frame that ends an export of size bytes.
func (e *ExportPull) Completed(st *Step, size int) *Step {
	return e.frame(st, proto.Runtime, proto.TypeWorkspaceExportResult, map[string]Value{"outcome": proto.OutcomeCompleted, "offset": jsonInt(size)})
}

// frame is one frame of the pull, as a frame step of its own at the step's place.
func (e *ExportPull) frame(st *Step, from proto.Peer, typ string, payload Value) *Step {
	return &Step{Kind: StepKind(from), Pos: st.Pos, Index: st.Index, From: from,
		Frame: &FrameTemplate{Type: typ, ID: e.ID, Payload: payload, Pos: st.Pos}}
}

func jsonInt(n int) json.Number { return json.Number(strconv.Itoa(n)) }
