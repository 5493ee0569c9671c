package yamlstrict

import (
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzWalker: the walker never panics; a document it does not refuse holds no alias, anchor, merge
// key or tag; every error has a line; and a value read without errors is JSON.
func FuzzWalker(f *testing.F) {
	for _, s := range []string{
		"id: a\ntitle: t\nsteps:\n  - core: {type: prompt_cancel, id: \"${run}\", payload: {delivery_id: {$regex: '^c', sample: c}}}\n",
		"seed: 42\nrules:\n  - name: a\n    match: {direction: runtime→core, payload: {x: [1, {y: null}], z: -1.5e3}}\n    delay: {for: 31s}\n",
		"a: &d 1\nb: *d\n", "a:\n  <<: {b: 1}\n", "a: !foo x\nb: !!str 3\n", "? [a]\n: 1\n",
		"a: [+1, .5, 01, 0x1F, .inf, 1e400, True, 2026-01-01, ~]\n", "a: 1\n---\n---\nb: [\n", "x:\n  a: 1\n  a: 2\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := New("fuzz.yaml", Lang{Files: "fuzz files", DurationExamples: "1s"})
		for doc := range w.Documents(data) {
			if doc.Refused {
				continue
			}
			if n := refusedUnder(doc.Root); n != nil {
				t.Fatalf("a document that was not refused holds %+v:\n%s", n, data)
			}
			before := len(w.Errs)
			v := w.Value(doc.Root, "doc", Values{Number: func(lit string) any { return json.Number(lit) }})
			if len(w.Errs) == before {
				if _, err := json.Marshal(v); err != nil {
					t.Fatalf("a value read without errors is not JSON: %v\n%s", err, data)
				}
			}
			w.Fields(doc.Root, "doc", "a", "b")
			w.Duration(doc.Root, "doc")
		}
		for _, e := range w.Errs {
			if e.Line < 1 || e.File != "fuzz.yaml" || e.Msg == "" {
				t.Fatalf("an error without its place or words: %q", e.Error())
			}
		}
	})
}

// refusedUnder returns a node under n that Check should have refused, or nil.
func refusedUnder(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode || n.Anchor != "" || n.Tag == "!!merge" || n.Style&yaml.TaggedStyle != 0 {
		return n
	}
	for _, c := range n.Content {
		if r := refusedUnder(c); r != nil {
			return r
		}
	}
	return nil
}
