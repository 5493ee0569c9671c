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
