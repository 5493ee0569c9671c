package certify

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Check finds, before the first scenario, what would make a run meaningless or waste it: a
// target that cannot launch a daemon (its command is not an executable, its image is not in the
// engine), a selection that is empty, a Run or Skip pattern or a label of the label filter that
// matches no scenario (likely a typo; the error lists the labels there are), a known-failing
// entry that matches no scenario, and negative bounds. Every problem is named at once. Run and
// Test check first.
func Check(ctx context.Context, cfg Config) error {
	_, err := check(ctx, cfg)
	return err
}

func check(ctx context.Context, cfg Config) (Selection, error) {
	sel, cat, err := selectFrom(cfg)
	if err != nil {
		return sel, err
	}
	var ids []string
	labels := map[string]string{} // lower case → as written
	for _, sc := range runner.Select(cat, runner.Options{}) {
		ids = append(ids, sc.ID)
		for _, l := range sc.Labels {
			labels[strings.ToLower(l)] = l
		}
	}
	var problems []error
	selectionProblem := false // then the labels there are help
	bad := func(format string, a ...any) { problems = append(problems, fmt.Errorf(format, a...)) }
	for _, set := range []struct {
		what     string
		patterns []string
	}{{"run pattern", cfg.Run}, {"skip pattern", cfg.Skip}} {
		for _, p := range set.patterns {
			if !slices.ContainsFunc(ids, func(id string) bool { return scenarios.MatchID(p, id) }) {
				bad("%s %q matches no scenario (`wirecheck list` shows their ids)", set.what, p)
				selectionProblem = true
			}
		}
	}
	for _, p := range cfg.KnownFailing.Unmatched(ids) {
		bad("known-failing entry %q matches no scenario (`wirecheck list` shows their ids)", p)
	}
	for _, l := range unknownLabels(cfg.LabelFilter, labels) {
		bad("label filter %q: %s", cfg.LabelFilter, l)
		selectionProblem = true
	}
	selected := len(sel.Scenarios)
	if sel.Shard != nil {
		selected = sel.Shard.Total // an empty share of a selection is refused below, as such
	}
	if len(problems) == 0 && selected == 0 {
		bad("no scenario is selected: every one is left out by the run and skip patterns and the label filter together")
		selectionProblem = true
	}
	if sh := sel.Shard; sh != nil && len(problems) == 0 && sh.Total > 0 && len(sel.Scenarios) == 0 {
		noun := "scenarios"
		if sh.Total == 1 {
			noun = "scenario"
		}
		bad("shard %d/%d is empty: the selection has only %d %s, so split it in at most %d", sh.Index, sh.Count, sh.Total, noun, sh.Total)
	}
	if selectionProblem {
		bad("the labels are: %s", strings.Join(slices.Sorted(maps.Values(labels)), ", "))
	}
	if cfg.Parallel < 0 {
		bad("parallel is %d: at least one scenario must run at a time", cfg.Parallel)
	}
	if cfg.Timeout < 0 || cfg.Step < 0 {
		bad("a negative bound (timeout %v, step %v)", cfg.Timeout, cfg.Step)
	}
	if c, ok := cfg.Target.(runner.Checker); ok {
		if err := c.Check(ctx); err != nil {
			problems = append(problems, err)
		}
	}
	return sel, errors.Join(problems...)
}

// unknownLabels says, for each label the filter names that no scenario carries and each regular
// expression that matches none, what is wrong. Set operations (`key: consistsOf {…}`) are left to
// the filter itself.
func unknownLabels(filter string, labels map[string]string) []string {
	if strings.Contains(filter, ": ") {
		return nil
	}
	var out []string
	rest := filter
	for {
		before, re, found := strings.Cut(rest, "/")
		for _, l := range strings.FieldsFunc(before, func(r rune) bool { return strings.ContainsRune("&|!,()", r) }) {
			if l = strings.TrimSpace(l); l != "" && labels[strings.ToLower(l)] == "" {
				out = append(out, fmt.Sprintf("no scenario has the label %q", l))
			}
		}
		if !found {
			return out
		}
		re, rest, _ = strings.Cut(re, "/")
		if !regexpMatchesAny(re, labels) {
			out = append(out, fmt.Sprintf("/%s/ matches no label", re))
		}
	}
}

func regexpMatchesAny(expr string, labels map[string]string) bool {
	re, err := regexp.Compile(expr)
	if err != nil {
		return true // the filter's own parser has said so
	}
	for _, l := range labels {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}
