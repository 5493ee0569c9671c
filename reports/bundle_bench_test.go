package reports_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/wirecheck/wirecheck/reports"
)

// BenchmarkWriteBundle is the whole bundle of a run of real results: every report, and (since
// the journal) one hash-chained journal per case that the reports are rendered from.
func BenchmarkWriteBundle(b *testing.B) {
	run := mixedRun()
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		i++
		if err := reports.WriteBundle(filepath.Join(dir, fmt.Sprint(i)), run); err != nil {
			b.Fatal(err)
		}
	}
}
