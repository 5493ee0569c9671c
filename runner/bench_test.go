package runner

import (
	"context"
	"fmt"
	"testing"

	"github.com/wirecheck/wirecheck/scenarios"
)

// BenchmarkGateBatch plays the gate's in-process pairings (self-check, reference Runtime,
// reference Core) over the catalog repeated 1, 2 and 4 times, in one batch as the gate does. The
// time per play (ms/play) should stay flat as the catalog grows: a bigger catalog costs more
// plays, not dearer ones. Run with -benchtime=1x; docs/performance.md has the baseline.
func BenchmarkGateBatch(b *testing.B) {
	cat, err := scenarios.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	pairings := []Pairing{SelfCheckPairing(), InProcessPairing(), ReferenceCorePairing()}
	for _, copies := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("catalog=x%d", copies), func(b *testing.B) {
			var jobs []Job
			for c := range copies {
				for _, p := range pairings {
					for _, sc := range cat.Scenarios {
						if !p.Covers(sc) || p.Skip(sc) != "" {
							continue
						}
						jobs = append(jobs, Job{Key: fmt.Sprintf("%d/%s/%s", c, p.Name, sc.ID),
							Play: func(ctx context.Context) *scenarios.Result { return p.Play(ctx, sc, "bench") }})
					}
				}
			}
			for b.Loop() {
				for _, r := range StartBatch(context.Background(), jobs, 8, nil).Results() {
					if r == nil || r.Verdict != scenarios.Pass {
						b.Fatalf("a play did not pass:\n%v", r)
					}
				}
			}
			b.ReportMetric(float64(len(jobs)), "plays")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*len(jobs)), "ms/play")
		})
	}
}
