//go:build wirecheck_mutants

package mutants_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/scenarios"
)

// mutant is a single-bug variant as the matrix sees it, of either side.
type mutant struct {
	point, rule, description string
	activate                 func() (restore func())
}

// A kill is a scenario that passes against the reference and does not pass against the mutant.
type kill struct {
	mutant
	killers []string // scenario (verdict)
}

// side is how one reference side's scenarios are played: play a set side by side, replay one alone.
type side struct {
	play   func([]*scenarios.Scenario) []*scenarios.Result
	replay func(*scenarios.Scenario) *scenarios.Result
}

// confirmed plays scs and plays again, alone, every scenario that did not pass beside the others,
// keeping the second result: a verdict that comes only from the load of a parallel run (a short
// real-time window missed) is neither a kill nor a baseline failure.
func (s side) confirmed(scs []*scenarios.Scenario) []*scenarios.Result {
	results := s.play(scs)
	for i, r := range results {
		if r.Verdict != scenarios.Pass {
			results[i] = s.replay(scs[i])
		}
	}
	return results
}

// judge plays scs against each mutant in turn and fails the test for every survivor: a survivor is
// never whitelisted (write the scenario, or take the mutant out and report it).
func judge(t *testing.T, s side, scs []*scenarios.Scenario, ms []mutant) []kill {
	t.Helper()
	var matrix []kill
	for _, m := range ms {
		restore := m.activate()
		results := s.confirmed(scs)
		restore()
		k := kill{mutant: m}
		for _, r := range results {
			if r.Verdict != scenarios.Pass {
				k.killers = append(k.killers, fmt.Sprintf("%s (%s)", r.Scenario, r.Verdict))
			}
		}
		slices.Sort(k.killers)
		matrix = append(matrix, k)
		if len(k.killers) == 0 {
			t.Errorf("mutant %s (%s) survived: %s", m.point, m.rule, m.description)
		}
	}
	return matrix
}

// writeRows renders the matrix as a Markdown table.
func writeRows(b *strings.Builder, matrix []kill) {
	fmt.Fprintf(b, "| mutant | rule | breaks | verdict | killed by |\n| --- | --- | --- | --- | --- |\n")
	for _, k := range matrix {
		verdict := "killed"
		if len(k.killers) == 0 {
			verdict = "**survived**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", k.point, k.rule, k.description, verdict, strings.Join(k.killers, "<br>"))
	}
}
