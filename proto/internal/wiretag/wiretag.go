// Package wiretag reads the `wire` decisions of proto's payload types with reflect, independently
// of proto's own shape layer: the JSON Schema generator describes what it finds, and the reflective
// tests check that the shape layer does what the tags say.
//
// It imports only the standard library and proto.
package wiretag

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
)

// Decision is one member's wire decision.
type Decision struct {
	Required bool // req: must be present (and is always encoded)
	Nullable bool // null: JSON null is a meaningful value
	Any      bool // any: any JSON value is tolerated
	Object   bool // object: a raw member that must be a JSON object
}

// String renders the decision as its tag is written: req, opt, req,null, opt,any, opt,object.
func (d Decision) String() string {
	s := "opt"
	if d.Required {
		s = "req"
	}
	if d.Nullable {
		s += ",null"
	}
	if d.Any {
		s += ",any"
	}
	if d.Object {
		s += ",object"
	}
	return s
}

// Kind is the JSON shape of a Go type as the shape layer sees it.
type Kind int

const (
	String   Kind = iota // JSON string
	Boolean              // true or false
	Integer              // signed integer literal within the Go type's range
	Unsigned             // non-negative integer literal within the Go type's range
	Number               // any JSON number
	Array                // JSON array; null elements are rejected
	Map                  // JSON object of values of one type
	Object               // JSON object described by wire tags
	Base64               // JSON string holding standard base64 ([]byte)
	Raw                  // any JSON value (json.RawMessage)
	Self                 // checks its own JSON (proto.SelfShaped)
)

var kindNames = [...]string{"string", "boolean", "integer", "unsigned", "number", "array", "map", "object", "base64", "raw", "self"}

func (k Kind) String() string { return kindNames[k] }

var (
	rawMessageType = reflect.TypeFor[json.RawMessage]()
	byteSliceType  = reflect.TypeFor[[]byte]()
)

// Indirect strips pointers.
func Indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// KindOf returns the JSON shape of t (pointers stripped).
func KindOf(t reflect.Type) Kind {
	t = Indirect(t)
	switch {
	case proto.SelfShaped(t):
		return Self
	case t == rawMessageType:
		return Raw
	case t == byteSliceType:
		return Base64
	}
	switch t.Kind() {
	case reflect.String:
		return String
	case reflect.Bool:
		return Boolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Integer
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return Unsigned
	case reflect.Float32, reflect.Float64:
		return Number
	case reflect.Slice, reflect.Array:
		return Array
	case reflect.Map:
		return Map
	case reflect.Struct:
		return Object
	}
	panic(fmt.Sprintf("wiretag: %v has no JSON shape", t))
}

// Shape describes t for the golden list: "string", "integer(int32)", "array", "self(InputContent)".
func Shape(t reflect.Type) string {
	t = Indirect(t)
	switch k := KindOf(t); k {
	case Integer, Unsigned, Number:
		return fmt.Sprintf("%s(%s)", k, t.Kind())
	case Self:
		return fmt.Sprintf("self(%s)", t.Name())
	case Map:
		return fmt.Sprintf("map(%s)", Shape(t.Elem()))
	case Array:
		return fmt.Sprintf("array(%s)", Shape(t.Elem()))
	default:
		return k.String()
	}
}

// Member is one JSON member of a payload struct, embedded structs flattened.
type Member struct {
	Name      string       // JSON name
	Field     string       // Go field name
	Owner     reflect.Type // the struct that declares the field
	Type      reflect.Type // the field's type as declared
	Decision  Decision
	Tag       string // the raw wire tag
	HasTag    bool
	OmitEmpty bool
}

// Problem is a member whose decision is missing or malformed.
type Problem struct {
	Owner reflect.Type
	Field string
	What  string
}

func (p Problem) Error() string { return fmt.Sprintf("%s.%s: %s", p.Owner.Name(), p.Field, p.What) }

// Members lists the JSON members of struct type t in declaration order, flattening embedded
// structs without a json name as encoding/json does. Every member without a `wire` tag, with an
// unknown option, with neither or both of req/opt, or required yet omitempty is a Problem; the
// members are returned either way.
func Members(t reflect.Type) ([]Member, []Problem) {
	var out []Member
	var problems []Problem
	collect(Indirect(t), &out, &problems)
	return out, problems
}

func collect(t reflect.Type, out *[]Member, problems *[]Problem) {
	for i := range t.NumField() {
		f := t.Field(i)
		jsonTag := f.Tag.Get("json")
		if f.Anonymous && jsonTag == "" {
			collect(Indirect(f.Type), out, problems)
			continue
		}
		if !f.IsExported() || jsonTag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(jsonTag, ",")
		if name == "" {
			name = f.Name
		}
		m := Member{Name: name, Field: f.Name, Owner: t, Type: f.Type,
			OmitEmpty: strings.Contains(","+opts+",", ",omitempty,")}
		bad := func(format string, args ...any) {
			*problems = append(*problems, Problem{Owner: t, Field: f.Name, What: fmt.Sprintf(format, args...)})
		}
		m.Tag, m.HasTag = f.Tag.Lookup("wire")
		if !m.HasTag {
			bad("no wire decision (add a `wire` tag: req or opt, with null, any or object as needed)")
		} else {
			presence := 0
			for _, w := range strings.Split(m.Tag, ",") {
				switch w {
				case "req":
					m.Decision.Required = true
					presence++
				case "opt":
					presence++
				case "null":
					m.Decision.Nullable = true
				case "any":
					m.Decision.Any = true
				case "object":
					m.Decision.Object = true
				default:
					bad("unknown wire option %q", w)
				}
			}
			if presence != 1 {
				bad("wire tag %q must say exactly one of req and opt", m.Tag)
			}
			if m.Decision.Required && m.OmitEmpty {
				bad("is req but its json tag has omitempty: a required member must always be encoded")
			}
			if m.Decision.Object && KindOf(f.Type) != Raw {
				bad("wire option object applies to json.RawMessage members only")
			}
		}
		*out = append(*out, m)
	}
}

// Step is one segment of a member path: a member name, or an index when Name is "".
type Step struct {
	Name  string
	Index int
}

// Path is a member path inside a payload.
type Path []Step

// String renders the path as proto's errors do: a.b[0].c.
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.Name == "" {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Name)
	}
	return b.String()
}

// Child returns p extended by a member name.
func (p Path) Child(name string) Path { return append(append(Path(nil), p...), Step{Name: name}) }

// Elem returns p extended by an index.
func (p Path) Elem(i int) Path { return append(append(Path(nil), p...), Step{Index: i}) }

// Parent returns the path of the object that holds the last member of p.
func (p Path) Parent() Path { return p[:len(p)-1] }

// Node is one member reached by walking a payload type: its path (arrays through their first
// element), the member and its shape.
type Node struct {
	Path   Path
	Member Member
	Kind   Kind
	// Elem is the element type of an Array or Map member (pointers stripped), else nil.
	Elem reflect.Type
}

// Walk lists every member path of payload type t, depth first in declaration order: the members
// of nested objects, and of the first element of arrays of objects. Self-shaped types are leaves.
func Walk(t reflect.Type) ([]Node, error) {
	var nodes []Node
	var errs []error
	var walk func(prefix Path, t reflect.Type, depth int)
	walk = func(prefix Path, t reflect.Type, depth int) {
		if depth > 16 {
			errs = append(errs, fmt.Errorf("wiretag: %s nests too deep (a recursive type?)", prefix))
			return
		}
		members, problems := Members(t)
		for _, p := range problems {
			errs = append(errs, p)
		}
		for _, m := range members {
			n := Node{Path: prefix.Child(m.Name), Member: m, Kind: KindOf(m.Type)}
			if n.Kind == Array || n.Kind == Map {
				n.Elem = Indirect(Indirect(m.Type).Elem())
			}
			nodes = append(nodes, n)
			switch {
			case n.Kind == Object:
				walk(n.Path, Indirect(m.Type), depth+1)
			case n.Kind == Array && KindOf(n.Elem) == Object:
				walk(n.Path.Elem(0), n.Elem, depth+1)
			case n.Kind == Map && KindOf(n.Elem) == Object:
				errs = append(errs, fmt.Errorf("wiretag: %s is a map of objects, which the walker does not describe", n.Path))
			}
		}
	}
	walk(nil, Indirect(t), 0)
	return nodes, errors.Join(errs...)
}

// Body is an HTTP body type whose members carry wire tags like payloads do.
type Body struct {
	Name string // bootstrap_request, bootstrap_response, device_status_response, http_error
	Type reflect.Type
}

// Bodies lists the HTTP bodies of the bootstrap and device-status routes.
func Bodies() []Body {
	return []Body{
		{"bootstrap_request", reflect.TypeFor[proto.BootstrapRequest]()},
		{"bootstrap_response", reflect.TypeFor[proto.BootstrapResponse]()},
		{"device_status_response", reflect.TypeFor[proto.DeviceStatusResponse]()},
		{"http_error", reflect.TypeFor[proto.HTTPError]()},
	}
}
