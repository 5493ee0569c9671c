package script

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/scenarios"
)

func decoded(t *testing.T, s string) any {
	t.Helper()
	v, err := scenarios.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A frame diff reads as JSON: quoted strings, bare numbers, members in sorted order, -expected
// +actual; nothing of Go's notation (map[string]any{, int64(2)).
func TestDiffIsInJSONNotation(t *testing.T) {
	want := map[string]any{"type": "preparation_status", "id": "prepare",
		"payload": map[string]any{"revision": int64(2), "state": "ready", "handle": "<any string>"}}
	got := decoded(t, `{"type":"preparation_status","id":"prepare","payload":{"state":"ready","revision":3,"handle":"h-1","extra":true}}`)
	d := Diff(want, got)
	const expected = `  {
    "id": "prepare",
    "payload": {
-     "handle": "<any string>",
-     "revision": 2,
+     "extra": true,
+     "handle": "h-1",
+     "revision": 3,
      "state": "ready"
    },
    "type": "preparation_status"
  }
`
	if d != expected {
		t.Fatalf("diff:\n%s\nwant:\n%s", d, expected)
	}
	for _, goNotation := range []string{"map[string]any{", "int64(", "float64(", "json.Number"} {
		if strings.Contains(d, goNotation) {
			t.Errorf("the diff shows Go notation %q", goNotation)
		}
	}
	if again := Diff(want, decoded(t, `{"id":"prepare","type":"preparation_status","payload":{"extra":true,"handle":"h-1","revision":3,"state":"ready"}}`)); again != d {
		t.Errorf("member order changed the diff:\n%s", again)
	}
}

// A member that differs only by the comma after it (it became the last) is unchanged; equal frames
// have no diff; an expected silence shows the whole frame received as added.
func TestDiffEdges(t *testing.T) {
	if d := Diff(map[string]any{"a": 1, "b": 2}, map[string]any{"a": 1}); d != "  {\n    \"a\": 1\n-   \"b\": 2\n  }\n" {
		t.Errorf("a missing last member:\n%s", d)
	}
	if d := Diff(map[string]any{"a": 1}, decoded(t, `{"a":1}`)); d != "" {
		t.Errorf("equal frames: %q", d)
	}
	if d := Diff(nil, decoded(t, `{"type":"done","id":"r"}`)); d != "+ {\n+   \"id\": \"r\",\n+   \"type\": \"done\"\n+ }\n" {
		t.Errorf("silence:\n%s", d)
	}
	if d := Diff(map[string]any{"type": "done"}, "<html>not json"); d != "- {\n-   \"type\": \"done\"\n- }\n+ \"<html>not json\"\n" {
		t.Errorf("bytes that are not JSON:\n%s", d)
	}
}

// A long frame keeps a few lines of context around each change and elides the rest, the same way
// every time.
func TestDiffElidesLongUnchangedRuns(t *testing.T) {
	want, got := map[string]any{}, map[string]any{}
	for i := range 60 {
		k := fmt.Sprintf("k%02d", i)
		want[k], got[k] = i, i
	}
	got["k30"] = "changed"
	d := Diff(want, got)
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) != 10 || lines[0] != "  …" || lines[4] != `-   "k30": 30,` || lines[5] != `+   "k30": "changed",` || lines[9] != "  …" {
		t.Fatalf("elided diff:\n%s", d)
	}
	if Diff(want, got) != d {
		t.Fatal("not deterministic")
	}
}
