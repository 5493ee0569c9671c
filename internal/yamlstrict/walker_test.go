package yamlstrict

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var testLang = Lang{Files: "tests", Reuse: "spell it out", DurationExamples: "50ms or 5m"}

var testValues = Values{Number: func(lit string) any { return json.Number(lit) }}

// read decodes a one-document file and hands its root to f, which reads it with the walker.
func read(t *testing.T, src string, f func(w *Walker, root *yaml.Node) any) (any, []string) {
	t.Helper()
	w := New("f.yaml", testLang)
	var got any
	for doc := range w.Documents([]byte(src)) {
		if !doc.Refused {
			got = f(w, doc.Root)
		}
	}
	var errs []string
	for _, e := range w.Errs {
		errs = append(errs, e.Error())
	}
	return got, errs
}

func member(root *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1]
		}
	}
	return nil
}

// Every refusal and every conversion, with the exact message a user sees.
func TestWalker(t *testing.T) {
	whole := func(w *Walker, root *yaml.Node) any { return w.Value(root, "x", testValues) }
	at := func(read func(w *Walker, n *yaml.Node) any) func(w *Walker, root *yaml.Node) any {
		return func(w *Walker, root *yaml.Node) any { return read(w, member(root, "x")) }
	}
	fields := at(func(w *Walker, n *yaml.Node) any {
		vals, _ := w.Fields(n, "x", "a", "b")
		return len(vals)
	})
	options := at(func(w *Walker, n *yaml.Node) any {
		vals, _ := w.Options(n, "x", "a")
		return len(vals)
	})
	str := at(func(w *Walker, n *yaml.Node) any { return w.String(n, "x") })
	strs := at(func(w *Walker, n *yaml.Node) any { return w.Strings(n, "x") })
	boolean := at(func(w *Walker, n *yaml.Node) any { return w.Bool(n, "x") })
	integer := at(func(w *Walker, n *yaml.Node) any { v, ok := Int(n); return []any{v, ok} })
	duration := at(func(w *Walker, n *yaml.Node) any { return w.Duration(n, "x") })
	num := json.Number("1")

	for _, c := range []struct {
		name, yaml string
		read       func(w *Walker, root *yaml.Node) any
		want       any
		errs       []string
	}{
		// What Documents and Check refuse: the document is then not read at all.
		{"alias and its anchor", "a: &d 1\nb: *d\n", whole, nil, []string{
			"f.yaml:1: YAML anchors (&d) are not supported in tests: spell it out",
			"f.yaml:2: YAML aliases (*d) are not supported in tests: spell it out"}},
		{"anchor alone", "a: &d {b: 1}\n", whole, nil, []string{"f.yaml:1: YAML anchors (&d) are not supported in tests: spell it out"}},
		{"merge key", "a:\n  <<: {b: 1}\n", whole, nil, []string{"f.yaml:2: YAML merge keys (<<) are not supported in tests: spell it out"}},
		{"merge key of an alias", "a: &d {b: 1}\nc:\n  <<: *d\n", whole, nil, []string{
			"f.yaml:1: YAML anchors (&d) are not supported in tests: spell it out",
			"f.yaml:3: YAML merge keys (<<) are not supported in tests: spell it out",
			"f.yaml:3: YAML aliases (*d) are not supported in tests: spell it out"}},
		{"a quoted << is a key like any other", "\"<<\": 1\n", whole, map[string]any{"<<": num}, nil},
		{"local tag", "a: !foo x\n", whole, nil, []string{"f.yaml:1: YAML tags (!foo) are not supported in tests"}},
		{"core tag", "a: !!str 3\n", whole, nil, []string{"f.yaml:1: YAML tags (!!str) are not supported in tests"}},
		{"binary", "a: !!binary aGk=\n", whole, nil, []string{"f.yaml:1: YAML tags (!!binary) are not supported in tests"}},
		{"tagged mapping", "a: !m {b: 1}\n", whole, nil, []string{"f.yaml:1: YAML tags (!m) are not supported in tests"}},
		{"a list as a key", "? [a]\n: 1\n", whole, nil, []string{"f.yaml:1: a mapping key must be a scalar, not a mapping or a list"}},
		{"a mapping as a key", "{? {a: 1} : 1}\n", whole, nil, []string{"f.yaml:1: a mapping key must be a scalar, not a mapping or a list"}},
		{"syntax error", "a: [\n", whole, nil, []string{"f.yaml:1: did not find expected node content"}},
		{"tab", "a:\n\tb: 1\n", whole, nil, []string{"f.yaml:2: found character that cannot start any token"}},
		{"unknown anchor (yaml.v3 names no line)", "a: *d\n", whole, nil, []string{"f.yaml:1: unknown anchor 'd' referenced"}},

		// Fields and Options.
		{"fields", "x: {a: 1, b: 2}\n", fields, 2, nil},
		{"fields of a scalar", "x: 5\n", fields, 0, []string{"f.yaml:1: x must be a mapping"}},
		{"fields of a null", "x:\n", fields, 0, []string{"f.yaml:1: x must be a mapping"}},
		{"unknown key", "x: {a: 1, c: 2}\n", fields, 1, []string{`f.yaml:1: x: unknown key "c" (allowed: a, b)`}},
		{"duplicate key", "x:\n  a: 1\n  a: 2\n", fields, 1, []string{`f.yaml:3: x: duplicate key "a"`}},
		{"options left out", "x:\n", options, 0, nil},
		{"empty options", "x: {}\n", options, 0, nil},
		{"options of a scalar", "x: 5\n", options, 0, []string{"f.yaml:1: x must be a mapping"}},

		// Scalars.
		{"string", "x: abc\n", str, "abc", nil},
		{"number as a string", "x: 12\n", str, "12", nil},
		{"missing string", "y: 1\n", str, "", nil},
		{"bool is not a string", "x: true\n", str, "", []string{"f.yaml:1: x must be a string"}},
		{"null is not a string", "x: ~\n", str, "", []string{"f.yaml:1: x must be a string"}},
		{"timestamp is not a string", "x: 2026-01-01\n", str, "", []string{"f.yaml:1: x must be a string"}},
		{"list is not a string", "x: [a]\n", str, "", []string{"f.yaml:1: x must be a string"}},
		{"strings", "x: [a, 1]\n", strs, []string{"a", "1"}, nil},
		{"strings of a scalar", "x: a\n", strs, []string(nil), []string{"f.yaml:1: x must be a list of strings"}},
		{"strings with a mapping", "x: [a, {b: 1}]\n", strs, []string{"a", ""}, []string{"f.yaml:1: x must be a string"}},
		{"true", "x: true\n", boolean, true, nil},
		{"True", "x: True\n", boolean, true, nil},
		{"FALSE", "x: FALSE\n", boolean, false, nil},
		{"yes is not a bool", "x: yes\n", boolean, false, []string{`f.yaml:1: x must be true or false, got "yes"`}},
		{"quoted true is not a bool", "x: \"true\"\n", boolean, false, []string{`f.yaml:1: x must be true or false, got "true"`}},
		{"int", "x: 42\n", integer, []any{42, true}, nil},
		{"negative int", "x: -3\n", integer, []any{-3, true}, nil},
		{"quoted int", "x: \"42\"\n", integer, []any{0, false}, nil},
		{"hex int", "x: 0x10\n", integer, []any{0, false}, nil},
		{"float is not an int", "x: 1.0\n", integer, []any{0, false}, nil},
		{"duration", "x: 5m\n", duration, 5 * time.Minute, nil},
		{"zero duration", "x: 0\n", duration, time.Duration(0), nil},
		{"missing duration", "y: 1\n", duration, time.Duration(0), nil},
		{"bad duration", "x: soon\n", duration, time.Duration(0), []string{`f.yaml:1: x must be a duration such as 50ms or 5m, got "soon"`}},
		{"negative duration", "x: -1s\n", duration, time.Duration(0), []string{`f.yaml:1: x must be a duration such as 50ms or 5m, got "-1s"`}},
		{"bool duration, one error", "x: true\n", duration, time.Duration(0), []string{`f.yaml:1: x must be a duration such as 50ms or 5m, got "true"`}},

		// Values.
		{"value", "a: [1, -2.5e3, x, true, True, ~, {b: 2026-01-01}]\n", whole,
			map[string]any{"a": []any{num, json.Number("-2.5e3"), "x", true, true, nil, map[string]any{"b": "2026-01-01"}}}, nil},
		{"plus sign", "a: +1\n", whole, map[string]any{"a": nil}, []string{`f.yaml:1: "+1" is not a JSON number`}},
		{"leading dot", "a: .5\n", whole, map[string]any{"a": nil}, []string{`f.yaml:1: ".5" is not a JSON number`}},
		{"leading zero", "a: 01\n", whole, map[string]any{"a": nil}, []string{`f.yaml:1: "01" is not a JSON number`}},
		{"hex", "a: 0x1F\n", whole, map[string]any{"a": nil}, []string{`f.yaml:1: "0x1F" is not a JSON number`}},
		{"infinity", "a: .inf\n", whole, map[string]any{"a": nil}, []string{`f.yaml:1: ".inf" is not a JSON number`}},
		{"out of range: YAML takes it for a string", "a: 1e400\n", whole, map[string]any{"a": "1e400"}, nil},
		{"nested duplicate", "a:\n  - b: 1\n    b: 2\n", whole, map[string]any{"a": []any{map[string]any{"b": json.Number("2")}}},
			[]string{`f.yaml:3: x.a[0]: duplicate key "b"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, errs := read(t, c.yaml, c.read)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("value (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.errs, errs); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
		})
	}
}

// A loader's Mapping hook takes the mappings it reads itself, wherever they stand.
func TestValueMappingHook(t *testing.T) {
	vs := testValues
	vs.Mapping = func(n *yaml.Node, what string) (any, bool) {
		if n.Content[0].Value != "$any" {
			return nil, false
		}
		return "matcher at " + what, true
	}
	got, errs := read(t, "a: [{$any: string}, {b: {$any: number}}]\n", func(w *Walker, root *yaml.Node) any { return w.Value(root, "payload", vs) })
	want := map[string]any{"a": []any{"matcher at payload.a[0]", map[string]any{"b": "matcher at payload.a[1].b"}}}
	if d := cmp.Diff(want, got); d != "" || errs != nil {
		t.Fatalf("(-want +got):\n%s\nerrors: %v", d, errs)
	}
}

// Documents yields every document in order with its line, marks the refused ones, and stops at a
// syntax error after yielding the documents before it.
func TestDocuments(t *testing.T) {
	w := New("f.yaml", testLang)
	type doc struct {
		Line    int
		Kind    yaml.Kind
		Refused bool
	}
	var got []doc
	for d := range w.Documents([]byte("a: 1\n---\n---\nb: &x 2\n---\nc: [\n")) {
		got = append(got, doc{d.Line, d.Root.Kind, d.Refused})
	}
	want := []doc{{1, yaml.MappingNode, false}, {2, yaml.ScalarNode, false}, {3, yaml.MappingNode, true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("documents (-want +got):\n%s", d)
	}
	wantErrs := "f.yaml:4: YAML anchors (&x) are not supported in tests: spell it out\nf.yaml:6: did not find expected node content"
	if err := w.Err(); err == nil || err.Error() != wantErrs {
		t.Errorf("errors: got %v, want %s", err, wantErrs)
	}
	empty := New("f.yaml", testLang)
	for range empty.Documents(nil) {
		t.Error("an empty file has no documents")
	}
	if empty.Err() != nil {
		t.Errorf("an empty file: %v", empty.Err())
	}
}

// A node that never went through Check (a caller's own) still never expands an alias.
func TestValueRefusesAnUncheckedAlias(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: &d [1]\nb: *d\n"), &doc); err != nil {
		t.Fatal(err)
	}
	w := New("f.yaml", testLang)
	w.Value(doc.Content[0], "x", testValues)
	if err := w.Err(); err == nil || err.Error() != "f.yaml:2: YAML aliases (*d) are not supported in tests: spell it out" {
		t.Fatalf("got %v", err)
	}
}
