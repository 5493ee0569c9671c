//go:build wirecheck_mutants

package mutants

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/scenarios"
)

// MonitorRows measures which mutants the passive monitor catches and writes their rows of
// docs/monitor-mutants.md: each mutant plays the scenarios that killers lists for it (the whole
// of scs when it lists none yet) through watch, which returns the alarms each scenario raised
// against the mutated side, and is caught when there is one. It returns how many were caught.
func MonitorRows(b *strings.Builder, ms []Mutant, scs []*scenarios.Scenario, killers map[string][]string,
	watch func([]*scenarios.Scenario) map[string][]monitor.Alarm) int {
	b.WriteString("| mutant | rule | caught | first alarm (scenario: alarm) |\n| --- | --- | --- | --- |\n")
	caught := 0
	for _, m := range ms {
		// The scenarios whose verdicts the mutant changed are where its bug shows on the wire.
		played := scs
		if ids := killers[m.Point]; len(ids) > 0 {
			played = slices.DeleteFunc(slices.Clone(scs), func(sc *scenarios.Scenario) bool { return !slices.Contains(ids, sc.ID) })
		}
		restore := m.Activate()
		alarms := watch(played)
		restore()
		ids := make([]string, 0, len(alarms))
		for id := range alarms {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		if len(ids) == 0 {
			fmt.Fprintf(b, "| %s | %s | no | |\n", m.Point, m.Clause)
			continue
		}
		caught++
		a := alarms[ids[0]][0]
		fmt.Fprintf(b, "| %s | %s | yes (%d scenarios) | %s: %s %s |\n", m.Point, m.Clause, len(ids), ids[0], a.Rule,
			strings.ReplaceAll(a.Detail, "|", "\\|"))
	}
	return caught
}
