package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/scenarios"
)

// ShardRun is one shard's run and the file it was read from, which every error names.
type ShardRun struct {
	File string
	Run  *Run
}

// Merge combines the runs of the N shards of one certification into the run a single machine
// would have made: the cases of all, the profile detected from all (as certify does), one
// verdict. It refuses, naming the file and the member: a run that is not a shard; shards that
// differ in catalog, selection, tool, wire version, target or declared profile, or in N; a shard
// given twice or missing; a scenario in two shards or in the wrong one; cases that are not the
// whole selection. The seed is the shards' common seed, or each shard's when they differ; the
// run starts with the first shard and finishes with the last.
func Merge(shards []ShardRun) (*Run, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("no shard to merge")
	}
	first := shards[0]
	for _, s := range shards {
		if s.Run.Shard == nil || s.Run.Shard.Index == 0 {
			return nil, fmt.Errorf("%s: not a shard's report (no shard member with an index): certified without --shard, or already merged", s.File)
		}
		if err := sameCertification(first, s); err != nil {
			return nil, err
		}
	}
	if err := everyShardOnce(shards); err != nil {
		return nil, err
	}
	cases, err := mergeCases(shards)
	if err != nil {
		return nil, err
	}
	ref := first.Run
	sh := *ref.Shard
	sh.Index = 0
	merged := &Run{Tool: ref.Tool, WireVersion: ref.WireVersion, Target: ref.Target, Seed: mergedSeed(shards),
		Selection: ref.Selection, Shard: &sh, SpecDirs: ref.SpecDirs, SpecBase: ref.SpecBase, Cases: cases}
	for _, s := range shards {
		if t := s.Run.Started; !t.IsZero() && (merged.Started.IsZero() || t.Before(merged.Started)) {
			merged.Started = t
		}
		if t := s.Run.Finished; t.After(merged.Finished) {
			merged.Finished = t
		}
	}
	merged.Profile = DetectProfile(merged.Cases)
	return merged, nil
}

// sameCertification refuses a shard of another certification than first's.
func sameCertification(first, s ShardRun) error {
	a, b := first.Run, s.Run
	for _, m := range []struct {
		member string
		x, y   any
	}{
		{"shard.count", a.Shard.Count, b.Shard.Count},
		{"shard.catalog_digest", a.Shard.Catalog, b.Shard.Catalog},
		{"shard.total", a.Shard.Total, b.Shard.Total},
		{"shard.selection_digest", a.Shard.Selection, b.Shard.Selection},
		{"tool", a.Tool, b.Tool},
		{"wire_version", a.WireVersion, b.WireVersion},
		{"target", a.Target, b.Target},
		{"selection", fmt.Sprintf("%+v", a.Selection), fmt.Sprintf("%+v", b.Selection)},
	} {
		if m.x != m.y {
			return fmt.Errorf("%s: %s is %#v, but %s has %#v: shards of different certifications are not merged", s.File, m.member, m.y, first.File, m.x)
		}
	}
	// A shard whose daemon never heartbeated declares nothing; two that did must agree.
	if declared(a.Profile) && declared(b.Profile) && describe(a.Profile) != describe(b.Profile) {
		return fmt.Errorf("%s: profile is %q, but %s has %q: the daemons declared different profiles", s.File, describe(b.Profile), first.File, describe(a.Profile))
	}
	if declared(a.Profile) && declared(b.Profile) && a.Profile.DaemonVersion != b.Profile.DaemonVersion {
		return fmt.Errorf("%s: profile.daemon_version is %q, but %s has %q: different daemons", s.File, b.Profile.DaemonVersion, first.File, a.Profile.DaemonVersion)
	}
	return nil
}

func declared(p Profile) bool { return p.Known || p.Problem != "" }

// everyShardOnce refuses an index out of 1..N, an index given twice and a missing one.
func everyShardOnce(shards []ShardRun) error {
	n := shards[0].Run.Shard.Count
	byIndex := map[int]string{}
	for _, s := range shards {
		k := s.Run.Shard.Index
		if k < 1 || k > n {
			return fmt.Errorf("%s: shard.index %d is not in 1..%d", s.File, k, n)
		}
		if other, ok := byIndex[k]; ok {
			return fmt.Errorf("%s and %s are both shard %d/%d", other, s.File, k, n)
		}
		byIndex[k] = s.File
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s missing: %d of %d shards given", strings.Join(missing, ", "), len(shards), n)
	}
	return nil
}

// mergeCases gathers every shard's cases, refusing a scenario present twice, one that another
// shard should have played, and a union that is not the whole selection.
func mergeCases(shards []ShardRun) ([]Case, error) {
	type key struct {
		id     string
		played scenarios.Side
	}
	from := map[key]ShardRun{}
	var cases []Case
	var ids []string
	for _, s := range shards {
		for _, c := range s.Run.Cases {
			k := key{c.Result.Scenario, c.Result.Played}
			if other, ok := from[k]; ok {
				return nil, fmt.Errorf("%s: scenario %s is also in %s: a scenario is played by one shard only", s.File, k.id, other.File)
			}
			from[k] = s
			cases = append(cases, c)
			ids = append(ids, k.id)
		}
	}
	sh := shards[0].Run.Shard
	if len(ids) != sh.Total || SelectionDigest(ids) != sh.Selection {
		return nil, fmt.Errorf("the shards hold %d scenarios, not the selection of %d they were split from (shard.selection_digest %s)", len(ids), sh.Total, sh.Selection)
	}
	slices.Sort(ids)
	for i, id := range ids {
		s := from[key{id, scenarios.SideCore}]
		if s.Run == nil { // a selection only ever plays Core; any other side was checked above
			continue
		}
		if want := ShardOf(i, sh.Count); want != s.Run.Shard.Index {
			return nil, fmt.Errorf("%s: scenario %s belongs to shard %d/%d, not %d/%d", s.File, id, want, sh.Count, s.Run.Shard.Index, sh.Count)
		}
	}
	return cases, nil
}

// mergedSeed is the shards' seed when they share one, else "K/N: seed" for each, in shard order.
func mergedSeed(shards []ShardRun) string {
	sorted := slices.Clone(shards)
	slices.SortFunc(sorted, func(a, b ShardRun) int { return a.Run.Shard.Index - b.Run.Shard.Index })
	var seeds []string
	same := true
	for _, s := range sorted {
		same = same && s.Run.Seed == sorted[0].Run.Seed
		seeds = append(seeds, fmt.Sprintf("%d/%d: %s", s.Run.Shard.Index, s.Run.Shard.Count, s.Run.Seed))
	}
	if same {
		return sorted[0].Run.Seed
	}
	return strings.Join(seeds, ", ")
}
