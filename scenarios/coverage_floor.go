package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// CoverageFloor is the committed minimum of checked clauses per family (rules/coverage-floor.txt):
// against a Runtime and against a Core. A clause is checked on a side when a mutant of that side
// that breaks it was killed by a scenario naming it (rules/kills).
type CoverageFloor map[string][2]int

// ParseCoverageFloor reads lines "FAMILY runtime core"; # starts a comment.
func ParseCoverageFloor(text string) (CoverageFloor, error) {
	floor := CoverageFloor{}
	for i, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 || familyOf(f[0]) == nil {
			return nil, fmt.Errorf("line %d: want FAMILY runtime core (clauses checked), got %q", i+1, line)
		}
		var n [2]int
		for j := range n {
			v, err := strconv.Atoi(f[j+1])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("line %d: %q is not a count", i+1, f[j+1])
			}
			n[j] = v
		}
		floor[f[0]] = n
	}
	return floor, nil
}

// Below lists, one line each, the counts of cov that fall under the floor.
func (floor CoverageFloor) Below(cov Coverage) []string {
	var out []string
	for _, fc := range cov.Families {
		want := floor[fc.Prefix]
		got := [2]int{fc.ClauseCounts.RuntimeChecked, fc.ClauseCounts.CoreChecked}
		for i, what := range []string{"clauses checked against a Runtime", "clauses checked against a Core"} {
			if got[i] < want[i] {
				out = append(out, fmt.Sprintf("%s: %d %s, under the floor of %d", fc.Prefix, got[i], what, want[i]))
			}
		}
	}
	return out
}

// Raised returns the floor lifted to cov wherever cov is higher; it never lowers a count.
func (floor CoverageFloor) Raised(cov Coverage) CoverageFloor {
	out := CoverageFloor{}
	for _, fc := range cov.Families {
		n := floor[fc.Prefix]
		n[0], n[1] = max(n[0], fc.ClauseCounts.RuntimeChecked), max(n[1], fc.ClauseCounts.CoreChecked)
		out[fc.Prefix] = n
	}
	return out
}

// Format renders the floor as rules/coverage-floor.txt holds it.
func (floor CoverageFloor) Format() string {
	var b strings.Builder
	b.WriteString("# Clauses checked per family (a mutant breaking the clause killed by a scenario naming it):\n")
	b.WriteString("# against a Runtime, against a Core. It may only rise:\n")
	b.WriteString("# go test ./scenarios -run CoverageFloor -raise-coverage-floor (see rules/README.md).\n")
	for _, f := range RuleFamilies {
		n := floor[f.Prefix]
		fmt.Fprintf(&b, "%s %d %d\n", f.Prefix, n[0], n[1])
	}
	return b.String()
}
