package scenarios

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
)

// CheckFrame validates a frame template at load time: it is resolved with sample values and must
// pass proto validation, or, when it declares `invalid`, fail with that error.
func CheckFrame(ft *FrameTemplate, vars map[string]Value) error {
	raw, err := ResolveFrame(ft, BindingsWith(vars), "lint")
	if err != nil || ft.Raw == nil { // ResolveFrame judged what it rendered
		return err
	}
	_, perr := proto.ParseFrame(raw)
	return checkInvalid(ft, perr)
}

func checkInvalid(ft *FrameTemplate, perr error) error {
	switch {
	case ft.Invalid == "" && perr != nil:
		return fmt.Errorf("frame breaks a wire rule: %v (declare `invalid:` if that is the point)", perr)
	case ft.Invalid != "" && perr == nil:
		return fmt.Errorf("frame declares invalid %q but proto accepts it", ft.Invalid)
	case ft.Invalid != "" && !strings.Contains(perr.Error(), ft.Invalid):
		return fmt.Errorf("frame declares invalid %q but proto says %q", ft.Invalid, perr.Error())
	}
	return nil
}

// ResolveFrame renders a frame for a scripted writer. Unbound placeholders are generated: first as
// their own name ("${executor}" → "executor", numbers 1800000000000), which reads well in
// transcripts; if that breaks a wire rule (a UUID is required), as UUIDs derived from seed and name.
func ResolveFrame(ft *FrameTemplate, b *Bindings, seed string) ([]byte, error) {
	if ft.Raw != nil {
		return []byte(*ft.Raw), nil
	}
	var lastErr error
	for _, gen := range []Generator{readableValue, uuidValue(seed)} {
		trial := b.clone()
		raw, err := renderFrame(ft, trial, gen)
		if err != nil {
			return nil, err
		}
		_, perr := proto.ParseFrame(raw)
		if lastErr = checkInvalid(ft, perr); lastErr == nil {
			lastErr = validUnpadded(ft, trial)
		}
		if lastErr == nil {
			*b = *trial
			return raw, nil
		}
	}
	return nil, lastErr
}

// validUnpadded: a padded frame declared invalid must be valid without its padding, so that what
// it breaks is the payload bound alone (and its generated values are ones a valid frame takes:
// proto reports the bound before any member rule).
func validUnpadded(ft *FrameTemplate, b *Bindings) error {
	if ft.PadPayloadTo == 0 || ft.Invalid == "" {
		return nil
	}
	plain := *ft
	plain.PadPayloadTo = 0
	raw, err := renderFrame(&plain, b.clone(), readableValue) // its placeholders are bound by now
	if err != nil {
		return err
	}
	if _, perr := proto.ParseFrame(raw); perr != nil {
		return fmt.Errorf("a padded frame declared invalid must be valid unpadded (the padding is what it breaks): %v", perr)
	}
	return nil
}

func renderFrame(ft *FrameTemplate, b *Bindings, gen Generator) ([]byte, error) {
	env := map[string]any{"type": ft.Type}
	if ft.ID != nil {
		id, err := b.Resolve(ft.ID, gen, func(string) string { return "string" })
		if err != nil {
			return nil, fmt.Errorf("id: %w", err)
		}
		env["id"] = id
	}
	if ft.Payload != nil {
		var pt reflect.Type
		if spec, ok := proto.Lookup(ft.Type); ok {
			pt = spec.PayloadType()
		}
		payload, err := b.Resolve(ft.Payload, gen, func(path string) string { return kindAt(pt, path) })
		if err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		env["payload"] = payload
	}
	if m, ok := ft.Trace.(*Matcher); ft.Trace != nil && !(ok && m.Absent) { // $absent: none is sent
		trace, err := b.Resolve(ft.Trace, gen, func(string) string { return "string" })
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		env["trace"] = trace
	}
	if ft.PadPayloadTo > 0 {
		return marshalPadded(env, ft.PadPayloadTo)
	}
	return json.Marshal(env)
}

func readableValue(name, kind string) Value {
	switch kind {
	case "int", "int64", "uint64":
		return json.Number("1800000000000")
	case "int8", "int16", "int32", "uint", "uint8", "uint16", "uint32":
		return json.Number("1")
	case "bool":
		return true
	case "float32", "float64":
		return json.Number("1")
	}
	return name
}

func uuidValue(seed string) Generator {
	return func(name, kind string) Value {
		if kind != "string" {
			return readableValue(name, kind)
		}
		return DerivedUUID(seed, name)
	}
}

// DerivedUUID returns a canonical version-4-shaped UUID derived from seed and name, so a run is
// reproducible from its seed.
func DerivedUUID(seed, name string) string {
	h := sha256.Sum256([]byte(seed + "\x00" + name))
	h[6] = h[6]&0x0f | 0x40
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// kindAt returns the Go kind of the member at a dotted payload path ("configuration.run_id",
// "input[0].content"), or "string" when it cannot tell.
func kindAt(t reflect.Type, path string) string {
	if t == nil {
		return "string"
	}
	for _, seg := range splitPath(path) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case seg == "[]":
			if t.Kind() != reflect.Slice {
				return "string"
			}
			t = t.Elem()
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Struct:
			f, ok := fieldByJSON(t, seg)
			if !ok {
				return "string"
			}
			t = f
		default:
			return "string"
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind().String()
}

func splitPath(path string) []string {
	var out []string
	for _, part := range strings.Split(path, ".") {
		if part == "" {
			continue
		}
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			out = append(out, name)
		}
		for rest != "" {
			out = append(out, "[]")
			_, rest, _ = strings.Cut(rest, "[")
		}
	}
	return out
}

func fieldByJSON(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			if ft, ok := fieldByJSON(f.Type, name); ok {
				return ft, true
			}
			continue
		}
		if n, _, _ := strings.Cut(tag, ","); n == name {
			return f.Type, true
		}
	}
	return nil, false
}

// FrameMismatch explains why a received frame is not the one a step expects.
type FrameMismatch struct {
	Reason   string // one line: the path and what differs, or the wire rule the frame breaks
	Expected any    // the template rendered with the bindings in force
	Actual   any    // the frame as received (generic JSON), nil for undecodable bytes
}

func (m *FrameMismatch) Error() string { return m.Reason }

// MatchFrame checks a received frame against a frame step sent by from, binding placeholders on a
// match. It returns the decoded frame (nil for a frame that was invalid on purpose).
func MatchFrame(ft *FrameTemplate, from proto.Peer, raw []byte, b *Bindings) (*proto.Frame, *FrameMismatch) {
	actual, jerr := DecodeJSON(raw)
	expected := ft.expectedView(b)
	fail := func(reason string) *FrameMismatch {
		m := &FrameMismatch{Reason: reason, Expected: expected, Actual: actual}
		if jerr != nil {
			m.Actual = string(raw)
		}
		m.Expected, m.Actual = display(m.Expected), display(m.Actual)
		return m
	}
	frame, perr := proto.ParseFrame(raw)
	if ft.Invalid != "" || ft.Raw != nil {
		if err := checkInvalid(ft, perr); err != nil {
			return nil, fail(err.Error())
		}
		if ft.Raw == nil {
			if env, ok := actual.(map[string]any); ok && env["type"] != ft.Type {
				return nil, fail(fmt.Sprintf("type: want %q, got %v", ft.Type, env["type"]))
			}
		}
		return nil, nil
	}
	if perr != nil {
		return nil, fail("the frame breaks a wire rule: " + perr.Error())
	}
	if frame.Type != ft.Type {
		return nil, fail(fmt.Sprintf("type: want %s, got %s", ft.Type, frame.Type))
	}
	if frame.Spec.From != from {
		return nil, fail(fmt.Sprintf("%s is a %s frame, not %s", frame.Type, frame.Spec.From, from))
	}
	env, _ := actual.(map[string]any)
	tmpl := map[string]Value{"type": ft.Type}
	got := map[string]any{"type": env["type"]}
	if ft.ID != nil {
		tmpl["id"] = ft.ID
	}
	// An id that carries no meaning for the type (device_shutdown: facts §2.2 "not used", and any
	// value is tolerated) is compared only when the template writes one (docs/spec-readings.md,
	// unused-envelope-id).
	if id, ok := env["id"]; ok && (ft.ID != nil || frame.Spec.ID != proto.IDUnused) {
		got["id"] = id
	}
	if ft.Payload != nil {
		tmpl["payload"] = ft.Payload
	}
	if ft.Trace != nil {
		tmpl["trace"] = ft.Trace
		if t, ok := env["trace"]; ok {
			got["trace"] = t
		}
	}
	decoded := maps.Clone(got)
	if p, ok := env["payload"]; ok && p != nil {
		got["payload"] = p
		decoded["payload"] = asDecoded(frame, p)
	}
	mm := b.Match(tmpl, got)
	if mm == nil {
		return frame, nil
	}
	reason := mm.Error()
	if !jsonEqual(decoded["payload"], got["payload"]) {
		dm := b.Match(tmpl, decoded)
		if dm == nil {
			return frame, nil
		}
		reason = fmt.Sprintf("%s (as its receiver decodes the payload; as sent: %s)", dm, mm)
	}
	m := fail(reason)
	m.Actual = display(got)
	return nil, m
}

// asDecoded returns a payload as its receiver reads it: the payload proto decoded, encoded again.
// A frame matches its template as sent or as decoded, so a template fails only on what the
// receiver would see differently. Decoding drops members the receiver ignores (facts §1.5: unknown
// heartbeat members; §2.1: only requests, tool_call and capability objects are strict) and optional
// members at their zero value (absent and zero decode alike), and normalises engine failure codes
// (§6.1).
func asDecoded(frame *proto.Frame, raw any) any {
	if frame.Payload == nil {
		return raw
	}
	enc, err := json.Marshal(frame.Payload)
	if err != nil {
		return raw
	}
	v, err := DecodeJSON(enc)
	if err != nil {
		return raw
	}
	return v
}

func (ft *FrameTemplate) expectedView(b *Bindings) any {
	if ft.Raw != nil {
		return *ft.Raw
	}
	v := map[string]any{"type": ft.Type}
	if ft.ID != nil {
		v["id"] = b.Expected(ft.ID)
	}
	if ft.Payload != nil {
		v["payload"] = b.Expected(ft.Payload)
	}
	if ft.Trace != nil {
		v["trace"] = b.Expected(ft.Trace)
	}
	return v
}

// display converts JSON numbers to int64 or float64 so diffs read as plain numbers.
func display(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil {
			return f
		}
		return string(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = display(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = display(e)
		}
		return out
	}
	return v
}
