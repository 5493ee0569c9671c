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
	err := checkShape("", raw, t, strict)
	if err == errFoldedMember {
		// A lenient payload carries an unknown member whose name differs from a known one only in
		// case. encoding/json would fold it onto the known member (overriding its value, or failing
		// on its type), so drop the unknown members and check again.
		if raw, err = pruneUnknown(raw, t); err == nil {
			err = checkShape("", raw, t, strict)
		}
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonError(err)
	}
	return nil
}

func checkShape(path string, raw []byte, t reflect.Type, strict bool) error {
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
		return checkObject(path, raw, t, strict)
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
			if err := checkShape(p, item, t.Elem(), strict); err != nil {
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
		// In key order, so that a map with several bad values always names the same one.
		for _, k := range slices.Sorted(maps.Keys(entries)) {
			item := entries[k]
			p := joinPath(path, k)
			if isNull(item) && t.Elem().Kind() != reflect.Interface {
				return violation(p, "must not be null")
			}
			if err := checkShape(p, item, t.Elem(), strict); err != nil {
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
		// Range here, not in encoding/json: its error loses the array indices of the path.
		var err error
		if t.Kind() >= reflect.Uint {
			_, err = strconv.ParseUint(string(raw), 10, t.Bits())
		} else {
			_, err = strconv.ParseInt(string(raw), 10, t.Bits())
		}
		if err != nil {
			return violation(path, "must be a JSON %s (got number %s)", jsonKind(t), truncate(string(raw), 32))
		}
	case reflect.Float32, reflect.Float64:
		if !isNumber(raw) {
			return violation(path, "must be a JSON number")
		}
		if _, err := strconv.ParseFloat(string(raw), t.Bits()); err != nil {
			return violation(path, "must be a JSON number in range (got number %s)", truncate(string(raw), 32))
		}
	}
	return nil
}

func checkObject(path string, raw []byte, t reflect.Type, strict bool) error {
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
	unknown := ""
	for name := range members {
		if _, ok := s.byName[name]; !ok {
			if !strict && s.folds(name) {
				return errFoldedMember
			}
			if strict && (unknown == "" || name < unknown) {
				unknown = name // the first in byte order, so the error does not depend on map order
			}
		}
	}
	if unknown != "" {
		return violation(joinPath(path, unknown), "unknown member")
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
		if err := checkShape(p, v, m.typ, strict); err != nil {
			return err
		}
	}
	return nil
}

// errFoldedMember reports an unknown member of a lenient object whose name case-folds onto a known
// member; decodeShaped removes such members before decoding.
var errFoldedMember = errors.New("proto: unknown member folds onto a known one")

// folds reports whether an unknown name equals a known member's name but for case.
func (s *shape) folds(name string) bool {
	for i := range s.members {
		if strings.EqualFold(s.members[i].name, name) {
			return true
		}
	}
	return false
}

// pruneUnknown rewrites raw without the members of its objects (at any depth) that t does not
// know. Only lenient payloads that checkShape flagged take this path; raw has the JSON shape of t
// wherever it matters, and a value that does not is left for checkShape to report.
func pruneUnknown(raw []byte, t reflect.Type) ([]byte, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if len(raw) == 0 || reflect.PointerTo(t).Implements(selfShapedType) || t == rawMessageType || t == byteSliceType {
		return raw, nil
	}
	switch t.Kind() {
	case reflect.Struct:
		s := shapeOf(t)
		var members map[string]json.RawMessage
		if raw[0] != '{' || s.err != nil || json.Unmarshal(raw, &members) != nil {
			return raw, nil
		}
		for name, v := range members {
			i, ok := s.byName[name]
			if !ok {
				delete(members, name)
				continue
			}
			if s.members[i].anyValue {
				continue
			}
			pv, err := pruneUnknown(v, s.members[i].typ)
			if err != nil {
				return nil, err
			}
			members[name] = pv
		}
		return json.Marshal(members)
	case reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Slice && raw[0] == '[' {
			var items []json.RawMessage
			if json.Unmarshal(raw, &items) != nil {
				return raw, nil
			}
			for i := range items {
				pv, err := pruneUnknown(items[i], t.Elem())
				if err != nil {
					return nil, err
				}
				items[i] = pv
			}
			return json.Marshal(items)
		}
		if t.Kind() == reflect.Map && raw[0] == '{' {
			var entries map[string]json.RawMessage
			if json.Unmarshal(raw, &entries) != nil {
				return raw, nil
			}
			for k, v := range entries {
				pv, err := pruneUnknown(v, t.Elem())
				if err != nil {
					return nil, err
				}
				entries[k] = pv
			}
			return json.Marshal(entries)
		}
	}
	return raw, nil
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
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
		default:
			return false
		}
		n++
	}
	return n%4 == 0 && pad <= 2
}
