package reports_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/reports"
)

// FuzzReadJSON holds the report decoder (merge, resume and verify read every shard's report.json
// with it) to two things on any input: it never panics, and a report it accepts is one it would
// write again: written back with WriteJSON, it reads as the same bytes.
func FuzzReadJSON(f *testing.F) {
	// The hand-made run only: the played fixtures' reports are megabytes, and a fuzzer mutating
	// them runs an input a second.
	for _, run := range []*reports.Run{handRun()} {
		var b bytes.Buffer
		if err := reports.WriteJSON(&b, run); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte(`{"schema_version": "2"}`))
	f.Add([]byte(`{"cases": [{"id": ""}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := reports.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if err := reports.WriteJSON(&once, run); err != nil {
			t.Fatalf("a report ReadJSON took cannot be written again: %v", err)
		}
		again, err := reports.ReadJSON(bytes.NewReader(once.Bytes()))
		if err != nil {
			t.Fatalf("a report written from one ReadJSON took is refused: %v\n%s", err, once.Bytes())
		}
		if err := reports.WriteJSON(&twice, again); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(once.String(), twice.String()); d != "" {
			t.Fatalf("written, read and written again, the report changed (-first +second):\n%s", d)
		}
	})
}
