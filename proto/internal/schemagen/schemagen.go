// Package schemagen generates JSON Schema (draft 2020-12) documents for every message type of the
// wire and for the HTTP bodies, from proto's Go types and their `wire` tags.
//
// The schemas are the shape layer: members, JSON types, presence, null, strictness, the envelope
// id rule and a few cheap value rules (enumerations, sha256). The Go validators in package proto
// are the authority for value rules; a frame these schemas accept can still break one.
//
// It imports only the standard library and proto's own packages.
package schemagen

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/proto/internal/wiretag"
)

// Dialect is the JSON Schema draft of every document.
const Dialect = "https://json-schema.org/draft/2020-12/schema"

// BaseURI prefixes each document's $id; the file name completes it.
const BaseURI = "https://github.com/wirecheck/wirecheck/schema/"

// Regenerate is the command that rewrites the committed files.
const Regenerate = "go run ./proto/internal/genschema -out schema"

const uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

// Generate returns every document by file name: <type>.json for each message type,
// <body>.json for each HTTP body, index.json and README.md.
func Generate() (map[string][]byte, error) {
	files := map[string][]byte{}
	used := map[*valueRule]bool{}
	var errs []error
	put := func(name string, doc any) {
		b, err := pretty(doc)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		files[name] = b
	}
	for _, spec := range proto.Specs() {
		doc, err := messageDoc(spec, used)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", spec.Type, err))
			continue
		}
		put(spec.Type+".json", doc)
	}
	for _, b := range wiretag.Bodies() {
		doc, err := bodyDoc(b, used)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", b.Name, err))
			continue
		}
		put(b.Name+".json", doc)
	}
	for i := range valueRules {
		if r := &valueRules[i]; !used[r] {
			errs = append(errs, fmt.Errorf("schemagen: the value rule for %s.%s matches no member (stale?)", r.owner.Name(), r.member))
		}
	}
	put("index.json", indexDoc())
	files["README.md"] = []byte(readme())
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return files, nil
}

// builder generates one document: its $defs and whether its objects are strict.
type builder struct {
	strict bool
	defs   map[string]*obj
	used   map[*valueRule]bool
}

func newBuilder(strict bool, used map[*valueRule]bool) *builder {
	return &builder{strict: strict, defs: map[string]*obj{}, used: used}
}

func (b *builder) defsObj() *obj {
	names := make([]string, 0, len(b.defs))
	for n := range b.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	o := newObj()
	for _, n := range names {
		o.set(n, b.defs[n])
	}
	return o
}

func ref(name string) *obj { return newObj().set("$ref", "#/$defs/"+name) }

// object describes a payload struct: its members, which are required, and (when strict) that no
// other member may appear.
func (b *builder) object(t reflect.Type) (*obj, error) {
	members, problems := wiretag.Members(t)
	if len(problems) > 0 {
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = p
		}
		return nil, errors.Join(errs...)
	}
	props := newObj()
	required := []string{}
	for _, m := range members {
		s, err := b.member(m)
		if err != nil {
			return nil, err
		}
		props.set(m.Name, s)
		if m.Decision.Required {
			required = append(required, m.Name)
		}
	}
	o := newObj().set("type", "object")
	if len(required) > 0 {
		o.set("required", required)
	}
	o.set("properties", props)
	if b.strict {
		o.set("additionalProperties", false)
	}
	return o, nil
}

// member describes one member: its type's schema, null when the decision allows it, anything
// for `any`, and a value rule when one is listed.
func (b *builder) member(m wiretag.Member) (any, error) {
	if m.Decision.Any {
		return newObj().set("description", "any JSON value is tolerated and normalized (wire:\"opt,any\")"), nil
	}
	s, err := b.typeSchema(m.Type, m.Decision)
	if err != nil {
		return nil, fmt.Errorf("%s.%s: %w", m.Owner.Name(), m.Field, err)
	}
	for i := range valueRules {
		r := &valueRules[i]
		if r.owner != m.Owner || r.member != m.Name {
			continue
		}
		if _, ok := s.get("type"); !ok || wiretag.KindOf(m.Type) != wiretag.String {
			return nil, fmt.Errorf("%s.%s: value rules apply to string members", m.Owner.Name(), m.Name)
		}
		b.used[r] = true
		if r.enum != nil {
			enum := slices.Clone(r.enum)
			if !m.Decision.Required && !slices.Contains(enum, "") {
				enum = append([]string{""}, enum...)
			}
			s.set("enum", enum)
		}
		if r.pattern != "" {
			s.set("pattern", r.pattern)
		}
	}
	if m.Decision.Nullable {
		return nullable(s), nil
	}
	if wiretag.KindOf(m.Type) == wiretag.Raw && !m.Decision.Object {
		s.set("not", newObj().set("type", "null"))
	}
	return s, nil
}

// nullable admits null beside s: in its type when it has one, else as an alternative.
func nullable(s *obj) *obj {
	if t, ok := s.get("type"); ok {
		if name, ok := t.(string); ok {
			return s.set("type", []string{name, "null"})
		}
	}
	if _, ok := s.get("$ref"); ok {
		return newObj().set("anyOf", []any{s, newObj().set("type", "null")})
	}
	return s // raw: null is already a JSON value
}

// typeSchema describes a Go type by its JSON shape. Named structs become $defs.
func (b *builder) typeSchema(t reflect.Type, d wiretag.Decision) (*obj, error) {
	t = wiretag.Indirect(t)
	switch wiretag.KindOf(t) {
	case wiretag.Self:
		return b.selfShaped(t)
	case wiretag.Raw:
		if d.Object {
			return newObj().set("type", "object"), nil
		}
		return newObj(), nil
	case wiretag.Base64:
		return newObj().set("type", "string").set("contentEncoding", "base64"), nil
	case wiretag.String:
		return newObj().set("type", "string"), nil
	case wiretag.Boolean:
		return newObj().set("type", "boolean"), nil
	case wiretag.Integer:
		bits := t.Bits()
		return newObj().set("type", "integer").
			set("minimum", int64(-1)<<(bits-1)).set("maximum", int64(math.MaxInt64>>(64-bits))), nil
	case wiretag.Unsigned:
		return newObj().set("type", "integer").set("minimum", 0).
			set("maximum", uint64(math.MaxUint64>>(64-t.Bits()))), nil
	case wiretag.Number:
		return newObj().set("type", "number"), nil
	case wiretag.Array:
		items, err := b.typeSchema(t.Elem(), wiretag.Decision{})
		if err != nil {
			return nil, err
		}
		return newObj().set("type", "array").set("items", items), nil
	case wiretag.Map:
		values, err := b.typeSchema(t.Elem(), wiretag.Decision{})
		if err != nil {
			return nil, err
		}
		return newObj().set("type", "object").set("additionalProperties", values), nil
	case wiretag.Object:
		if t.Name() == "" {
			return nil, fmt.Errorf("anonymous struct %v: give it a name", t)
		}
		if _, ok := b.defs[t.Name()]; !ok {
			b.defs[t.Name()] = nil // reserve: a type is described once per document
			o, err := b.object(t)
			if err != nil {
				return nil, err
			}
			b.defs[t.Name()] = o
		}
		return ref(t.Name()), nil
	}
	return nil, fmt.Errorf("no schema for %v", t)
}

// selfShaped describes the types that check their own JSON, by their documented rules. A new
// self-shaped type fails generation until it is described here.
func (b *builder) selfShaped(t reflect.Type) (*obj, error) {
	switch t {
	case reflect.TypeFor[proto.CapabilitySupport]():
		return newObj().set("type", "boolean"), nil
	case reflect.TypeFor[proto.AgentKindCapabilities]():
		if _, ok := b.defs[t.Name()]; !ok {
			names := proto.CapabilityNames()
			props := newObj()
			for _, n := range names {
				props.set(n, newObj().set("type", "boolean"))
			}
			b.defs[t.Name()] = newObj().
				set("description", "A complete capability declaration: every capability decided, true or false; no other member, whatever the message's strictness.").
				set("type", "object").set("required", names).set("properties", props).set("additionalProperties", false)
		}
		return ref(t.Name()), nil
	case reflect.TypeFor[proto.InputContent]():
		if _, ok := b.defs[t.Name()]; !ok {
			part := func(typ, member string) *obj {
				return newObj().set("type", "object").set("required", []string{"type", member}).
					set("properties", newObj().set("type", newObj().set("const", typ)).set(member, newObj().set("type", "string"))).
					set("additionalProperties", false)
			}
			b.defs[t.Name()] = newObj().
				set("description", "One content part: exactly the member that matches its type, whatever the message's strictness.").
				set("oneOf", []any{part(proto.ContentInputText, "text"), part(proto.ContentInputImage, "image_url")})
		}
		return ref(t.Name()), nil
	}
	return nil, fmt.Errorf("self-shaped type %v has no schema: describe it in schemagen.selfShaped", t)
}

// hasRequired reports whether a payload type has a required top-level member, so that an absent
// payload (decoded as {}) fails.
func hasRequired(t reflect.Type) bool {
	members, _ := wiretag.Members(t)
	for _, m := range members {
		if m.Decision.Required {
			return true
		}
	}
	return false
}

func idRuleName(r proto.IDRule) string {
	switch r {
	case proto.IDAbsent:
		return "absent"
	case proto.IDUnused:
		return "unused"
	case proto.IDRequired:
		return "required"
	case proto.IDUUID:
		return "uuid"
	case proto.IDBounded:
		return "bounded"
	case proto.IDEcho:
		return "echo"
	case proto.IDRunOrPayload:
		return "run_or_payload"
	}
	panic(fmt.Sprintf("schemagen: unknown id rule %d", r))
}

func idSchema(spec *proto.MessageSpec) (schema any, required bool) {
	switch spec.ID {
	case proto.IDAbsent:
		return false, false
	case proto.IDUnused:
		return newObj().set("description", "Unused: any string is tolerated and ignored.").set("type", []string{"string", "null"}), false
	case proto.IDRequired:
		return newObj().set("description", "The "+spec.IDMeans+"; must not be blank.").
			set("type", "string").set("minLength", 1).set("pattern", `\S`), true
	case proto.IDUUID:
		return newObj().set("description", "The "+spec.IDMeans+": a canonical lowercase UUID, never the nil UUID.").
			set("type", "string").set("pattern", uuidPattern).set("not", newObj().set("const", proto.NilUUID)), true
	case proto.IDBounded:
		return newObj().set("description", fmt.Sprintf("The %s: 1 to %d bytes, not blank. JSON Schema counts code points where proto counts UTF-8 bytes, so an id of multi-byte characters can pass maxLength and still be too long.", spec.IDMeans, proto.CorrelationIDMaxBytes)).
			set("type", "string").set("minLength", 1).set("maxLength", proto.CorrelationIDMaxBytes).set("pattern", `\S`), true
	case proto.IDEcho:
		return newObj().set("description", fmt.Sprintf("The %s, echoed from the request: 1 to %d bytes, blank included (a request refused for its blank id is answered under it). JSON Schema counts code points where proto counts UTF-8 bytes.", spec.IDMeans, proto.CorrelationIDMaxBytes)).
			set("type", "string").set("minLength", 1).set("maxLength", proto.CorrelationIDMaxBytes), true
	case proto.IDRunOrPayload:
		return newObj().set("description", "The "+spec.IDMeans+"; optional: when it is empty or absent the payload's run_id is the Run ID (and must not be blank). A non-empty id must not be blank.").
			set("type", []string{"string", "null"}).
			set("anyOf", []any{newObj().set("enum", []any{"", nil}), newObj().set("pattern", `\S`)}), false
	}
	panic(fmt.Sprintf("schemagen: unknown id rule %d", spec.ID))
}

func peerName(p proto.Peer) string {
	if p == proto.Core {
		return "Core"
	}
	return "Runtime"
}

func describe(spec *proto.MessageSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s family, %s → %s. The envelope id is the %s.", spec.Type, spec.Family, peerName(spec.From), peerName(spec.From.Other()), spec.IDMeans)
	switch spec.Body {
	case proto.BodyNone:
		b.WriteString(" It has no body.")
	case proto.BodyOptional:
		b.WriteString(" Its payload may be absent.")
	}
	if spec.PayloadType() != nil {
		if spec.Strict {
			b.WriteString(" Strict: unknown payload members are rejected at any depth.")
		} else {
			b.WriteString(" Lenient: unknown payload members are ignored (capability declarations and content parts are exact regardless).")
		}
	}
	if spec.MaxPayloadBytes > 0 {
		fmt.Fprintf(&b, " The encoded payload must be at most %d bytes, which this schema cannot say.", spec.MaxPayloadBytes)
	}
	b.WriteString(" This schema is the shape layer; the Go validators in package proto are the authority for value rules.")
	return b.String()
}

func messageDoc(spec *proto.MessageSpec, used map[*valueRule]bool) (*obj, error) {
	b := newBuilder(spec.Strict, used)
	doc := newObj().
		set("$schema", Dialect).
		set("$id", BaseURI+spec.Type+".json").
		set("title", spec.Type).
		set("description", describe(spec)).
		set("x-wirecheck-from", string(spec.From)).
		set("x-wirecheck-family", spec.Family).
		set("x-wirecheck-id", idRuleName(spec.ID)).
		set("x-wirecheck-strict", spec.Strict)
	if spec.MaxPayloadBytes > 0 {
		doc.set("x-wirecheck-max-payload-bytes", spec.MaxPayloadBytes)
	}
	required := []string{"type"}
	props := newObj().set("type", newObj().set("const", spec.Type))
	id, idRequired := idSchema(spec)
	props.set("id", id)
	if idRequired {
		required = append(required, "id")
	}
	if t := spec.PayloadType(); t == nil {
		props.set("payload", newObj().
			set("description", "No body: the member should be absent; proto tolerates null and an empty object.").
			set("type", []string{"object", "null"}).set("maxProperties", 0))
	} else {
		payload, err := b.object(t)
		if err != nil {
			return nil, err
		}
		// An absent or null payload decodes as {} whatever the Body rule, so it is acceptable
		// exactly when the payload type has no required member.
		if !hasRequired(t) {
			payload.set("type", []string{"object", "null"})
			payload = prepend(payload, "description", "May be absent or null: it then decodes as an empty object.")
		} else {
			required = append(required, "payload")
		}
		props.set("payload", payload)
	}
	props.set("trace", newObj().
		set("description", "W3C traceparent, diagnostic only: 00-<32 hex>-<16 hex>-<2 hex>. Receivers never reject a frame for its trace (proto ignores one that is not a string).").
		set("type", "string"))
	doc.set("type", "object").set("required", required).set("properties", props)
	if spec.ID == proto.IDRunOrPayload {
		doc.set("anyOf", []any{
			newObj().set("required", []string{"id"}).set("properties", newObj().set("id", newObj().set("type", "string").set("pattern", `\S`))),
			newObj().set("required", []string{"payload"}).set("properties", newObj().set("payload",
				newObj().set("required", []string{"run_id"}).set("properties", newObj().set("run_id", newObj().set("pattern", `\S`))))),
		})
	}
	if len(b.defs) > 0 {
		doc.set("$defs", b.defsObj())
	}
	return doc, nil
}

func bodyDoc(body wiretag.Body, used map[*valueRule]bool) (*obj, error) {
	b := newBuilder(false, used)
	o, err := b.object(body.Type)
	if err != nil {
		return nil, err
	}
	doc := newObj().
		set("$schema", Dialect).
		set("$id", BaseURI+body.Name+".json").
		set("title", body.Name).
		set("description", fmt.Sprintf("The %s HTTP body (proto.%s). Unknown members are ignored. This schema is the shape layer; the Go validators in package proto are the authority for value rules.", body.Name, body.Type.Name()))
	for _, k := range o.keys {
		doc.set(k, o.vals[k])
	}
	if len(b.defs) > 0 {
		doc.set("$defs", b.defsObj())
	}
	return doc, nil
}

// prepend returns o with k first.
func prepend(o *obj, k string, v any) *obj {
	out := newObj().set(k, v)
	for _, key := range o.keys {
		if key != k {
			out.set(key, o.vals[key])
		}
	}
	return out
}

func indexDoc() *obj {
	var messages []any
	for _, s := range proto.Specs() {
		messages = append(messages, newObj().
			set("type", s.Type).
			set("from", string(s.From)).
			set("family", s.Family).
			set("id", s.IDMeans).
			set("id_rule", idRuleName(s.ID)).
			set("strict", s.Strict).
			set("schema", s.Type+".json"))
	}
	var bodies []any
	for _, b := range wiretag.Bodies() {
		bodies = append(bodies, newObj().set("name", b.Name).set("go_type", "proto."+b.Type.Name()).set("schema", b.Name+".json"))
	}
	return newObj().
		set("description", "Every message type of the Core ↔ Runtime wire with its sender, and the HTTP bodies. Generated by: "+Regenerate).
		set("version", proto.Version).
		set("messages", messages).
		set("http", bodies)
}

// strictSummary names the strict types: "every Core → Runtime type, and tool_call" today.
func strictSummary() string {
	allCore := true
	var others []string
	for _, s := range proto.Specs() {
		switch {
		case s.From == proto.Core && !s.Strict && s.PayloadType() != nil:
			allCore = false
		case s.From == proto.Runtime && s.Strict:
			others = append(others, "`"+s.Type+"`")
		}
	}
	var parts []string
	if allCore {
		parts = append(parts, "every Core → Runtime type")
	} else {
		for _, s := range proto.Specs() {
			if s.From == proto.Core && s.Strict {
				parts = append(parts, "`"+s.Type+"`")
			}
		}
	}
	parts = append(parts, others...)
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

func readme() string {
	var b strings.Builder
	b.WriteString("These JSON Schemas (draft 2020-12) are the shape layer of the wire; the Go validators in package `proto` are the authority for value rules.\n\n")
	b.WriteString("# Wire schemas\n\n")
	b.WriteString("Generated from the Go types in `proto` and their `wire` tags by `proto/internal/schemagen`. Do not edit them;\n")
	b.WriteString("regenerate with `make schema` (`" + Regenerate + "`). The test in\n")
	b.WriteString("`proto/internal/schemagen` fails when these files are stale, and validates real frames against them.\n\n")
	b.WriteString("Each `<type>.json` describes a whole envelope: `type`, `id` (by the type's id rule), `payload` and `trace`.\n")
	b.WriteString("`index.json` lists every type with its sender. `bootstrap_request.json`, `bootstrap_response.json`,\n")
	b.WriteString("`device_status_response.json` and `http_error.json` describe the HTTP bodies.\n\n")
	b.WriteString("What the schemas say: members and their JSON types, which are required, where null is meaningful,\n")
	b.WriteString("that strict messages (" + strictSummary() + ") reject unknown members at any depth,\n")
	b.WriteString("the envelope id rule, and a few value rules that are cheap to state (enumerations such as `state`,\n")
	b.WriteString("`step`, `outcome`, `web_search`, `text_verbosity`; the sha256 pattern).\n\n")
	b.WriteString("What they do not say, and where they differ from `proto`:\n\n")
	b.WriteString("- Value rules that depend on other members (which header a `begin` carries, `error_code` per `outcome`,\n")
	b.WriteString("  revision rules, path rules, the inline image profile, …) live only in the Go validators.\n")
	b.WriteString("- Payload size limits (`x-wirecheck-max-payload-bytes`) and the 4 MiB frame limit.\n")
	b.WriteString("- JSON Schema counts `maxLength` in code points; `proto` counts bounded ids in UTF-8 bytes.\n")
	b.WriteString("- JSON Schema's `integer` admits `1.0` and `1e2`; `proto` requires an integer literal. Go `int` is described as 64-bit.\n")
	b.WriteString("- `proto` tolerates `\"id\": \"\"` and `\"id\": null` where the id must be absent, and a non-string `trace`.\n")
	b.WriteString("- `contentEncoding: base64` is an annotation unless the validator asserts content.\n\n")
	b.WriteString("| type | from | id | strict |\n| --- | --- | --- | --- |\n")
	for _, s := range proto.Specs() {
		fmt.Fprintf(&b, "| [`%s`](%s.json) | %s | %s | %t |\n", s.Type, s.Type, s.From, s.IDMeans, s.Strict)
	}
	return b.String()
}
