package scenarios

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"
)

// Value is a JSON template: nil, bool, json.Number, string (may hold ${name} placeholders),
// []Value, map[string]Value, or a *Matcher for what is not bound.
type Value = any

var placeholderRE = regexp.MustCompile(`\$\{([a-z][a-z0-9_]*)\}`)

// Placeholders lists the placeholder names of a template, in order of first appearance.
func Placeholders(v Value) []string {
	var out []string
	seen := map[string]bool{}
	walkStrings(v, func(s string) {
		for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				out = append(out, m[1])
			}
		}
	})
	return out
}

func walkStrings(v Value, f func(string)) {
	switch t := v.(type) {
	case string:
		f(t)
	case []Value:
		for _, e := range t {
			walkStrings(e, f)
		}
	case map[string]Value:
		for _, e := range t {
			walkStrings(e, f)
		}
	case *Matcher:
		walkStrings(t.Sample, f)
		walkStrings(t.Inner, f)
		walkStrings(t.Tar, f)
		for _, a := range t.OneOf {
			walkStrings(a, f)
		}
		for _, a := range t.All {
			walkStrings(a, f)
		}
		walkStrings(t.Not, f)
	}
}

// Key is a step's id as written, which a driver keys the operation by: the string, or the first
// template of an $all when that is a string ({$all: ["${export}", {$regex: ...}]} is keyed
// "${export}").
func Key(id Value) (string, bool) {
	if m, ok := id.(*Matcher); ok && len(m.All) > 0 {
		id = m.All[0]
	}
	s, ok := id.(string)
	return s, ok && s != ""
}

// Bindings holds the values bound to placeholders during one run of a scenario.
type Bindings struct {
	vals  map[string]Value
	order []string
}

// NewBindings returns empty bindings.
func NewBindings() *Bindings { return &Bindings{vals: map[string]Value{}} }

// BindingsWith returns bindings holding a scenario's vars.
func BindingsWith(vars map[string]Value) *Bindings {
	b := NewBindings()
	for _, k := range sortedKeys(vars) {
		b.Bind(k, vars[k])
	}
	return b
}

// Get returns a bound value.
func (b *Bindings) Get(name string) (Value, bool) { v, ok := b.vals[name]; return v, ok }

// String returns a bound value as a string ("" when unbound or not a string).
func (b *Bindings) String(name string) string { s, _ := b.vals[name].(string); return s }

// Bind records a value; binding a name twice is a scenario error.
func (b *Bindings) Bind(name string, v Value) {
	if _, ok := b.vals[name]; !ok {
		b.order = append(b.order, name)
	}
	b.vals[name] = v
}

// Snapshot returns the bindings as name → compact JSON, for failure reports.
func (b *Bindings) Snapshot() map[string]string {
	out := make(map[string]string, len(b.vals))
	for k, v := range b.vals {
		raw, _ := json.Marshal(v)
		out[k] = string(raw)
	}
	return out
}

// Format renders the bindings in binding order, one "name=value" per entry.
func (b *Bindings) Format() string {
	if len(b.order) == 0 {
		return "(none)"
	}
	parts := make([]string, 0, len(b.order))
	for _, k := range b.order {
		raw, _ := json.Marshal(b.vals[k])
		parts = append(parts, k+"="+string(raw))
	}
	return strings.Join(parts, ", ")
}

// Clone returns a copy of the bindings: matching against it binds nothing in b.
func (b *Bindings) Clone() *Bindings { return b.clone() }

func (b *Bindings) clone() *Bindings {
	c := &Bindings{vals: make(map[string]Value, len(b.vals)), order: append([]string(nil), b.order...)}
	for k, v := range b.vals {
		c.vals[k] = v
	}
	return c
}

// Mismatch says where an actual value differs from its template.
type Mismatch struct {
	Path string
	Why  string
}

func (m *Mismatch) Error() string {
	if m.Path == "" {
		return m.Why
	}
	return m.Path + ": " + m.Why
}

// Match compares an actual JSON value (decoded with UseNumber) against a template, binding
// placeholders seen for the first time. On a mismatch nothing is bound.
func (b *Bindings) Match(tmpl Value, actual any) *Mismatch {
	trial := b.clone()
	if m := trial.match("", tmpl, actual); m != nil {
		return m
	}
	*b = *trial
	return nil
}

func (b *Bindings) match(path string, tmpl Value, actual any) *Mismatch {
	switch t := tmpl.(type) {
	case *Matcher:
		return b.matchMatcher(path, t, actual)
	case string:
		return b.matchString(path, t, actual)
	case map[string]Value:
		obj, ok := actual.(map[string]any)
		if !ok {
			return &Mismatch{path, fmt.Sprintf("want an object, got %s", jsonType(actual))}
		}
		keys := sortedKeys(t)
		for _, k := range keys {
			p := joinPath(path, k)
			if m, isM := t[k].(*Matcher); isM && m.Absent {
				if _, present := obj[k]; present {
					return &Mismatch{p, "must be absent"}
				}
				continue
			}
			av, present := obj[k]
			if !present {
				if m, isM := t[k].(*Matcher); isM && m.Optional {
					continue
				}
				return &Mismatch{p, "is missing"}
			}
			if mm := b.match(p, t[k], av); mm != nil {
				return mm
			}
		}
		for _, k := range sortedKeys(obj) {
			if _, expected := t[k]; !expected {
				return &Mismatch{joinPath(path, k), "is not expected"}
			}
		}
		return nil
	case []Value:
		arr, ok := actual.([]any)
		if !ok {
			return &Mismatch{path, fmt.Sprintf("want an array, got %s", jsonType(actual))}
		}
		if len(arr) != len(t) {
			return &Mismatch{path, fmt.Sprintf("want %d elements, got %d", len(t), len(arr))}
		}
		for i := range t {
			if mm := b.match(fmt.Sprintf("%s[%d]", path, i), t[i], arr[i]); mm != nil {
				return mm
			}
		}
		return nil
	default:
		if !jsonEqual(tmpl, actual) {
			return &Mismatch{path, fmt.Sprintf("want %s, got %s", compact(tmpl), compact(actual))}
		}
		return nil
	}
}

func (b *Bindings) matchString(path, t string, actual any) *Mismatch {
	locs := placeholderRE.FindAllStringSubmatchIndex(t, -1)
	if len(locs) == 0 {
		if s, ok := actual.(string); ok && s == t {
			return nil
		}
		return &Mismatch{path, fmt.Sprintf("want %q, got %s", t, compact(actual))}
	}
	// A whole-value placeholder binds any JSON value.
	if len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(t) {
		name := t[locs[0][2]:locs[0][3]]
		if bound, ok := b.vals[name]; ok {
			if !jsonEqual(bound, actual) {
				return &Mismatch{path, fmt.Sprintf("want ${%s} = %s (bound earlier), got %s", name, compact(bound), compact(actual))}
			}
			return nil
		}
		if actual == nil || actual == "" {
			return &Mismatch{path, fmt.Sprintf("want a non-empty value to bind ${%s}, got %s", name, compact(actual))}
		}
		b.Bind(name, actual)
		return nil
	}
	// An embedded placeholder matches part of a string: compile the template into a pattern in which
	// bound names are literal and unbound names capture.
	s, ok := actual.(string)
	if !ok {
		return &Mismatch{path, fmt.Sprintf("want a string like %q, got %s", t, compact(actual))}
	}
	var pat strings.Builder
	var captures []string
	pat.WriteString("^")
	last := 0
	for _, l := range locs {
		pat.WriteString(regexp.QuoteMeta(t[last:l[0]]))
		name := t[l[2]:l[3]]
		if bound, ok := b.vals[name]; ok {
			bs, isStr := bound.(string)
			if !isStr {
				return &Mismatch{path, fmt.Sprintf("${%s} is bound to a non-string and cannot be embedded", name)}
			}
			pat.WriteString(regexp.QuoteMeta(bs))
		} else {
			pat.WriteString("(.+?)")
			captures = append(captures, name)
		}
		last = l[1]
	}
	pat.WriteString(regexp.QuoteMeta(t[last:]))
	pat.WriteString("$")
	m := regexp.MustCompile(pat.String()).FindStringSubmatch(s)
	if m == nil {
		return &Mismatch{path, fmt.Sprintf("want %q, got %q", b.resolveString(t), s)}
	}
	for i, name := range captures {
		if prev, ok := b.vals[name]; ok && !jsonEqual(prev, m[i+1]) {
			return &Mismatch{path, fmt.Sprintf("${%s} appears twice with different values", name)}
		}
		b.Bind(name, m[i+1])
	}
	return nil
}

// Expected renders a template with the current bindings for a diff: bound placeholders are
// substituted, unbound ones and matchers are shown as they are written.
func (b *Bindings) Expected(tmpl Value) any {
	switch t := tmpl.(type) {
	case *Matcher:
		switch {
		case t.Absent:
			return nil
		case t.Inner != nil:
			return b.Expected(t.Inner)
		case t.Tar != nil:
			return map[string]any{"$tar": b.Expected(t.Tar)}
		case t.OneOf != nil:
			alts := make([]string, len(t.OneOf))
			for i, alt := range t.OneOf {
				alts[i] = compact(b.Expected(alt))
			}
			return "<one of " + strings.Join(alts, " | ") + ">"
		case t.All != nil:
			parts := make([]string, len(t.All))
			for i, a := range t.All {
				parts[i] = compact(b.Expected(a))
			}
			return "<all of " + strings.Join(parts, " & ") + ">"
		case t.Negated:
			return "<not " + compact(b.Expected(t.Not)) + ">"
		}
		return t.String()
	case string:
		if v, ok := b.wholeBound(t); ok {
			return v
		}
		return b.resolveString(t)
	case map[string]Value:
		out := make(map[string]any, len(t))
		for k, v := range t {
			if m, ok := v.(*Matcher); ok && m.Absent {
				continue
			}
			out[k] = b.Expected(v)
		}
		return out
	case []Value:
		out := make([]any, len(t))
		for i, v := range t {
			out[i] = b.Expected(v)
		}
		return out
	}
	return tmpl
}

func (b *Bindings) wholeBound(t string) (Value, bool) {
	if m := placeholderRE.FindStringSubmatchIndex(t); m != nil && m[0] == 0 && m[1] == len(t) {
		v, ok := b.vals[t[m[2]:m[3]]]
		return v, ok
	}
	return nil, false
}

func (b *Bindings) resolveString(t string) string {
	return placeholderRE.ReplaceAllStringFunc(t, func(ph string) string {
		name := ph[2 : len(ph)-1]
		if v, ok := b.vals[name].(string); ok {
			return v
		}
		if v, ok := b.vals[name]; ok {
			return compact(v)
		}
		return ph
	})
}

// Generator chooses a value for a placeholder a scripted writer has to send before anything bound
// it. kind is the Go kind the member decodes into ("string", "int", "bool", ...).
type Generator func(name, kind string) Value

// Resolve renders a template for writing: bound placeholders are substituted, unbound ones are
// generated (and bound), matchers send their sample, and $absent members are left out.
func (b *Bindings) Resolve(tmpl Value, gen Generator, kindAt func(path string) string) (any, error) {
	return b.resolve("", tmpl, gen, kindAt)
}

func (b *Bindings) resolve(path string, tmpl Value, gen Generator, kindAt func(string) string) (any, error) {
	switch t := tmpl.(type) {
	case *Matcher:
		if t.Tar != nil {
			return b.resolveTar(path, t.Tar, gen, kindAt)
		}
		if t.All != nil {
			return b.resolveAll(path, t, gen, kindAt)
		}
		if t.Sample == nil {
			return nil, fmt.Errorf("%s: %s has no sample for a scripted writer to send", path, t)
		}
		return b.resolve(path, t.Sample, gen, kindAt)
	case string:
		locs := placeholderRE.FindAllStringSubmatchIndex(t, -1)
		if len(locs) == 0 {
			return t, nil
		}
		for _, l := range locs {
			name := t[l[2]:l[3]]
			if _, ok := b.vals[name]; !ok {
				kind := "string"
				if len(locs) == 1 && l[0] == 0 && l[1] == len(t) && kindAt != nil {
					kind = kindAt(path)
				}
				b.Bind(name, gen(name, kind))
			}
		}
		if v, ok := b.wholeBound(t); ok {
			return v, nil
		}
		return b.resolveString(t), nil
	case map[string]Value:
		out := make(map[string]any, len(t))
		for _, k := range sortedKeys(t) {
			if m, ok := t[k].(*Matcher); ok && m.Absent {
				continue
			}
			v, err := b.resolve(joinPath(path, k), t[k], gen, kindAt)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case []Value:
		out := make([]any, len(t))
		for i := range t {
			v, err := b.resolve(fmt.Sprintf("%s[%d]", path, i), t[i], gen, kindAt)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return tmpl, nil
}

// resolveTar renders a {$tar: files} template for writing: the archive TarArchive makes of the
// resolved files, in base64.
func (b *Bindings) resolveTar(path string, tmpl Value, gen Generator, kindAt func(string) string) (any, error) {
	v, err := b.resolve(path, tmpl, gen, kindAt)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: $tar holds an object of file name to content, got %s", path, compact(v))
	}
	files := make(map[string][]byte, len(obj))
	for name, c := range obj {
		s, _ := c.(string)
		content, err := base64.StdEncoding.DecodeString(s)
		if _, isStr := c.(string); !isStr || err != nil {
			return nil, fmt.Errorf("%s: $tar: the content of %q must be base64, got %s", path, name, compact(c))
		}
		files[name] = content
	}
	return base64.StdEncoding.EncodeToString(TarArchive(files)), nil
}

// resolveAll renders an $all for writing: its sample, or else its first template resolved; the
// value must match every template, which binds their placeholders as a reader's match would. A
// placeholder only a later template names ($not: "${t1}") and still unbound is generated first,
// as a writer generates any placeholder it sends before anything bound it.
func (b *Bindings) resolveAll(path string, m *Matcher, gen Generator, kindAt func(string) string) (any, error) {
	first := m.Sample
	if first == nil {
		first = m.All[0]
	}
	v, err := b.resolve(path, first, gen, kindAt)
	if err != nil {
		return nil, err
	}
	for _, t := range m.All[1:] {
		for _, name := range Placeholders(t) {
			if _, ok := b.vals[name]; !ok {
				b.Bind(name, gen(name, "string"))
			}
		}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	actual, err := DecodeJSON(raw)
	if err != nil {
		return nil, err
	}
	if mm := b.Match(m, actual); mm != nil {
		return nil, fmt.Errorf("%s: the value a scripted writer sends for %s, %s, does not match it (%s): give it a sample that does", path, m, raw, mm.Why)
	}
	return v, nil
}

// DecodeJSON decodes raw JSON into the generic form templates compare against.
func DecodeJSON(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func jsonEqual(a, b any) bool {
	an, aNum := asNumber(a)
	bn, bNum := asNumber(b)
	if aNum || bNum {
		return aNum && bNum && an.Cmp(bn) == 0
	}
	switch at := a.(type) {
	case map[string]any:
		bt, ok := b.(map[string]any)
		if !ok || len(at) != len(bt) {
			return false
		}
		for k, v := range at {
			if w, ok := bt[k]; !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		bt, ok := b.([]any)
		if !ok || len(at) != len(bt) {
			return false
		}
		for i := range at {
			if !jsonEqual(at[i], bt[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func asNumber(v any) (*big.Rat, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = string(t)
	case int:
		s = fmt.Sprint(t)
	case int64:
		s = fmt.Sprint(t)
	case float64:
		s = fmt.Sprint(t)
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

func jsonType(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(string(t), ".eE") {
			return "number"
		}
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func compact(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(raw) > 120 {
		return string(raw[:117]) + "..."
	}
	return string(raw)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinPath(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
