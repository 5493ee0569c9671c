package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
)

// PadPayload returns an encoded JSON object or array padded to exactly n bytes with spaces right
// after its opening bracket. JSON whitespace between tokens is insignificant (RFC 8259 §2), so the
// padded text decodes to the same value; it only makes the payload as sent, which is what a
// receiver's payload bound measures (docs/spec-readings.md, payload-bytes-as-sent), as long as n
// says. A scalar cannot be padded inside itself (whitespace around it is not part of the value),
// and a payload already longer than n cannot be shortened: both are errors.
func PadPayload(payload []byte, n int) ([]byte, error) {
	if len(payload) == 0 || (payload[0] != '{' && payload[0] != '[') {
		return nil, fmt.Errorf("pad_payload_to pads a payload that is a JSON object or array")
	}
	if len(payload) > n {
		return nil, fmt.Errorf("pad_payload_to %d: the payload is already %d bytes", n, len(payload))
	}
	out := make([]byte, 0, n)
	out = append(out, payload[0])
	out = append(out, bytes.Repeat([]byte{' '}, n-len(payload))...)
	return append(out, payload[1:]...), nil
}

// marshalPadded encodes an envelope whose payload is padded to n bytes. json.Marshal compacts
// whatever a json.RawMessage holds, so the padded payload is spliced in after the rest of the
// envelope is encoded.
func marshalPadded(env map[string]any, n int) ([]byte, error) {
	payload, ok := env["payload"]
	if !ok {
		return nil, fmt.Errorf("pad_payload_to needs a payload to pad")
	}
	enc, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	padded, err := PadPayload(enc, n)
	if err != nil {
		return nil, err
	}
	rest := maps.Clone(env)
	delete(rest, "payload")
	head, err := json.Marshal(rest) // never empty: type is always there
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(`,"payload":`)+len(padded))
	out = append(out, head[:len(head)-1]...)
	out = append(out, `,"payload":`...)
	out = append(out, padded...)
	return append(out, '}'), nil
}
