package proto

import (
	"bytes"
	"encoding/base64"
	"strconv"
)

// The bulk fast path. A transfer moves up to 50 MiB as 64 KiB chunks, each an 87 KB base64 string
// in a JSON frame, and the general decoder reads such a frame eight times over (the envelope's
// members, the payload's members, the shape check, the typed decode: each a validation scan and
// a decoding scan), which made a transfer a tenth as fast as the socket (docs/performance.md,
// "Bulk transfers"). The frames that carry bulk bytes are recognised here in their canonical
// form, the one encoding/json writes: no whitespace, no escape, members in declaration order, an
// offset of 0 omitted where the member is optional. Such a frame is decoded in one scan of its
// data plus the base64 decoding. Anything else takes the general path, which stays the
// definition: FuzzBulkFastPath checks that every input the fast path accepts decodes to the same
// value the general path gives, so a frame the general path refuses is never accepted here.

// bulkForm is the canonical text of one bulk payload before its data string.
type bulkForm struct {
	head      string // up to the offset's digits (or to the data member when offset is omitted)
	omittable bool   // the offset member is absent when 0 (omitempty)
}

var (
	stepChunk   = bulkForm{head: `{"step":"chunk"`, omittable: true}
	exportChunk = bulkForm{head: `{"outcome":"chunk"`}
)

// bulkFormOf returns the bulk form of a message type's payload, if it has one.
func bulkFormOf(typ string) (bulkForm, bool) {
	switch typ {
	case TypeRuntimePrepare, TypeWorkspaceWrite:
		return stepChunk, true
	case TypeWorkspaceExportResult:
		return exportChunk, true
	}
	return bulkForm{}, false
}

// scan splits a canonical bulk payload into its offset and its base64 data, the data checked to
// be standard base64 (alphabet, padding, length). ok is false for anything else.
func (f bulkForm) scan(raw []byte) (offset int64, data []byte, ok bool) {
	offset, data, ok = f.split(raw)
	return offset, data, ok && isBase64Text(data)
}

// split is scan without the check of the data's text: decodeBulkPayload leaves that to the
// base64 decoder, which checks every byte as it decodes.
func (f bulkForm) split(raw []byte) (offset int64, data []byte, ok bool) {
	rest, ok := bytes.CutPrefix(raw, []byte(f.head))
	if !ok {
		return 0, nil, false
	}
	if r, has := bytes.CutPrefix(rest, []byte(`,"offset":`)); has {
		i := 0
		for i < len(r) && r[i] >= '0' && r[i] <= '9' {
			i++
		}
		if i == 0 || i > 18 || (i > 1 && r[0] == '0') {
			return 0, nil, false // no digits, an int64 overflow possible, or a leading zero
		}
		offset, _ = strconv.ParseInt(string(r[:i]), 10, 64)
		if offset == 0 && f.omittable {
			return 0, nil, false // encoding/json omits it: not the canonical form
		}
		rest = r[i:]
	} else if !f.omittable {
		return 0, nil, false
	}
	rest, ok = bytes.CutPrefix(rest, []byte(`,"data":"`))
	if !ok {
		return 0, nil, false
	}
	data, ok = bytes.CutSuffix(rest, []byte(`"}`))
	return offset, data, ok
}

// base64Alphabet marks the bytes of the standard base64 alphabet.
var base64Alphabet = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") {
		t[c] = true
	}
	return t
}()

// isBase64Text: non-empty standard base64, padded, nothing else (no line breaks: encoding/json's
// decoder would skip them, the canonical form has none).
func isBase64Text(b []byte) bool {
	n := len(b)
	if n == 0 || n%4 != 0 {
		return false
	}
	body := b
	if b[n-1] == '=' {
		body = b[:n-1]
		if b[n-2] == '=' {
			body = b[:n-2]
		}
	}
	for _, c := range body {
		if !base64Alphabet[c] {
			return false
		}
	}
	return true
}

// decodeBulkPayload decodes a canonical bulk payload of spec's type, or reports ok false.
func decodeBulkPayload(spec *MessageSpec, raw []byte) (Validator, bool) {
	return decodeBulkPayloadInto(spec, raw, nil)
}

// decodeBulkPayloadInto is decodeBulkPayload with the data decoded into buf when it is large
// enough.
func decodeBulkPayloadInto(spec *MessageSpec, raw, buf []byte) (Validator, bool) {
	form, has := bulkFormOf(spec.Type)
	if !has {
		return nil, false
	}
	offset, text, ok := form.split(raw)
	if !ok || len(text) == 0 || len(text)%4 != 0 {
		return nil, false
	}
	// Decode refuses any byte outside the alphabet but skips line breaks: a text whose every byte
	// is base64 decodes to exactly DecodedLen less its padding, one with a break to fewer.
	want := base64.StdEncoding.DecodedLen(len(text)) - bytes.Count(text[len(text)-2:], []byte("="))
	data := buf[:cap(buf)]
	if size := base64.StdEncoding.DecodedLen(len(text)); len(data) < size {
		data = make([]byte, size)
	} else {
		data = data[:size]
	}
	n, err := base64.StdEncoding.Decode(data, text)
	if err != nil || n != want {
		return nil, false
	}
	data = data[:n]
	switch p := spec.NewPayload().(type) {
	case *RuntimePreparePayload:
		p.Step, p.Offset, p.Data = StepChunk, offset, data
		return p, true
	case *WorkspaceWritePayload:
		p.Step, p.Offset, p.Data = StepChunk, offset, data
		return p, true
	case *WorkspaceExportResultPayload:
		p.Outcome, p.Offset, p.Data = OutcomeChunk, offset, data
		return p, true
	}
	return nil, false
}

// decodeBulkEnvelope splits a canonical bulk frame, {"type":T,"id":I,"payload":P}, with T a bulk
// type, I a plain string and P a canonical bulk payload. The payload is copied: an envelope never
// aliases the frame's buffer.
func decodeBulkEnvelope(data []byte) (Envelope, bool) {
	env, ok := splitBulkEnvelope(data, true)
	env.Payload = bytes.Clone(env.Payload)
	return env, ok
}

// ParseBulkFrame is ParseFrame for a canonical chunk frame, with one pass over its data: the
// envelope is split without checking the base64 text, since decoding the payload checks every
// byte of it (an 87 KB scan saved on every chunk a Runtime receives). ok is false for anything
// else, a chunk frame ParseFrame would refuse included: ParseFrame gives the verdict and its error.
// Unlike ParseFrame's, the Frame's Envelope.Payload aliases data (the decoded payload does not):
// a caller that reuses data and keeps the raw payload must copy it.
func ParseBulkFrame(data []byte) (*Frame, bool) {
	return ParseBulkFrameInto(data, nil)
}

// ParseBulkFrameInto is ParseBulkFrame decoding the chunk's data into buf when it has the
// capacity (else into a new buffer): a receiver that hands buffers back once it is done with a
// chunk's bytes allocates none per chunk. The caller owns buf until the Frame's data is no longer
// read.
func ParseBulkFrameInto(data, buf []byte) (*Frame, bool) {
	if len(data) > MaxFrameBytes {
		return nil, false
	}
	env, ok := splitBulkEnvelope(data, false)
	if !ok {
		return nil, false
	}
	spec, _ := Lookup(env.Type)
	if spec.MaxPayloadBytes > 0 && len(env.Payload) > spec.MaxPayloadBytes {
		return nil, false
	}
	payload, fast := decodeBulkPayloadInto(spec, env.Payload, buf)
	if !fast {
		return nil, false // the general decoder would read an unchecked envelope: leave it to ParseFrame
	}
	f, err := spec.frame(env, payload)
	return f, err == nil
}

// splitBulkEnvelope is decodeBulkEnvelope, checking the payload's base64 text or not, and with a
// payload that aliases data.
func splitBulkEnvelope(data []byte, checkText bool) (Envelope, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(`{"type":"`))
	if !ok {
		return Envelope{}, false
	}
	typ, rest, ok := plainString(rest)
	if !ok {
		return Envelope{}, false
	}
	form, has := bulkFormOf(typ)
	if !has {
		return Envelope{}, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"id":"`)); !ok {
		return Envelope{}, false
	}
	id, rest, ok := plainString(rest)
	if !ok || id == "" {
		return Envelope{}, false // encoding/json omits an empty id
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"payload":`)); !ok {
		return Envelope{}, false
	}
	payload, ok := bytes.CutSuffix(rest, []byte("}"))
	if !ok {
		return Envelope{}, false
	}
	if checkText {
		if _, _, ok = form.scan(payload); !ok {
			return Envelope{}, false
		}
	} else if _, _, ok = form.split(payload); !ok {
		return Envelope{}, false
	}
	return Envelope{Type: typ, ID: id, Payload: payload}, true
}

// plainString reads a JSON string of printable ASCII without escapes, up to its closing quote.
func plainString(b []byte) (s string, rest []byte, ok bool) {
	end := bytes.IndexByte(b, '"')
	if end < 0 {
		return "", nil, false
	}
	for _, c := range b[:end] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return "", nil, false
		}
	}
	return string(b[:end]), b[end+1:], true
}

// encodeBulkPayload writes a chunk payload as encoding/json would, or reports ok false for any
// other payload: json.Marshal goes through reflection and a growing buffer for the 87 KB string.
func encodeBulkPayload(payload any) ([]byte, bool) {
	form, offset, data, ok := bulkPayloadOf(payload)
	if !ok {
		return nil, false
	}
	return form.appendPayload(make([]byte, 0, form.payloadLen(data)), offset, data), true
}

// bulkPayloadOf splits a chunk payload the fast encoders take into its form, offset and data; ok
// is false for any other payload.
func bulkPayloadOf(payload any) (form bulkForm, offset int64, data []byte, ok bool) {
	switch p := payload.(type) {
	case *RuntimePreparePayload:
		if p.Step != StepChunk || p.EnvironmentID != "" || p.SessionID != "" || p.Action != "" || p.Slot != 0 ||
			p.Skill != nil || p.Plugin != nil || p.File != nil || p.Initialization != nil || p.Sources != nil ||
			p.SizeBytes != 0 || p.SHA256 != "" {
			return bulkForm{}, 0, nil, false
		}
		form, offset, data = stepChunk, p.Offset, p.Data
	case *WorkspaceWritePayload:
		if p.Step != StepChunk || p.EnvironmentID != "" || p.SessionID != "" || p.Path != "" || p.SizeBytes != 0 || p.SHA256 != "" {
			return bulkForm{}, 0, nil, false
		}
		form, offset, data = stepChunk, p.Offset, p.Data
	case *WorkspaceExportResultPayload:
		if p.Outcome != OutcomeChunk || p.ErrorCode != "" {
			return bulkForm{}, 0, nil, false
		}
		form, offset, data = exportChunk, p.Offset, p.Data
	default:
		return bulkForm{}, 0, nil, false
	}
	if len(data) == 0 || offset < 0 {
		return bulkForm{}, 0, nil, false
	}
	return form, offset, data, true
}

// payloadLen bounds the length of a payload of this form carrying data.
func (f bulkForm) payloadLen(data []byte) int {
	return len(f.head) + 40 + base64.StdEncoding.EncodedLen(len(data))
}

// appendPayload appends the canonical payload of this form to b.
func (f bulkForm) appendPayload(b []byte, offset int64, data []byte) []byte {
	b = append(b, f.head...)
	if offset != 0 || !f.omittable {
		b = strconv.AppendInt(append(b, `,"offset":`...), offset, 10)
	}
	b = append(b, `,"data":"`...)
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, `"}`...)
}

// EncodeFrame is NewEnvelope, the trace set, then Encode: the envelope and the frame it is sent
// as. A chunk frame without a trace is written in one pass into one buffer, and the envelope's
// payload is that frame's own bytes; NewEnvelope then Encode would write the 87 KB payload, then
// check its base64 text again and copy it into the frame.
func EncodeFrame(typ, id, trace string, payload any) (Envelope, []byte, error) {
	if trace == "" {
		if env, raw, ok := encodeBulkFrame(typ, id, payload); ok {
			return env, raw, nil
		}
	}
	env, err := NewEnvelope(typ, id, payload)
	if err != nil {
		return Envelope{}, nil, err
	}
	env.Trace = trace
	raw, err := env.Encode()
	if err != nil {
		return Envelope{}, nil, err
	}
	return env, raw, nil
}

// encodeBulkFrame writes a chunk frame as encodeBulkEnvelope writes the envelope encodeBulkPayload
// makes of payload, or reports ok false where either would.
func encodeBulkFrame(typ, id string, payload any) (Envelope, []byte, bool) {
	form, ok := bulkFormOf(typ)
	if !ok || id == "" || !verbatimString(id) {
		return Envelope{}, nil, false
	}
	pform, offset, data, ok := bulkPayloadOf(payload)
	if !ok || pform != form {
		return Envelope{}, nil, false
	}
	b := make([]byte, 0, len(typ)+len(id)+32+form.payloadLen(data))
	b = append(append(append(b, `{"type":"`...), typ...), `","id":"`...)
	b = append(append(b, id...), `","payload":`...)
	start := len(b)
	b = form.appendPayload(b, offset, data)
	end := len(b)
	b = append(b, '}')
	return Envelope{Type: typ, ID: id, Payload: b[start:end:end]}, b, true
}

// encodeBulkEnvelope writes a chunk frame as encoding/json would, or reports ok false: Encode
// would otherwise validate and compact the 87 KB payload again (json.RawMessage's marshalling).
func encodeBulkEnvelope(e Envelope) ([]byte, bool) {
	form, ok := bulkFormOf(e.Type)
	if !ok || e.Trace != "" || e.ID == "" || !verbatimString(e.ID) {
		return nil, false
	}
	if _, _, ok := form.scan(e.Payload); !ok {
		return nil, false
	}
	b := make([]byte, 0, len(e.Type)+len(e.ID)+len(e.Payload)+32)
	b = append(append(append(b, `{"type":"`...), e.Type...), `","id":"`...)
	b = append(append(append(b, e.ID...), `","payload":`...), e.Payload...)
	return append(b, '}'), true
}

// verbatimString: encoding/json writes s between quotes unchanged (printable ASCII, nothing it
// escapes, HTML's <, > and & included).
func verbatimString(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
