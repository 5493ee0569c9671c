package wirefixtures

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/proto/internal/wiretag"
)

// Unknown is the member name the mutations add as an unknown sibling.
const Unknown = "x_wirecheck_unknown"

// Mutation is a fixture with one change to one member of its payload, and what proto's shape
// layer (MessageSpec.DecodePayload) must make of it. The change and the expectation are derived
// from the member's Go type and `wire` tag (and, for the self-shaped types, from their documented
// rules), never written per message.
type Mutation struct {
	Fixture Fixture         // the valid frame that was changed
	Path    string          // the member path the case is about, as proto's errors name it
	Case    string          // omitted, null, wrong-type, …
	Payload json.RawMessage // the changed payload
	// Err is the exact error DecodePayload must return, "<type>.<path>: <rule>"; "" means it must
	// accept the payload.
	Err string
	// Unchanged is set on accepted cases that add only unknown members: the decoded payload must
	// equal the decoded fixture.
	Unchanged bool
}

// Frame encodes the changed frame (the fixture's type and id, the changed payload).
func (m Mutation) Frame() []byte {
	f := m.Fixture
	f.Payload = m.Payload
	return f.Frame()
}

// Gap is a member that no fixture of its type exercises (or an array or map that no fixture
// fills, so its elements are never checked).
type Gap struct {
	Type string
	Path string
	What string
}

func (g Gap) String() string { return fmt.Sprintf("%s.%s: %s", g.Type, g.Path, g.What) }

// Mutations derives every case for every member path of every registered message type, each from
// the first fixture of the type that sets the member. gaps lists the members the fixtures miss.
func Mutations() (muts []Mutation, gaps []Gap, err error) {
	for _, spec := range proto.Specs() {
		fixtures := ForType(spec.Type)
		if len(fixtures) == 0 {
			gaps = append(gaps, Gap{spec.Type, "", "has no fixture"})
			continue
		}
		if spec.PayloadType() == nil {
			f := fixtures[0]
			muts = append(muts, Mutation{Fixture: f, Path: "payload", Case: "body", Payload: json.RawMessage(`{"` + Unknown + `":1}`),
				Err: spec.Type + ".payload: must be absent (this type has no body)"})
			continue
		}
		nodes, werr := wiretag.Walk(spec.PayloadType())
		if werr != nil {
			return nil, nil, fmt.Errorf("%s: %w", spec.Type, werr)
		}
		docs := make([]any, len(fixtures))
		for i, f := range fixtures {
			docs[i] = decode(f.Payload)
		}
		g := &gen{spec: spec}
		for _, n := range nodes {
			base, filled := -1, false
			for i := range fixtures {
				v, ok := lookup(docs[i], n.Path)
				if !ok {
					continue
				}
				full := nonEmpty(v)
				if base < 0 || (!filled && full) {
					base, filled = i, full
				}
				if filled {
					break
				}
			}
			path := n.Path.String()
			switch {
			case base < 0:
				gaps = append(gaps, Gap{spec.Type, path, "no fixture sets this member"})
				continue
			case (n.Kind == wiretag.Array || n.Kind == wiretag.Map) && !filled:
				gaps = append(gaps, Gap{spec.Type, path, "no fixture has an element here"})
			}
			g.member(fixtures[base], docs[base], n)
		}
		muts = append(muts, g.out...)
	}
	return muts, gaps, nil
}

type gen struct {
	spec *proto.MessageSpec
	out  []Mutation
}

// add records one case about the member at path: change applied to a copy of the fixture's
// payload, and the error proto must report ("" to accept).
func (g *gen) add(f Fixture, doc any, path wiretag.Path, c string, change func(any) any, err string, unchanged bool) {
	changed := change(clone(doc))
	p := path.String()
	if err != "" {
		err = g.spec.Type + "." + err
	}
	g.out = append(g.out, Mutation{Fixture: f, Path: p, Case: c, Payload: encode(changed), Err: err, Unchanged: unchanged})
}

func (g *gen) member(f Fixture, doc any, n wiretag.Node) {
	p, d := n.Path, n.Member.Decision
	ps := p.String()
	set := func(v any) func(any) any { return func(doc any) any { return assign(doc, p, v) } }

	// (a) omitted
	omitErr := ""
	if d.Required {
		omitErr = ps + ": is required"
	}
	g.add(f, doc, p, "omitted", func(doc any) any { return remove(doc, p) }, omitErr, false)

	// (b) null
	nullErr := ""
	if !d.Nullable && !d.Any {
		nullErr = ps + ": must not be null"
	}
	g.add(f, doc, p, "null", set(nil), nullErr, false)

	// (c) wrong JSON type, and the range rules of numbers and base64
	if !d.Any {
		if v, rule, ok := wrongValue(n.Member.Type, d); ok {
			g.add(f, doc, p, "wrong-type", set(v), ps+": "+rule, false)
		}
		switch n.Kind {
		case wiretag.Unsigned:
			g.add(f, doc, p, "negative", set(json.Number("-1")), ps+": must not be negative", false)
			fallthrough
		case wiretag.Integer:
			over, rule := overflow(n.Member.Type)
			g.add(f, doc, p, "overflow", set(over), ps+": "+rule, false)
		case wiretag.Base64:
			g.add(f, doc, p, "not-base64", set("!!!!"), ps+": must be a base64 string", false)
		}
	}

	// (d) an unknown sibling, exactly named and case-folded onto this member
	parent := p.Parent()
	folded := strings.ToUpper(n.Member.Name)
	foldValue := any("folded")
	if v, _, ok := wrongValue(n.Member.Type, d); ok {
		foldValue = v
	}
	if g.spec.Strict {
		g.add(f, doc, p, "unknown-sibling", addMember(parent, Unknown, json.Number("1")), parent.Child(Unknown).String()+": unknown member", false)
		g.add(f, doc, p, "folded-sibling", addMember(parent, folded, foldValue), parent.Child(folded).String()+": unknown member", false)
	} else {
		g.add(f, doc, p, "unknown-sibling", addMember(parent, Unknown, json.Number("1")), "", true)
		g.add(f, doc, p, "folded-sibling", addMember(parent, folded, foldValue), "", true)
	}

	// Elements of arrays and values of maps.
	v, _ := lookup(doc, p)
	switch n.Kind {
	case wiretag.Array:
		items, _ := v.([]any)
		if len(items) == 0 {
			return
		}
		e := p.Elem(0)
		g.add(f, doc, e, "null", func(doc any) any { return assign(doc, e, nil) }, e.String()+": must not be null", false)
		if wv, rule, ok := wrongValue(n.Elem, wiretag.Decision{}); ok {
			g.add(f, doc, e, "wrong-type", func(doc any) any { return assign(doc, e, wv) }, e.String()+": "+rule, false)
		}
		if n.Elem == reflect.TypeFor[proto.InputContent]() {
			g.inputContent(f, doc, p, items)
		}
	case wiretag.Map:
		entries, _ := v.(map[string]any)
		if len(entries) == 0 {
			return
		}
		keys := make([]string, 0, len(entries))
		for k := range entries {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		e := p.Child(keys[0])
		g.add(f, doc, e, "null", func(doc any) any { return assign(doc, e, nil) }, e.String()+": must not be null", false)
		if wv, rule, ok := wrongValue(n.Elem, wiretag.Decision{}); ok {
			g.add(f, doc, e, "wrong-type", func(doc any) any { return assign(doc, e, wv) }, e.String()+": "+rule, false)
		}
	case wiretag.Self:
		if wiretag.Indirect(n.Member.Type) == reflect.TypeFor[proto.AgentKindCapabilities]() {
			g.capabilities(f, doc, p)
		}
	}
}

// capabilities applies the capability object's own rules: every capability present, exactly
// true or false, no other member (strict whatever the message), and no name echoed.
func (g *gen) capabilities(f Fixture, doc any, p wiretag.Path) {
	for _, name := range proto.CapabilityNames() {
		c := p.Child(name)
		cs := c.String()
		g.add(f, doc, c, "omitted", func(doc any) any { return remove(doc, c) }, cs+": is required: every capability must be present, including false", false)
		g.add(f, doc, c, "null", func(doc any) any { return assign(doc, c, nil) }, cs+": must be true or false", false)
		g.add(f, doc, c, "wrong-type", func(doc any) any { return assign(doc, c, "true") }, cs+": must be true or false", false)
	}
	withheld := p.String() + ": has an unknown member (names withheld)"
	g.add(f, doc, p, "unknown-member", addMember(p, Unknown, false), withheld, false)
	folded := strings.ToUpper(proto.CapabilityNames()[0])
	g.add(f, doc, p, "folded-member", addMember(p, folded, false), withheld, false)
}

// inputContent applies the content part's own rules to the first part of each kind in the array:
// a known type, exactly the member that matches it, a string.
func (g *gen) inputContent(f Fixture, doc any, array wiretag.Path, items []any) {
	seen := map[string]bool{}
	for i, item := range items {
		part, _ := item.(map[string]any)
		typ, _ := part["type"].(string)
		if seen[typ] {
			continue
		}
		seen[typ] = true
		member, other := "text", "image_url"
		if typ == proto.ContentInputImage {
			member, other = other, member
		}
		e := array.Elem(i)
		for _, m := range []string{"type", member} {
			c := e.Child(m)
			cs := c.String()
			g.add(f, doc, c, "omitted", func(doc any) any { return remove(doc, c) }, cs+": is required", false)
			g.add(f, doc, c, "null", func(doc any) any { return assign(doc, c, nil) }, cs+": must be a JSON string", false)
			g.add(f, doc, c, "wrong-type", func(doc any) any { return assign(doc, c, json.Number("7")) }, cs+": must be a JSON string", false)
		}
		t := e.Child("type")
		g.add(f, doc, t, "unknown-value", func(doc any) any { return assign(doc, t, "input_audio") }, t.String()+": must be input_text or input_image", false)
		for _, name := range []string{Unknown, other, strings.ToUpper(member)} {
			c := "unknown-sibling"
			switch name {
			case other:
				c = "other-kind-member"
			case strings.ToUpper(member):
				c = "folded-sibling"
			}
			g.add(f, doc, e, c, addMember(e, name, "x"), e.Child(name).String()+": unknown member for a "+typ+" part", false)
		}
	}
}

// wrongValue returns a value of the wrong JSON type for t and the rule the shape layer states.
func wrongValue(t reflect.Type, d wiretag.Decision) (any, string, bool) {
	switch wiretag.KindOf(t) {
	case wiretag.String:
		return json.Number("7"), "must be a JSON string", true
	case wiretag.Boolean:
		return "yes", "must be a JSON boolean", true
	case wiretag.Integer, wiretag.Unsigned:
		return "7", "must be a JSON integer", true
	case wiretag.Number:
		return "7", "must be a JSON number", true
	case wiretag.Array:
		return map[string]any{}, "must be a JSON array", true
	case wiretag.Map, wiretag.Object:
		return []any{}, "must be a JSON object", true
	case wiretag.Base64:
		return json.Number("7"), "must be a base64 string", true
	case wiretag.Raw:
		if d.Object {
			return []any{}, "must be a JSON object", true
		}
	case wiretag.Self:
		if wiretag.Indirect(t) == reflect.TypeFor[proto.CapabilitySupport]() {
			return "true", "must be true or false", true
		}
		return []any{}, "must be a JSON object", true
	}
	return nil, "", false
}

// overflow returns the smallest integer above t's range and the shape layer's rule for it.
func overflow(t reflect.Type) (json.Number, string) {
	t = wiretag.Indirect(t)
	n := new(big.Int).Lsh(big.NewInt(1), uint(t.Bits()))
	if wiretag.KindOf(t) == wiretag.Integer {
		n.Rsh(n, 1)
	}
	return json.Number(n.String()), "must be a JSON integer in range"
}

// Generic JSON helpers: documents are decoded with UseNumber so numbers survive unchanged.

func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return map[string]any{}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

func encode(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func clone(v any) any { return decode(encode(v)) }

func lookup(doc any, p wiretag.Path) (any, bool) {
	cur := doc
	for _, s := range p {
		if s.Name == "" {
			items, ok := cur.([]any)
			if !ok || s.Index >= len(items) {
				return nil, false
			}
			cur = items[s.Index]
			continue
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[s.Name]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func nonEmpty(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

func assign(doc any, p wiretag.Path, v any) any {
	if len(p) == 0 {
		return v
	}
	parent, _ := lookup(doc, p.Parent())
	last := p[len(p)-1]
	if last.Name == "" {
		parent.([]any)[last.Index] = v
	} else {
		parent.(map[string]any)[last.Name] = v
	}
	return doc
}

func remove(doc any, p wiretag.Path) any {
	parent, _ := lookup(doc, p.Parent())
	delete(parent.(map[string]any), p[len(p)-1].Name)
	return doc
}

func addMember(p wiretag.Path, name string, v any) func(any) any {
	return func(doc any) any {
		obj, _ := lookup(doc, p)
		obj.(map[string]any)[name] = v
		return doc
	}
}
