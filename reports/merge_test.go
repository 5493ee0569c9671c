package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// readBack is the run as `wirecheck merge` sees it: written as JSON, read again.
func readBack(run *reports.Run) *reports.Run {
	var b bytes.Buffer
	Expect(reports.WriteJSON(&b, run)).To(Succeed())
	back, err := reports.ReadJSON(&b)
	Expect(err).NotTo(HaveOccurred())
	return back
}

// renderAll is every report of run, by name.
func renderAll(run *reports.Run) map[string]string {
	out := map[string]string{}
	for name, write := range map[string]func(io.Writer, *reports.Run) error{
		"json": reports.WriteJSON, "junit": reports.WriteJUnit, "markdown": reports.WriteMarkdown, "html": reports.WriteHTML,
	} {
		var b bytes.Buffer
		Expect(write(&b, run)).To(Succeed())
		out[name] = b.String()
	}
	return out
}

// split deals run's cases into n shard runs as certify --shard does, each read back from JSON.
func split(run *reports.Run, n int) []reports.ShardRun {
	var ids []string
	for _, c := range run.Cases {
		ids = append(ids, c.Result.Scenario)
	}
	slices.Sort(ids)
	shardOf := map[string]int{}
	for i, id := range ids {
		shardOf[id] = reports.ShardOf(i, n)
	}
	var out []reports.ShardRun
	for k := 1; k <= n; k++ {
		sh := *run
		sh.Shard = &reports.Shard{Index: k, Count: n, Total: len(ids), Catalog: "catalog-digest", Selection: reports.SelectionDigest(ids)}
		sh.Cases = nil
		for _, c := range run.Cases {
			if shardOf[c.Result.Scenario] == k {
				sh.Cases = append(sh.Cases, c)
			}
		}
		sh.Profile = reports.DetectProfile(sh.Cases)
		out = append(out, reports.ShardRun{File: fmt.Sprintf("shard-%d/report.json", k), Run: readBack(&sh)})
	}
	return out
}

// withoutShard is the JSON report without its shard member.
func withoutShard(doc string) map[string]any {
	var m map[string]any
	Expect(json.Unmarshal([]byte(doc), &m)).To(Succeed())
	delete(m, "shard")
	return m
}

var _ = Describe("reading a JSON report back", Label("merge"), func() {
	It("renders every report as the run it was written from did", func() {
		for _, run := range []*reports.Run{handRun(), mixedRun()} {
			want, got := renderAll(run), renderAll(readBack(run))
			for name := range want {
				Expect(cmp.Diff(want[name], got[name])).To(BeEmpty(), name)
			}
		}
	})

	It("refuses a report whose verdict does not follow from its cases", func() {
		var b bytes.Buffer
		Expect(reports.WriteJSON(&b, handRun())).To(Succeed())
		edited := strings.Replace(b.String(), `"verdict": "fail"`, `"verdict": "pass"`, 1)
		_, err := reports.ReadJSON(strings.NewReader(edited))
		Expect(err).To(MatchError(ContainSubstring("profile_line")))
		_, err = reports.ReadJSON(strings.NewReader(`{"schema_version": "2"}`))
		Expect(err).To(MatchError(ContainSubstring(`schema_version is "2"`)))
	})

	It("refuses a case whose start is not a time, naming the case and the member", func() {
		run := handRun()
		run.Cases[0].Result.Started = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		var b bytes.Buffer
		Expect(reports.WriteJSON(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring(`"started": "2026-12-02T10:00:00Z"`))
		edited := strings.Replace(b.String(), `"started": "2026-12-02T10:00:00Z"`, `"started": "yesterday"`, 1)
		_, err := reports.ReadJSON(strings.NewReader(edited))
		Expect(err).To(MatchError(MatchRegexp(`^cases\[\d+\] \(` + run.Cases[0].Result.Scenario + `\): started "yesterday" is not an RFC 3339 time$`)))
	})
})

var _ = Describe("merging shards", Label("merge"), func() {
	It("gives the report of the whole run, with one verdict", func() {
		for _, run := range []*reports.Run{handRun(), certifiedRun()} {
			shards := split(run, 3)
			slices.Reverse(shards) // the order given does not matter
			merged, err := reports.Merge(shards)
			Expect(err).NotTo(HaveOccurred())
			Expect(merged.ProfileLine()).To(Equal(run.ProfileLine()))
			Expect(merged.ExitCode()).To(Equal(run.ExitCode()))
			Expect(merged.Shard).To(Equal(&reports.Shard{Index: 0, Count: 3, Total: len(run.Cases), Catalog: "catalog-digest",
				Selection: shards[0].Run.Shard.Selection}))
			want, got := renderAll(run), renderAll(merged)
			Expect(cmp.Diff(withoutShard(want["json"]), withoutShard(got["json"]))).To(BeEmpty())
		}
	})

	It("lists each shard's seed when they differ", func() {
		shards := split(handRun(), 2)
		shards[1].Run.Seed = "other"
		merged, err := reports.Merge(shards)
		Expect(err).NotTo(HaveOccurred())
		Expect(merged.Seed).To(Equal("1/2: 42, 2/2: other"))
	})

	DescribeTable("refuses what is not one certification, naming the file and the member",
		func(change func([]reports.ShardRun) []reports.ShardRun, want string) {
			_, err := reports.Merge(change(split(handRun(), 3)))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("a different N", func(s []reports.ShardRun) []reports.ShardRun { s[1].Run.Shard.Count = 4; return s },
			"shard-2/report.json: shard.count is 4, but shard-1/report.json has 3"),
		Entry("a different catalog", func(s []reports.ShardRun) []reports.ShardRun { s[2].Run.Shard.Catalog = "x"; return s },
			"shard-3/report.json: shard.catalog_digest"),
		Entry("a different selection", func(s []reports.ShardRun) []reports.ShardRun { s[2].Run.Selection.Labels = "x"; return s },
			"shard-3/report.json: selection"),
		Entry("a different target", func(s []reports.ShardRun) []reports.ShardRun { s[1].Run.Target = "image: other"; return s },
			"shard-2/report.json: target"),
		Entry("a different profile", func(s []reports.ShardRun) []reports.ShardRun {
			s[1].Run.Profile = reports.ProfileFromHeartbeat([]byte(heartbeatFrame("preparation")))
			return s
		}, "shard-2/report.json: profile is"),
		Entry("a missing shard", func(s []reports.ShardRun) []reports.ShardRun { return s[:2] }, "shard 3/3 missing"),
		Entry("a shard twice", func(s []reports.ShardRun) []reports.ShardRun {
			return append(s, reports.ShardRun{File: "again/report.json", Run: s[0].Run})
		}, "shard-1/report.json and again/report.json are both shard 1/3"),
		Entry("an index out of range", func(s []reports.ShardRun) []reports.ShardRun { s[2].Run.Shard.Index = 4; return s },
			"shard-3/report.json: shard.index 4 is not in 1..3"),
		Entry("not a shard", func(s []reports.ShardRun) []reports.ShardRun { s[0].Run.Shard = nil; return s },
			"shard-1/report.json: not a shard's report"),
		Entry("a scenario twice", func(s []reports.ShardRun) []reports.ShardRun {
			s[1].Run.Cases = append(s[1].Run.Cases, s[0].Run.Cases[0])
			return s
		}, "shard-2/report.json: scenario "+firstID()+" is also in shard-1/report.json"),
		Entry("a scenario in the wrong shard", func(s []reports.ShardRun) []reports.ShardRun {
			s[1].Run.Cases = append(s[1].Run.Cases, s[0].Run.Cases[0])
			s[0].Run.Cases = s[0].Run.Cases[1:]
			return s
		}, "shard-2/report.json: scenario "+firstID()+" belongs to shard 1/3, not 2/3"),
		Entry("a scenario left out", func(s []reports.ShardRun) []reports.ShardRun { s[0].Run.Cases = s[0].Run.Cases[1:]; return s },
			"the shards hold 7 scenarios, not the selection of 8"),
	)
})

// certifiedRun is a run as certify makes it: real cases, each scenario once, Core played.
func certifiedRun() *reports.Run {
	run := realRun()
	seen := map[string]bool{}
	run.Cases = slices.DeleteFunc(slices.Clone(run.Cases), func(c reports.Case) bool {
		drop := seen[c.Result.Scenario] || c.Result.Played != scenarios.SideCore
		seen[c.Result.Scenario] = true
		return drop
	})
	run.Profile = reports.DetectProfile(run.Cases)
	return run
}

// firstID is the first id of handRun in id order: shard 1's first case.
func firstID() string {
	var ids []string
	for _, c := range handRun().Cases {
		ids = append(ids, c.Result.Scenario)
	}
	return slices.Min(ids)
}
