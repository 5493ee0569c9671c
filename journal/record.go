// Package journal is the typed, append-only, hash-chained record of one scenario run: a JSON
// Lines file whose first record (the header) names the wire version, the catalog's digest, the
// seed and the clock mode, then one record per observed fact (a frame sent or received, a
// connection, process, clock or fault event, the assertion's result), and whose last record is
// a head anchor, signed with ed25519 when a key is given. Every record carries the SHA-256 of
// the line before it, so an edited, dropped or reordered record, a truncated tail and a
// tampered anchor are each detected (Verify). docs/journal.md specifies the format for a third
// party's verifier.
//
// The journal is written from the scripted peer's transcript (internal/script's Recorder, the
// one place the facts are recorded), after redaction: credentials never appear in it.
package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Format names this version of the journal format; it is the header's "format".
const Format = "wirecheck-journal/1"

// Kind is what a record says.
type Kind string

const (
	KindHeader     Kind = "header"     // first record: what the run was
	KindFrame      Kind = "frame"      // a frame sent or received
	KindConnection Kind = "connection" // bootstrap and upgrade answers, connection open, close, replace
	KindProcess    Kind = "process"    // the daemon launched, stopped
	KindExit       Kind = "exit"       // how a daemon the scenario launched ended
	KindClock      Kind = "clock"      // a clock moved (virtual, or the Runtime's transport clock)
	KindFault      Kind = "fault"      // a fault applied (relay schedule, stalls, drops, oversize)
	KindEvent      Kind = "event"      // any other transport event
	KindAssertion  Kind = "assertion"  // the scenario's verdict and, unless it passed, its failure
	KindAnchor     Kind = "anchor"     // last record: the head of the chain, signed
)

// Record is one line of a journal. Exactly the body its Kind names is set.
type Record struct {
	N    int    `json:"n"`    // record number: the header is 0, each next one 1 more
	Prev string `json:"prev"` // hex SHA-256 of the previous line's bytes (64 zeros for the header)
	Kind Kind   `json:"kind"`
	// Mono is the monotonic time since the scenario started, in nanoseconds (facts only).
	Mono int64 `json:"mono_ns,omitempty"`
	// Wall is the wall clock of the fact, RFC 3339 UTC with nanoseconds (facts only; absent in
	// journals written before it was added).
	Wall string `json:"wall,omitempty"`
	Step int    `json:"step,omitempty"` // the scenario step the fact belongs to (0: none)

	Header    *Header    `json:"header,omitempty"`
	Frame     *Frame     `json:"frame,omitempty"`
	Event     *Event     `json:"event,omitempty"` // connection, process, clock, fault, event
	Exit      *Exit      `json:"exit,omitempty"`
	Assertion *Assertion `json:"assertion,omitempty"`
	Anchor    *Anchor    `json:"anchor,omitempty"`
}

// Header is what the run was.
type Header struct {
	Format   string `json:"format"`  // Format
	Wire     string `json:"wire"`    // proto.Version the suite spoke
	Catalog  string `json:"catalog"` // hex SHA-256 of the catalog (certify.CatalogDigest); "" if unknown
	Seed     string `json:"seed"`
	Clock    string `json:"clock"` // "virtual" (in process) or "real"
	Tool     string `json:"tool"`
	Scenario string `json:"scenario"`
	Title    string `json:"title,omitempty"`
	Played   string `json:"played"`  // the side wirecheck played: "core" or "runtime"
	Started  string `json:"started"` // wall clock of the certification run's start, RFC 3339
}

// Frame is a frame on the wire.
type Frame struct {
	Dir  string `json:"dir"`  // "core→runtime" or "runtime→core"
	Conn int    `json:"conn"` // connection generation: 1 for the first connection, 0 before any
	Seq  int    `json:"seq"`  // 1-based, per connection and direction
	Type string `json:"type"` // the envelope's type ("(not an envelope)" if it has none)
	ID   string `json:"id,omitempty"`
	Raw  string `json:"raw"` // the frame's text exactly as on the wire (redacted)
	// Verdict is the proto validator's: "ok", or its error naming frame, member and rule.
	Verdict string `json:"verdict"`
}

// Event is a transport event, as the scripted peer recorded it.
type Event struct {
	Name string `json:"name"`
	Note string `json:"note,omitempty"`
}

// Exit is how one daemon the scenario launched ended.
type Exit struct {
	Daemon     int    `json:"daemon"` // 1-based, in launch order
	Exit       string `json:"exit"`   // "" if it did not end
	Code       int    `json:"code"`
	Killed     bool   `json:"killed,omitempty"`
	LeftBehind string `json:"left_behind,omitempty"`
}

// Assertion is the scenario's verdict.
type Assertion struct {
	Verdict  string            `json:"verdict"`
	Step     int               `json:"step,omitempty"`
	StepDesc string            `json:"step_desc,omitempty"`
	File     string            `json:"file,omitempty"` // the step's scenario file and line
	Line     int               `json:"line,omitempty"`
	Message  string            `json:"message,omitempty"`
	Expected json.RawMessage   `json:"expected,omitempty"`
	Actual   json.RawMessage   `json:"actual,omitempty"`
	Diff     string            `json:"diff,omitempty"`
	Cause    string            `json:"cause,omitempty"`
	Missing  []string          `json:"missing,omitempty"`
	Bindings map[string]string `json:"bindings,omitempty"`
}

// Anchor closes the chain: Records is its own record number (the records before it), Head the
// SHA-256 of the line before it (equal to its Prev). Signed, Sig is the ed25519 signature of
// AnchorMessage(Head, Records) by the key whose KeyID is given.
type Anchor struct {
	Records int    `json:"records"`
	Head    string `json:"head"`
	KeyID   string `json:"key_id,omitempty"` // KeyID of the signer's public key; "" if unsigned
	Sig     string `json:"sig,omitempty"`    // base64 (standard, padded) of the 64-byte signature
}

// AnchorMessage is the bytes an anchor's signature covers.
func AnchorMessage(head string, records int) []byte {
	return fmt.Appendf(nil, "%s %s %d", Format, head, records)
}

// zeroHash is the Prev of the header.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// MaxLine bounds one record's line, so a hostile file cannot make the decoder hold more.
const MaxLine = 16 << 20

// DecodeRecord decodes one line strictly: unknown members, a body that does not match the kind,
// a missing body or trailing data are errors.
func DecodeRecord(line []byte) (Record, error) {
	var r Record
	if len(line) > MaxLine {
		return r, fmt.Errorf("record of %d bytes is longer than %d", len(line), MaxLine)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("not a journal record: %w", err)
	}
	if dec.More() {
		return r, errors.New("not a journal record: data after the record")
	}
	return r, r.check()
}

// check is the record's shape: its body matches its kind.
func (r *Record) check() error {
	if r.N < 0 {
		return fmt.Errorf("record number %d is negative", r.N)
	}
	if !isHash(r.Prev) {
		return fmt.Errorf("record %d: prev %q is not 64 lowercase hex characters", r.N, r.Prev)
	}
	bodies := 0
	for _, set := range []bool{r.Header != nil, r.Frame != nil, r.Event != nil, r.Exit != nil, r.Assertion != nil, r.Anchor != nil} {
		if set {
			bodies++
		}
	}
	var want bool
	switch r.Kind {
	case KindHeader:
		want = r.Header != nil
		if want && r.Header.Format != Format {
			return fmt.Errorf("record %d: header.format %q: this verifier reads %q", r.N, r.Header.Format, Format)
		}
	case KindFrame:
		want = r.Frame != nil
	case KindConnection, KindProcess, KindClock, KindFault, KindEvent:
		want = r.Event != nil
	case KindExit:
		want = r.Exit != nil
	case KindAssertion:
		want = r.Assertion != nil
	case KindAnchor:
		want = r.Anchor != nil
	default:
		return fmt.Errorf("record %d: unknown kind %q", r.N, r.Kind)
	}
	if !want || bodies != 1 {
		return fmt.Errorf("record %d: a %s record holds exactly its %s body", r.N, r.Kind, bodyName(r.Kind))
	}
	return nil
}

func bodyName(k Kind) string {
	switch k {
	case KindConnection, KindProcess, KindClock, KindFault:
		return "event"
	}
	return string(k)
}

func isHash(s string) bool { return len(s) == 64 && isLowerHex(s) }

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
