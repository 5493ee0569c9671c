package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The shape layer: every payload member carries a `wire` tag with its decision.
//
//	wire:"req"          the member must be present and must not be null
//	wire:"opt"          the member may be absent; null is rejected
//	wire:"req,null"     present, and null is a meaningful value (e.g. allowed_tools)
//	wire:"opt,null"     absent and null both mean "not set"
//	wire:"opt,any"      any JSON value is tolerated; the type normalizes it (engine failure codes)
//	wire:"opt,object"   a raw member that must be a JSON object
//
// A member without a tag has no decision: decoding it fails, and the reflective tests fail with it,
// so a new field cannot slip onto the wire unexamined.

type member struct {
	name     string
	index    []int
	typ      reflect.Type
	required bool
	nullable bool
	anyValue bool
	object   bool
	omit     bool // json omitempty
}

type shape struct {
	members []member
	byName  map[string]int
	err     error // a member without a decision
}

var shapes sync.Map // reflect.Type → *shape

// selfShaped is implemented by the few types that check their own JSON (capability declarations,
// input content): the walker hands them the raw value and prefixes the path of their error.
type selfShaped interface{ selfShaped() }

// SelfShaped reports whether values of t (or *t) check their own JSON instead of being described by
// `wire` tags: the capability declaration, a capability decision and an input content part. Tools
// that walk payload types by their tags (schema generators, reflective tests) stop at these types.
func SelfShaped(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return reflect.PointerTo(t).Implements(selfShapedType)
}

var (
	selfShapedType = reflect.TypeFor[selfShaped]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	byteSliceType  = reflect.TypeFor[[]byte]()
)

func shapeOf(t reflect.Type) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	s := &shape{byName: map[string]int{}}
	collectMembers(s, t, nil)
	actual, _ := shapes.LoadOrStore(t, s)
	return actual.(*shape)
}

func collectMembers(s *shape, t reflect.Type, index []int) {
	for i := range t.NumField() {
		f := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		jsonTag := f.Tag.Get("json")
		if f.Anonymous && jsonTag == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			collectMembers(s, ft, idx)
			continue
		}
		if !f.IsExported() || jsonTag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(jsonTag, ",")
		if name == "" {
			name = f.Name
		}
		m := member{name: name, index: idx, typ: f.Type, omit: strings.Contains(","+opts+",", ",omitempty,")}
		wire, ok := f.Tag.Lookup("wire")
		if !ok {
			s.err = fmt.Errorf("proto: %s.%s has no wire decision (add a `wire` tag)", t.Name(), f.Name)
		}
		for _, w := range strings.Split(wire, ",") {
			switch w {
			case "req":
				m.required = true
			case "opt":
			case "null":
				m.nullable = true
			case "any":
				m.anyValue = true
			case "object":
				m.object = true
			default:
				s.err = fmt.Errorf("proto: %s.%s has an unknown wire option %q", t.Name(), f.Name, w)
			}
		}
		s.byName[name] = len(s.members)
		s.members = append(s.members, m)
	}
}

// decodeShaped checks raw against the shape of v's type and then decodes it into v.
// An absent or null payload decodes as an empty object, as the envelope rules say.
func decodeShaped(raw []byte, v any, strict bool) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		raw = []byte("{}")
	}
	t := reflect.TypeOf(v).Elem()
	w := &walk{strict: strict}
	if err := checkShape("", raw, t, w); err != nil {
		return err
	}
	if w.folded {
		// An ignored member would otherwise reach encoding/json, which binds it to the known
		// member it matches case-insensitively, past every shape rule.
		raw = keepKnown(raw, t)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonError(err)
	}
	return nil
}

// walk is the state of one shape check.
type walk struct {
	strict bool // unknown members are rejected
	folded bool // a lenient object has an unknown member that matches a known one but for case
}

func checkShape(path string, raw []byte, t reflect.Type, w *walk) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(selfShapedType) {
		v := reflect.New(t).Interface().(json.Unmarshaler)
		return within(path, v.UnmarshalJSON(raw))
	}
	switch {
	case t == rawMessageType:
		return nil
	case t == byteSliceType:
		if !isString(raw) || !isBase64String(raw) {
			return violation(path, "must be a base64 string")
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkObject(path, raw, t, w)
	case reflect.Slice:
		if raw[0] != '[' {
			return violation(path, "must be a JSON array")
		}
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return violation(path, "must be a JSON array")
		}
		for i, item := range items {
			p := indexPath(path, i)
			if isNull(item) {
				return violation(p, "must not be null")
			}
			if err := checkShape(p, item, t.Elem(), w); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if raw[0] != '{' {
			return violation(path, "must be a JSON object")
		}
		var entries map[string]json.RawMessage
		if err := json.Unmarshal(raw, &entries); err != nil {
			return violation(path, "must be a JSON object")
		}
		for _, k := range slices.Sorted(maps.Keys(entries)) { // the first bad entry in name order
			item := entries[k]
			p := joinPath(path, k)
			if isNull(item) && t.Elem().Kind() != reflect.Interface {
				return violation(p, "must not be null")
			}
			if err := checkShape(p, item, t.Elem(), w); err != nil {
				return err
			}
		}
		return nil
	case reflect.String:
		if !isString(raw) {
			return violation(path, "must be a JSON string")
		}
	case reflect.Bool:
		if !bytes.Equal(raw, []byte("true")) && !bytes.Equal(raw, []byte("false")) {
			return violation(path, "must be a JSON boolean")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if !isNumber(raw) || bytes.ContainsAny(raw, ".eE") {
			return violation(path, "must be a JSON integer")
		}
		if t.Kind() >= reflect.Uint && raw[0] == '-' {
			return violation(path, "must not be negative")
		}
		// The range is checked here, where the path is known: encoding/json would report it with
		// the Go name of an embedded struct in the path (usage.Usage.input_tokens).
		var err error
		if t.Kind() >= reflect.Uint {
			_, err = strconv.ParseUint(string(raw), 10, t.Bits())
		} else {
			_, err = strconv.ParseInt(string(raw), 10, t.Bits())
		}
		if err != nil {
			return violation(path, "must be a JSON integer in range")
		}
	case reflect.Float32, reflect.Float64:
		if !isNumber(raw) {
			return violation(path, "must be a JSON number")
		}
		if _, err := strconv.ParseFloat(string(raw), t.Bits()); err != nil {
			return violation(path, "must be a JSON number in range")
		}
	}
	return nil
}

func checkObject(path string, raw []byte, t reflect.Type, w *walk) error {
	s := shapeOf(t)
	if s.err != nil {
		return violation(path, "%v", s.err)
	}
	if raw[0] != '{' {
		return violation(path, "must be a JSON object")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return violation(path, "must be a JSON object")
	}
	if w.strict {
		if name, ok := firstUnknown(members, func(name string) bool { _, ok := s.byName[name]; return ok }); ok {
			return violation(joinPath(path, name), "unknown member")
		}
	} else if !w.folded {
		w.folded = foldsOntoKnown(s, members)
	}
	for i := range s.members {
		m := &s.members[i]
		p := joinPath(path, m.name)
		v, ok := members[m.name]
		if !ok {
			if m.required {
				return violation(p, "is required")
			}
			continue
		}
		if m.anyValue {
			continue
		}
		if isNull(v) {
			if !m.nullable {
				return violation(p, "must not be null")
			}
			continue
		}
		if m.object && v[0] != '{' {
			return violation(p, "must be a JSON object")
		}
		if err := checkShape(p, v, m.typ, w); err != nil {
			return err
		}
	}
	return nil
}

// firstUnknown returns the first member name, in name order, that known does not accept, so
// that an error names the same member however the map iterates.
func firstUnknown(members map[string]json.RawMessage, known func(string) bool) (string, bool) {
	first, found := "", false
	for name := range members {
		if !known(name) && (!found || name < first) {
			first, found = name, true
		}
	}
	return first, found
}

// foldsOntoKnown reports whether an unknown member matches a known member's name but for case,
// the way encoding/json matches names.
func foldsOntoKnown(s *shape, members map[string]json.RawMessage) bool {
	for name := range members {
		if _, ok := s.byName[name]; ok {
			continue
		}
		for i := range s.members {
			if strings.EqualFold(name, s.members[i].name) {
				return true
			}
		}
	}
	return false
}

// keepKnown re-encodes raw keeping only the members the shape of t knows, at every depth, so that
// decoding sees exactly the members the shape layer checked. Raw JSON members and self-shaped
// types are kept as they are.
func keepKnown(raw []byte, t reflect.Type) []byte {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isNull(raw) || t == rawMessageType || t == byteSliceType || reflect.PointerTo(t).Implements(selfShapedType) {
		return raw
	}
	var out any
	switch t.Kind() {
	case reflect.Struct:
		var members map[string]json.RawMessage
		if json.Unmarshal(raw, &members) != nil {
			return raw
		}
		s := shapeOf(t)
		kept := make(map[string]json.RawMessage, len(members))
		for name, v := range members {
			if i, ok := s.byName[name]; ok {
				kept[name] = keepKnown(v, s.members[i].typ)
			}
		}
		out = kept
	case reflect.Slice:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return raw
		}
		for i := range items {
			items[i] = keepKnown(items[i], t.Elem())
		}
		out = items
	case reflect.Map:
		var entries map[string]json.RawMessage
		if json.Unmarshal(raw, &entries) != nil {
			return raw
		}
		for k, v := range entries {
			entries[k] = keepKnown(v, t.Elem())
		}
		out = entries
	default:
		return raw
	}
	b, err := json.Marshal(out)
	if err != nil {
		return raw
	}
	return b
}

// jsonError turns an encoding/json error into a RuleError with the member path it names.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return violation(te.Field, "must be a JSON %s (got %s)", jsonKind(te.Type), te.Value)
	}
	var re *RuleError
	if errors.As(err, &re) {
		return err
	}
	return violation("", "malformed JSON: %v", err)
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "integer in range"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "non-negative integer in range"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "object"
	}
}

func isNull(raw []byte) bool   { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }
func isString(raw []byte) bool { return len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' }
func isNumber(raw []byte) bool {
	return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
}

// isBase64String checks the alphabet and padding of a JSON string holding standard base64, without
// decoding it: encoding/json decodes it again, and a 64 KiB chunk should not pay twice.
func isBase64String(raw []byte) bool {
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') >= 0 {
		// JSON escapes are legal in any string: another language's encoder may send "\/" for "/"
		// or "\n" between lines, which encoding/json's base64 decoding accepts. Check the text.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		body = []byte(s)
	}
	n, pad := 0, 0
	for _, c := range body {
		switch {
		case c == '\r' || c == '\n':
			continue
		case c == '=':
			pad++
		case pad > 0:
			return false
		case base64Alphabet[c]:
		default:
			return false
		}
		n++
	}
	return n%4 == 0 && pad <= 2
}

// DecodeStrict decodes raw into v (a pointer to a struct whose members carry `wire` tags) with the
// shape layer in strict mode: member names match exactly, unknown members are rejected at any
// depth, required members must be present. Tools that embed wire types in their own documents
// (the contract Harness script) use it to be as strict as the wire. It applies no value rules.
func DecodeStrict(raw []byte, v any) error { return decodeShaped(raw, v, true) }
