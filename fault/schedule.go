package fault

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// Direction is the way a frame travels through the relay. The strings are the transcript's.
type Direction string

const (
	CoreToRuntime Direction = "core→runtime"
	RuntimeToCore Direction = "runtime→core"
	Both          Direction = "both"
)

// sender is the peer that sends the frames travelling in d (CoreToRuntime or RuntimeToCore).
func (d Direction) sender() proto.Peer {
	if d == CoreToRuntime {
		return proto.Core
	}
	return proto.Runtime
}

// ParseDirection accepts core→runtime, runtime→core and both, and the ASCII spellings
// core->runtime and runtime->core. The empty string is both.
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "", string(Both):
		return Both, nil
	case string(CoreToRuntime), "core->runtime":
		return CoreToRuntime, nil
	case string(RuntimeToCore), "runtime->core":
		return RuntimeToCore, nil
	}
	return "", fmt.Errorf("direction must be core→runtime, runtime→core or both (or core->runtime, runtime->core), got %q", s)
}

// Sender is the peer that sends frames travelling this way.
func (d Direction) Sender() proto.Peer {
	if d == CoreToRuntime {
		return proto.Core
	}
	return proto.Runtime
}

// Reverse is the other way.
func (d Direction) Reverse() Direction {
	switch d {
	case CoreToRuntime:
		return RuntimeToCore
	case RuntimeToCore:
		return CoreToRuntime
	}
	return d
}

func (d Direction) covers(x Direction) bool { return d == "" || d == Both || d == x }

// Schedule is an ordered list of rules, and optionally the seed to draw their random choices from.
type Schedule struct {
	// Seed reproduces a run; 0 leaves the choice to Options.Seed (and then to crypto/rand).
	Seed  uint64
	Rules []Rule
}

// Rule applies Action to the frames Match selects. Rules are evaluated in order on every frame
// read from a peer; each keeps its own count of matches.
type Rule struct {
	Name   string // names the rule in the event log; unique within a relay
	Match  Match
	Action Action
}

// Match selects frames by envelope, never by bytes. Every member set must hold.
type Match struct {
	Direction Direction // "" or Both: either way
	Type      string    // envelope type
	ID        string    // envelope id, literally
	// IDFrom names a placeholder whose value the caller binds at run time (Relay.Bind): how a
	// scenario addresses "the Run ID Core chose". Until it is bound the rule matches nothing.
	IDFrom string
	// Payload holds top-level payload members that must be present with these values (compared
	// as JSON), e.g. {"phase": "written"} for the written receipt of prompt_steer_ack.
	Payload map[string]any
	// Undecodable selects only frames that are not envelopes at all (proto.DecodeEnvelope fails).
	// Without it a rule never matches such a frame, which passes through untouched.
	Undecodable bool
	// Nth fires the rule on the n-th match only (1-based), counted per relay across reconnects;
	// 0 fires on every match.
	Nth int
	// Probability, if set (0 < p < 1), fires a selected match only when a draw from the seeded
	// generator falls below it. 0 and 1 mean always.
	Probability float64
}

// ActionKind names what a rule does.
type ActionKind string

const (
	ActDrop            ActionKind = "drop"             // the frame is lost
	ActDelay           ActionKind = "delay"            // the frame is held For on the injected clock
	ActDuplicate       ActionKind = "duplicate"        // Count extra copies follow the frame
	ActReorder         ActionKind = "reorder"          // the frame is sent after the next one in its direction
	ActCorrupt         ActionKind = "corrupt"          // the frame is replaced by a Corruption of it
	ActCut             ActionKind = "cut"              // both sockets drop right after the frame
	ActRefuseReconnect ActionKind = "refuse_reconnect" // the next Count upgrades are refused with Status
	ActClose           ActionKind = "close"            // a close (or a half-open connection) After a delay
)

// ActionKinds lists every action, in the order the documentation gives them.
var ActionKinds = []ActionKind{ActDrop, ActDelay, ActDuplicate, ActReorder, ActCorrupt, ActCut, ActRefuseReconnect, ActClose}

// Corruption is how a corrupt action breaks a frame.
type Corruption string

const (
	// InvalidJSON: the frame's bytes are no longer JSON (its closing brace is removed).
	InvalidJSON Corruption = "invalid_json"
	// Oversize: the frame is padded to proto.MaxFrameBytes+1 bytes with an extra envelope member,
	// so its size is its only fault.
	Oversize Corruption = "oversize"
	// InvalidFrame: a well-formed envelope that fails proto.ParseFrame: a required payload member
	// is removed (else the id rule is broken, else the type is made unknown).
	InvalidFrame Corruption = "invalid_frame"
)

// Corruptions lists every corruption kind.
var Corruptions = []Corruption{InvalidJSON, Oversize, InvalidFrame}

// Action is what a rule does to the frames it fires on. Only the members of Kind apply.
type Action struct {
	Kind ActionKind

	// delay: how long the frame is held. Later frames overtake it, unless Block holds every later
	// frame of its direction behind it (a stalled link).
	For   time.Duration
	Block bool

	// duplicate: extra copies (default 1). refuse_reconnect: upgrades refused (default 1).
	Count int

	// corrupt: how.
	Corruption Corruption

	// refuse_reconnect: the HTTP status (default 503, which a daemon treats as transient) and the
	// error code of the body (default: the listed code of that status, else "internal").
	Status int
	Error  string

	// close: the close code (default 1000) and reason sent to both peers After the frame, on the
	// injected clock. HalfOpen instead stops forwarding Stop (default: the frame's direction)
	// and keeps both sockets open.
	Code     int
	Reason   string
	After    time.Duration
	HalfOpen bool
	Stop     Direction
}

// Drop loses the frame.
func Drop() Action { return Action{Kind: ActDrop} }

// Delay holds the frame for d on the relay's clock; later frames overtake it.
func Delay(d time.Duration) Action { return Action{Kind: ActDelay, For: d} }

// Stall holds the frame and every later frame of its direction for d.
func Stall(d time.Duration) Action { return Action{Kind: ActDelay, For: d, Block: true} }

// Duplicate sends count extra copies of the frame.
func Duplicate(count int) Action { return Action{Kind: ActDuplicate, Count: count} }

// Reorder sends the frame after the next frame of its direction.
func Reorder() Action { return Action{Kind: ActReorder} }

// Corrupt replaces the frame with a corruption of it.
func Corrupt(c Corruption) Action { return Action{Kind: ActCorrupt, Corruption: c} }

// Cut drops both sockets, without a close frame, right after forwarding the frame.
func Cut() Action { return Action{Kind: ActCut} }

// RefuseReconnect refuses the next count upgrade attempts with status (0: 503).
func RefuseReconnect(count, status int) Action {
	return Action{Kind: ActRefuseReconnect, Count: count, Status: status}
}

// CloseAfter closes both sockets with code and reason, after d on the relay's clock.
func CloseAfter(code int, reason string, d time.Duration) Action {
	return Action{Kind: ActClose, Code: code, Reason: reason, After: d}
}

// HalfOpen stops forwarding stop (Both, one direction, or "" for the frame's own direction) after
// d, and keeps the sockets open.
func HalfOpen(stop Direction, d time.Duration) Action {
	return Action{Kind: ActClose, HalfOpen: true, Stop: stop, After: d}
}

var placeholderRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// RuleError says which rule, which member of it and which rule of the format it breaks.
type RuleError struct {
	Rule   string // the rule's name ("" when the name itself is missing)
	Member string // e.g. "match.type", "delay.for"
	Msg    string
}

func (e *RuleError) Error() string {
	where := "rule"
	if e.Rule != "" {
		where = fmt.Sprintf("rule %q", e.Rule)
	}
	if e.Member == "" {
		return where + ": " + e.Msg
	}
	return where + ": " + e.Member + ": " + e.Msg
}

// Validate checks the whole schedule: every rule, and that names are unique.
func (s *Schedule) Validate() error {
	seen := map[string]bool{}
	for i := range s.Rules {
		r := &s.Rules[i]
		if err := r.Validate(); err != nil {
			return err
		}
		if seen[r.Name] {
			return &RuleError{Rule: r.Name, Member: "name", Msg: "is used by an earlier rule; names are unique"}
		}
		seen[r.Name] = true
	}
	return nil
}

// Validate checks one rule; a failure is a *RuleError naming the member and what it breaks.
func (r *Rule) Validate() error {
	if strings.TrimSpace(r.Name) == "" {
		return &RuleError{Member: "name", Msg: "is required"}
	}
	if err := r.Match.validate(); err != nil {
		err.Rule, err.Member = r.Name, "match."+err.Member
		return err
	}
	if err := r.Action.validate(); err != nil {
		err.Rule = r.Name
		if err.Member != "" {
			err.Member = string(r.Action.Kind) + "." + err.Member
		}
		return err
	}
	return nil
}

func fieldError(member, format string, args ...any) *RuleError {
	return &RuleError{Member: member, Msg: fmt.Sprintf(format, args...)}
}

func (m *Match) validate() *RuleError {
	if _, err := ParseDirection(string(m.Direction)); err != nil {
		return fieldError("direction", "%v", err)
	}
	if m.Type != "" {
		spec, ok := proto.Lookup(m.Type)
		if !ok {
			return fieldError("type", "unknown message type %q", m.Type)
		}
		if m.Direction != "" && m.Direction != Both && spec.From != m.Direction.Sender() {
			return fieldError("type", "%s is sent by %s; %s never carries it", m.Type, spec.From, m.Direction)
		}
	}
	if m.ID != "" && m.IDFrom != "" {
		return fieldError("id", "give id or id_from, not both")
	}
	if m.IDFrom != "" && !placeholderRE.MatchString(m.IDFrom) {
		return fieldError("id_from", "%q must be a placeholder name: lowercase letters, digits and _", m.IDFrom)
	}
	for k, v := range m.Payload {
		if _, err := json.Marshal(v); err != nil {
			return fieldError("payload."+k, "is not a JSON value: %v", err)
		}
	}
	if m.Undecodable && (m.Type != "" || m.ID != "" || m.IDFrom != "" || len(m.Payload) > 0) {
		return fieldError("undecodable", "a frame that is not an envelope has no type, id or payload to match")
	}
	if m.Nth < 0 {
		return fieldError("nth", "must be 1 or more (0: every match), got %d", m.Nth)
	}
	if m.Probability < 0 || m.Probability > 1 || m.Probability != m.Probability {
		return fieldError("probability", "must be between 0 and 1, got %v", m.Probability)
	}
	return nil
}

// sendableCloseCode: the codes a close frame may carry (RFC 6455 §7.4.1).
func sendableCloseCode(c int) bool {
	switch {
	case c == 1004 || c == 1005 || c == 1006 || c == 1015:
		return false
	case c >= 1000 && c <= 1014, c >= 3000 && c <= 4999:
		return true
	}
	return false
}

func (a *Action) validate() *RuleError {
	switch a.Kind {
	case ActDrop, ActReorder, ActCut:
	case ActDelay:
		if a.For <= 0 {
			return fieldError("for", "must be a positive duration, got %v", a.For)
		}
	case ActDuplicate:
		if a.Count < 0 || a.Count > 100 {
			return fieldError("count", "must be 1 to 100 extra copies, got %d", a.Count)
		}
	case ActCorrupt:
		ok := false
		for _, c := range Corruptions {
			ok = ok || a.Corruption == c
		}
		if !ok {
			return fieldError("kind", "must be invalid_json, oversize or invalid_frame, got %q", a.Corruption)
		}
	case ActRefuseReconnect:
		if a.Count < 0 {
			return fieldError("count", "must be 1 or more, got %d", a.Count)
		}
		if a.Status != 0 && (a.Status < 400 || a.Status > 599) {
			return fieldError("status", "must be an HTTP error status (400–599), got %d", a.Status)
		}
		if a.Error != "" && proto.KnownHTTPError(a.Error) && a.Status != 0 && proto.HTTPStatusFor(a.Error) != a.Status {
			return fieldError("error", "%q goes with %d, not %d (protocol-facts.md §1.2)", a.Error, proto.HTTPStatusFor(a.Error), a.Status)
		}
	case ActClose:
		if a.After < 0 {
			return fieldError("after", "must not be negative, got %v", a.After)
		}
		if a.HalfOpen {
			if a.Code != 0 || a.Reason != "" {
				return fieldError("half_open", "a half-open connection sends no close frame: drop code and reason")
			}
			if a.Stop != "" {
				if _, err := ParseDirection(string(a.Stop)); err != nil {
					return fieldError("stop", "%v", err)
				}
			}
			return nil
		}
		if a.Stop != "" {
			return fieldError("stop", "applies only to half_open")
		}
		if a.Code != 0 && !sendableCloseCode(a.Code) {
			return fieldError("code", "%d cannot be sent in a close frame (1000–1014 except 1004–1006, or 3000–4999)", a.Code)
		}
		if len(a.Reason) > 123 {
			return fieldError("reason", "must be at most 123 bytes, got %d", len(a.Reason))
		}
	case "":
		return &RuleError{Msg: "an action is required: one of " + kindList()}
	default:
		return &RuleError{Msg: fmt.Sprintf("unknown action %q (one of %s)", a.Kind, kindList())}
	}
	return nil
}

func kindList() string {
	names := make([]string, len(ActionKinds))
	for i, k := range ActionKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// withDefaults fills the documented defaults of an action.
func (a Action) withDefaults() Action {
	switch a.Kind {
	case ActDuplicate:
		if a.Count == 0 {
			a.Count = 1
		}
	case ActRefuseReconnect:
		if a.Count == 0 {
			a.Count = 1
		}
		if a.Status == 0 {
			a.Status = 503
		}
		if a.Error == "" {
			a.Error = errorCodeFor(a.Status)
		}
	case ActClose:
		if !a.HalfOpen && a.Code == 0 {
			a.Code = int(websocket.StatusNormalClosure)
		}
	}
	return a
}

// errorCodeFor is the listed error code of an HTTP status, or "internal".
func errorCodeFor(status int) string {
	for _, code := range []string{proto.HTTPMissingParams, proto.HTTPBadCredential, proto.HTTPWrongRuntimeType,
		proto.HTTPMethodNotAllowed, proto.HTTPIncompatibleVersion} {
		if proto.HTTPStatusFor(code) == status {
			return code
		}
	}
	return proto.HTTPInternal
}
