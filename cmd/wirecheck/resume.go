package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/certify"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// resumption is an interrupted certification being continued: what it finished, and how to
// combine it with what this run plays.
type resumption struct {
	prior    *reports.Run
	finished map[string]reports.Case // by scenario id: every case with a verdict (a harness error is played again)
	order    []string                // the whole selection, in the order a single run reports it
}

// resume reads the bundle of an interrupted certification and fits cfg to continue it: the same
// seed and selection, the same target and catalog, and only the scenarios it did not finish.
func resume(dir string, cfg *certify.Config, f *certifyFlags) (*resumption, error) {
	prior, err := reports.ReadBundle(dir)
	if err != nil {
		return nil, fmt.Errorf("--resume %s: %w", dir, err)
	}
	var problems []string
	if prior.Shard != nil {
		problems = append(problems, "it is one shard of a run: resume each shard with its own --shard and bundle")
	}
	if f.seed != "" && f.seed != prior.Seed {
		problems = append(problems, fmt.Sprintf("--seed %s: the run being resumed played seed %s (leave --seed out)", f.seed, prior.Seed))
	}
	sel := prior.Selection
	if (len(f.sel.run) > 0 || len(f.sel.skip) > 0 || f.sel.labelFilter != "") &&
		(!slices.Equal(f.sel.run, sel.Run) || !slices.Equal(f.sel.skip, sel.Skip) || f.sel.labelFilter != sel.Labels) {
		problems = append(problems, "--run, --skip and --label-filter: the run being resumed chose its scenarios (leave them out)")
	}
	if prior.CatalogDigest != "" && cfg.CatalogDigest != prior.CatalogDigest {
		problems = append(problems, fmt.Sprintf("its catalog (%s) is not this one (%s)", shortDigest(prior.CatalogDigest), shortDigest(cfg.CatalogDigest)))
	}
	if d := cfg.Target.Describe(); d != prior.Target {
		problems = append(problems, fmt.Sprintf("it certified %s, not %s", prior.Target, d))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("--resume %s cannot continue that run:\n%s", dir, strings.Join(problems, "\n"))
	}
	cfg.Seed, cfg.Run, cfg.Skip, cfg.LabelFilter = prior.Seed, sel.Run, sel.Skip, sel.Labels
	whole, err := certify.Select(*cfg)
	if err != nil {
		return nil, fmt.Errorf("--resume %s: %w", dir, err)
	}
	r := &resumption{prior: prior, finished: map[string]reports.Case{}}
	for _, sc := range whole.Scenarios {
		r.order = append(r.order, sc.ID)
	}
	for _, c := range prior.Cases {
		if c.Result != nil && c.Result.Verdict != scenarios.HarnessError && slices.Contains(r.order, c.Result.Scenario) {
			r.finished[c.Result.Scenario] = c
		}
	}
	// Exactly the unfinished ones: a Skip pattern would also take an id's subtree.
	var left []string
	for _, id := range r.order {
		if _, done := r.finished[id]; !done {
			left = append(left, id)
		}
	}
	if len(left) == 0 {
		return nil, fmt.Errorf("--resume %s: every selected scenario already has its verdict; nothing to continue", dir)
	}
	cfg.Run, cfg.Skip, cfg.LabelFilter = left, nil, ""
	return r, nil
}

// combine is the run a single, uninterrupted certification would have reported: the prior cases
// and this run's, in selection order, under the prior selection and start.
func (r *resumption) combine(run *reports.Run) *reports.Run {
	played := map[string]reports.Case{}
	for _, c := range run.Cases {
		played[c.Result.Scenario] = c
	}
	out := *run
	out.Selection, out.Started, out.Cases = r.prior.Selection, r.prior.Started, nil
	if !out.Profile.Known {
		out.Profile = r.prior.Profile
	}
	for _, id := range r.order {
		if c, ok := r.finished[id]; ok {
			out.Cases = append(out.Cases, c)
		} else if c, ok := played[id]; ok {
			out.Cases = append(out.Cases, c)
		}
	}
	return &out
}

func shortDigest(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}
