package proto

import (
	"bytes"
	"encoding/json"
)

// Envelope is one data frame: a WebSocket text message holding one JSON object.
//
// ID is omitted when empty and means something different per type (see the registry). Payload is
// omitted when the type has no body; an absent payload decodes as all zero values. Trace is a W3C
// traceparent for diagnostics only: a missing, malformed or wrongly typed trace is never a reason to
// reject a frame and is never a request ID.
type Envelope struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Trace   string          `json:"trace,omitempty"`
}

// UnmarshalJSON decodes an envelope leniently about trace and strictly about the rest: type must be a
// non-empty string, id a string, payload an object (or absent/null).
func (e *Envelope) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bulk, ok := decodeBulkEnvelope(data); ok { // a transfer's chunk: bulk.go
		*e = bulk
		return nil
	}
	return e.unmarshalGeneral(data)
}

// unmarshalGeneral is UnmarshalJSON for any frame (data already trimmed).
func (e *Envelope) unmarshalGeneral(data []byte) error {
	// Members are matched by exact name: encoding/json would fold "Payload" or "TYPE" onto the
	// struct fields, and JSON member names are case-sensitive on this wire.
	var members map[string]json.RawMessage
	if len(data) == 0 || data[0] != '{' {
		return &RuleError{Type: "envelope", Rule: "must be a JSON object"}
	}
	if err := json.Unmarshal(data, &members); err != nil {
		return &RuleError{Type: "envelope", Rule: "malformed JSON: " + err.Error()}
	}
	raw := struct{ Type, ID, Payload, Trace json.RawMessage }{
		members["type"], members["id"], members["payload"], members["trace"]}
	*e = Envelope{}
	if raw.Type == nil {
		return &RuleError{Type: "envelope", Path: "type", Rule: "is required"}
	}
	if err := json.Unmarshal(raw.Type, &e.Type); err != nil || !isString(raw.Type) {
		return &RuleError{Type: "envelope", Path: "type", Rule: "must be a JSON string"}
	}
	if e.Type == "" {
		return &RuleError{Type: "envelope", Path: "type", Rule: "must not be empty"}
	}
	if raw.ID != nil && !isNull(raw.ID) {
		if err := json.Unmarshal(raw.ID, &e.ID); err != nil || !isString(raw.ID) {
			return &RuleError{Type: e.Type, Path: "id", Rule: "must be a JSON string"}
		}
	}
	if raw.Payload != nil && !isNull(raw.Payload) {
		if raw.Payload[0] != '{' {
			return &RuleError{Type: e.Type, Path: "payload", Rule: "must be a JSON object"}
		}
		e.Payload = raw.Payload
	}
	if raw.Trace != nil && isString(raw.Trace) {
		_ = json.Unmarshal(raw.Trace, &e.Trace) // a trace that does not decode is simply absent
	}
	return nil
}

// DecodeEnvelope parses one frame's bytes into an envelope.
func DecodeEnvelope(data []byte) (Envelope, error) {
	var e Envelope
	err := e.UnmarshalJSON(data)
	return e, err
}

// Encode renders the envelope as one frame.
func (e Envelope) Encode() ([]byte, error) {
	if b, ok := encodeBulkEnvelope(e); ok { // a transfer's chunk: bulk.go
		return b, nil
	}
	return json.Marshal(e)
}

// NewEnvelope builds an envelope for typ, encoding payload. A nil payload (or a bodyless type)
// yields an envelope without a payload member.
func NewEnvelope(typ, id string, payload any) (Envelope, error) {
	e := Envelope{Type: typ, ID: id}
	if payload == nil {
		return e, nil
	}
	if raw, ok := encodeBulkPayload(payload); ok { // a transfer's chunk: bulk.go
		e.Payload = raw
		return e, nil
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, ofType(typ, err)
	}
	if !bytes.Equal(raw, []byte("null")) {
		e.Payload = raw
	}
	return e, nil
}

// MustEnvelope is NewEnvelope for payloads known to encode (tests, fixtures, the reference sides'
// own well-formed replies); it panics otherwise.
func MustEnvelope(typ, id string, payload any) Envelope {
	e, err := NewEnvelope(typ, id, payload)
	if err != nil {
		panic(err)
	}
	return e
}
