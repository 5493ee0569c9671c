package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func tmpl(t *testing.T, yamlText string) Value {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &doc); err != nil {
		t.Fatal(err)
	}
	p := newParser("inline.yaml")
	v := p.value(doc.Content[0], "value")
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	return v
}

// The rules of facts §7.3: a runtime-generated value binds once; a failed match binds nothing; a
// later frame must repeat the bound value; resolving substitutes it.
func TestBindingsBindOnceAndResolve(t *testing.T) {
	b := NewBindings()
	ready := map[string]Value{"executor_id": "${executor}", "handle": "${handle}", "revision": json2("2"), "state": "ready", "expires_at": "${expires_at}"}

	if m := b.Match(ready, mustJSON(t, `{"executor_id":"e-1","handle":"h-1","revision":3,"state":"ready","expires_at":7}`)); m == nil {
		t.Fatal("a frame with another revision matched")
	}
	if len(b.Snapshot()) != 0 {
		t.Fatalf("a failed match bound %v", b.Snapshot())
	}
	if m := b.Match(ready, mustJSON(t, `{"executor_id":"e-1","handle":"h-1","revision":2,"state":"ready","expires_at":7}`)); m != nil {
		t.Fatalf("correct frame did not match: %v", m)
	}
	want := map[string]string{"executor": `"e-1"`, "handle": `"h-1"`, "expires_at": "7"}
	if diff := cmp.Diff(want, b.Snapshot()); diff != "" {
		t.Fatalf("bindings (-want +got):\n%s", diff)
	}
	m := b.Match(ready, mustJSON(t, `{"executor_id":"e-1","handle":"h-2","revision":2,"state":"ready","expires_at":7}`))
	if m == nil || m.Path != "handle" || !strings.Contains(m.Why, `want ${handle} = "h-1" (bound earlier)`) {
		t.Fatalf("a later frame with another handle: got %v", m)
	}
	start := map[string]Value{"executor_id": "${executor}", "handle": "${handle}", "run_id": "run"}
	got, err := b.Resolve(start, readableValue, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"executor_id": "e-1", "handle": "h-1", "run_id": "run"}, got); diff != "" {
		t.Fatalf("resolved start (-want +got):\n%s", diff)
	}
}

func json2(s string) Value { return mustNumber(s) }

func TestEmbeddedPlaceholdersCaptureAndCheck(t *testing.T) {
	b := NewBindings()
	if m := b.Match("agents-api-${session}", "agents-api-s-42"); m != nil {
		t.Fatal(m)
	}
	if b.String("session") != "s-42" {
		t.Fatalf("session bound to %q", b.String("session"))
	}
	if m := b.Match("agents-api-${session}", "agents-api-other"); m == nil {
		t.Fatal("an embedded placeholder accepted a different value")
	}
	if m := b.Match("${session}", "s-42"); m != nil {
		t.Fatalf("whole-value use of an embedded binding: %v", m)
	}
}

func TestMatchersAndPresence(t *testing.T) {
	cases := []struct {
		name, tmpl, actual, why string
	}{
		{"any string matches", `{a: {$any: string}}`, `{"a":"x"}`, ""},
		{"any string rejects a number", `{a: {$any: string}}`, `{"a":1}`, "a: want any string, got 1"},
		{"any number accepts an integer", `{a: {$any: number}}`, `{"a":3}`, ""},
		{"absent member", `{a: {$absent: true}}`, `{}`, ""},
		{"absent member present", `{a: {$absent: true}}`, `{"a":1}`, "a: must be absent"},
		{"optional member absent", `{a: {$any: string, optional: true}}`, `{}`, ""},
		{"regex", `{a: {$regex: "^cancel:", sample: "cancel:run"}}`, `{"a":"cancel:r"}`, ""},
		{"regex mismatch", `{a: {$regex: "^cancel:", sample: "cancel:run"}}`, `{"a":"r"}`, `a: want a string matching ^cancel:, got "r"`},
		{"member order is free", `{a: 1, b: 2}`, `{"b":2,"a":1}`, ""},
		{"numbers compare as numbers", `{a: 1.0}`, `{"a":1}`, ""},
		{"extra member", `{a: 1}`, `{"a":1,"b":2}`, "b: is not expected"},
		{"missing member", `{a: 1, b: 2}`, `{"a":1}`, "b: is missing"},
		{"nested path", `{a: [{b: x}]}`, `{"a":[{"b":"y"}]}`, `a[0].b: want "x", got "y"`},
		{"capability macro", `{c: {$capabilities: [streaming]}}`, `{"c":{}}`, "c.durable_input_receipts: is missing"},
		{"optional member absent", `{a: {$optional: x}}`, `{}`, ""},
		{"optional member present", `{a: {$optional: x}}`, `{"a":"x"}`, ""},
		{"optional member present and wrong", `{a: {$optional: x}}`, `{"a":"y"}`, `a: want "x", got "y"`},
		{"one of", `{a: {$one_of: [x, y]}}`, `{"a":"y"}`, ""},
		{"none of", `{a: {$one_of: [x, {b: 1}]}}`, `{"a":"z"}`, `a: want one of "x" | {"b":1}, got "z"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := NewBindings().Match(tmpl(t, c.tmpl), mustJSON(t, c.actual))
			got := ""
			if m != nil {
				got = m.Error()
			}
			if got != c.why {
				t.Fatalf("got %q, want %q", got, c.why)
			}
		})
	}
}

func TestResolveGeneratesReadableThenUUIDs(t *testing.T) {
	ft := &FrameTemplate{Type: "runtime_prepare", ID: "${transfer}", Payload: map[string]Value{"step": "commit"}}
	b := NewBindings()
	raw, err := ResolveFrame(ft, b, "seed-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String("transfer"); got != DerivedUUID("seed-1", "transfer") {
		t.Fatalf("transfer = %q: a transfer ID must be generated as a UUID", got)
	}
	if !strings.Contains(string(raw), b.String("transfer")) {
		t.Fatalf("frame %s does not carry the generated ID", raw)
	}
	ft = &FrameTemplate{Type: "prompt_cancel", ID: "${run}", Payload: map[string]Value{"delivery_id": "cancel:${run}"}}
	b = NewBindings()
	if raw, err = ResolveFrame(ft, b, "s"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"id":"run","payload":{"delivery_id":"cancel:run"},"type":"prompt_cancel"}`, string(raw)); diff != "" {
		t.Fatalf("readable generation (-want +got):\n%s", diff)
	}
}

// $optional and $one_of hold templates: a placeholder in them binds when that template matches, and
// only then.
func TestTemplateMatchersBindOnlyWhenTheyMatch(t *testing.T) {
	b := NewBindings()
	tm := tmpl(t, `{h: {$optional: "${handle}"}, s: {$one_of: [{state: ready, rev: "${rev}"}, {state: expired, at: "${at}"}], reading: test-reading}}`)
	if m := b.Match(tm, mustJSON(t, `{"s":{"state":"expired","at":7}}`)); m != nil {
		t.Fatal(m)
	}
	if diff := cmp.Diff(map[string]string{"at": "7"}, b.Snapshot()); diff != "" {
		t.Fatalf("bindings (-want +got):\n%s", diff)
	}
	if m := b.Match(tm, mustJSON(t, `{"h":"h-1","s":{"state":"expired","at":8}}`)); m == nil {
		t.Fatal("a second alternative matched with another value than the one bound")
	}
	if m := b.Match(tm, mustJSON(t, `{"h":"h-1","s":{"state":"ready","rev":2}}`)); m != nil {
		t.Fatal(m)
	}
	if b.String("handle") != "h-1" {
		t.Fatalf("$optional did not bind: %v", b.Snapshot())
	}
	// A scripted writer sends the first alternative and the optional member.
	got, err := NewBindings().Resolve(tmpl(t, `{h: {$optional: x}, s: {$one_of: [a, b]}}`), readableValue, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"h": "x", "s": "a"}, got); diff != "" {
		t.Fatalf("resolved (-want +got):\n%s", diff)
	}
}

// $all keys a value by a placeholder and checks its form at once: it binds only when every
// template matches. $not says a value differs from a bound one and binds nothing.
func TestAllAndNotMatchers(t *testing.T) {
	const uuid = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
	all := tmpl(t, `{$all: ["${export}", {$regex: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', sample: `+uuid+`}], sample: `+uuid+`}`)
	b := NewBindings()
	if m := b.Match(all, "export-1"); m == nil {
		t.Fatal("$all took a value its $regex refuses")
	}
	if _, bound := b.Get("export"); bound {
		t.Fatalf("a failed $all bound its placeholder: %v", b.Snapshot())
	}
	if m := b.Match(all, uuid); m != nil {
		t.Fatal(m)
	}
	if b.String("export") != uuid {
		t.Fatalf("$all did not bind: %v", b.Snapshot())
	}
	if key, ok := Key(all); !ok || key != "${export}" {
		t.Fatalf("Key = %q, %v; want the first template, ${export}", key, ok)
	}

	not := tmpl(t, `{$all: ["${t2}", {$not: "${t1}"}]}`)
	b = NewBindings()
	if m := b.Match(not, "a"); m == nil {
		t.Fatal("$not of an unbound placeholder held: an unbound placeholder matches anything")
	}
	b.Bind("t1", "a")
	if m := b.Match(not, "a"); m == nil || !strings.Contains(m.Why, "want anything but") {
		t.Fatalf("$not took the value ${t1} bound: %v", m)
	}
	if m := b.Match(not, "b"); m != nil {
		t.Fatal(m)
	}
	if b.String("t2") != "b" {
		t.Fatalf("$all with $not did not bind ${t2}: %v", b.Snapshot())
	}

	// A scripted writer sends the sample and binds the placeholder from it; without a sample, the
	// first template resolved, which must pass the rest.
	b = NewBindings()
	got, err := b.Resolve(all, readableValue, nil)
	if err != nil || got != uuid || b.String("export") != uuid {
		t.Fatalf("resolved %v (%v), bindings %v: want the sample, bound to ${export}", got, err, b.Snapshot())
	}
	b = NewBindings()
	b.Bind("t1", "a")
	if got, err = b.Resolve(not, readableValue, nil); err != nil || got != "t2" {
		t.Fatalf("resolved %v (%v): want the generated ${t2}", got, err)
	}
	if _, err = NewBindings().Resolve(tmpl(t, `{$all: ["${x}", {$regex: '^[0-9]+$', sample: "1"}]}`), readableValue, nil); err == nil ||
		!strings.Contains(err.Error(), "give it a sample") {
		t.Fatalf("a generated value its $regex refuses was sent: %v", err)
	}
}
