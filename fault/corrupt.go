package fault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/wirecheck/wirecheck/proto"
)

// corrupt returns the corrupted frame and what was done to it. It never modifies data.
func corrupt(kind Corruption, data []byte) ([]byte, string) {
	switch kind {
	case InvalidJSON:
		return invalidJSON(data)
	case Oversize:
		return oversize(data)
	case InvalidFrame:
		return invalidFrame(data)
	}
	return data, "unknown corruption; left as is"
}

// invalidJSON removes the closing brace of the object, which no JSON parser accepts; a frame
// that is not an object gets an opening brace in front instead.
func invalidJSON(data []byte) ([]byte, string) {
	trimmed := bytes.TrimRight(data, " \t\r\n")
	if len(trimmed) > 1 && trimmed[len(trimmed)-1] == '}' {
		out := bytes.Clone(trimmed[:len(trimmed)-1])
		return out, fmt.Sprintf("closing brace removed (%d bytes)", len(out))
	}
	out := append([]byte("{"), data...)
	return out, fmt.Sprintf("opening brace added (%d bytes)", len(out))
}

const paddingMember = "wirecheck_padding"

// oversize pads the frame to exactly proto.MaxFrameBytes+1 bytes: an object gets an extra
// envelope member (which every envelope decoder ignores), anything else trailing spaces.
func oversize(data []byte) ([]byte, string) {
	target := proto.MaxFrameBytes + 1
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) >= 2 && trimmed[0] == '{' && trimmed[len(trimmed)-1] == '}' {
		rest := trimmed[1:]
		head := `{"` + paddingMember + `":"`
		tail := `"`
		if len(bytes.TrimSpace(rest)) > 1 { // members follow
			tail += ","
		} else {
			rest = []byte("}")
		}
		pad := target - len(head) - len(tail) - len(rest)
		if pad >= 0 {
			out := make([]byte, 0, target)
			out = append(out, head...)
			out = append(out, bytes.Repeat([]byte("x"), pad)...)
			out = append(out, tail...)
			out = append(out, rest...)
			return out, fmt.Sprintf("padded with an extra envelope member to %d bytes (limit %d)", len(out), proto.MaxFrameBytes)
		}
	}
	out := bytes.Clone(data)
	if len(out) < target {
		out = append(out, bytes.Repeat([]byte(" "), target-len(out))...)
	}
	return out, fmt.Sprintf("padded with spaces to %d bytes (limit %d)", len(out), proto.MaxFrameBytes)
}

// invalidFrame turns a valid frame into a well-formed envelope that proto.ParseFrame rejects:
// it removes the first payload member whose absence breaks a rule, else breaks the id rule, else
// makes the type unknown. The first mutation that fails validation wins, so the result is
// deterministic.
func invalidFrame(data []byte) ([]byte, string) {
	if _, err := proto.DecodeEnvelope(data); err != nil {
		return data, "not an envelope; left as is"
	}
	if _, err := proto.ParseFrame(data); err != nil {
		return data, "already fails validation; left as is"
	}
	env, ok := splitObject(data)
	if !ok {
		return data, "not a plain JSON object; left as is"
	}
	try := func(members []member) ([]byte, error) {
		out := joinObject(members)
		if _, err := proto.DecodeEnvelope(out); err != nil {
			return nil, nil
		}
		_, err := proto.ParseFrame(out)
		return out, err
	}
	// 1. A required payload member.
	if i := env.index("payload"); i >= 0 {
		if payload, ok := splitObject(env[i].raw); ok {
			for j := range payload {
				pruned := append(append([]member(nil), payload[:j]...), payload[j+1:]...)
				mutated := env.with("payload", joinObject(pruned))
				if out, err := try(mutated); out != nil && err != nil {
					return out, fmt.Sprintf("payload.%s removed: %v", payload[j].key, err)
				}
			}
		}
	}
	// 2. The id rule.
	typ := ""
	if i := env.index("type"); i >= 0 {
		_ = json.Unmarshal(env[i].raw, &typ)
	}
	if spec, ok := proto.Lookup(typ); ok {
		var mutated []member
		what := ""
		if spec.ID == proto.IDAbsent {
			mutated, what = env.with("id", []byte(`"wirecheck-corrupt"`)), "id added"
		} else {
			mutated, what = env.without("id"), "id removed"
		}
		if out, err := try(mutated); out != nil && err != nil {
			return out, fmt.Sprintf("%s: %v", what, err)
		}
	}
	// 3. An unknown type.
	out := joinObject(env.with("type", []byte(strconv.Quote(typ+"_corrupted"))))
	_, err := proto.ParseFrame(out)
	return out, fmt.Sprintf("type made unknown: %v", err)
}

// member is one member of a JSON object, in the order it appears.
type member struct {
	key string
	raw json.RawMessage
}

type members []member

// splitObject splits a JSON object into its members, keeping their order.
func splitObject(raw []byte) (members, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out members
	for dec.More() {
		kt, err := dec.Token()
		key, ok := kt.(string)
		if err != nil || !ok {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{key, v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	return out, true
}

func joinObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (ms members) index(key string) int {
	for i, m := range ms {
		if m.key == key {
			return i
		}
	}
	return -1
}

// with returns a copy with key set to raw (in place if present, else appended).
func (ms members) with(key string, raw []byte) members {
	out := append(members(nil), ms...)
	if i := out.index(key); i >= 0 {
		out[i].raw = raw
		return out
	}
	return append(out, member{key, raw})
}

func (ms members) without(key string) members {
	out := make(members, 0, len(ms))
	for _, m := range ms {
		if m.key != key {
			out = append(out, m)
		}
	}
	return out
}
