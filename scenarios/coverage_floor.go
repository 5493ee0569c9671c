package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// CoverageFloor is the committed minimum of checked rules per family (rules/coverage-floor.txt):
// overall, against a Runtime, against a Core.
type CoverageFloor map[string][3]int

// ParseCoverageFloor reads lines "FAMILY checked runtime core"; # starts a comment.
func ParseCoverageFloor(text string) (CoverageFloor, error) {
	floor := CoverageFloor{}
	for i, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 || familyOf(f[0]) == nil {
			return nil, fmt.Errorf("line %d: want FAMILY checked runtime core, got %q", i+1, line)
		}
		var n [3]int
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
		got := [3]int{fc.Checked, fc.RuntimeChecked, fc.CoreChecked}
		for i, what := range []string{"rules checked", "rules checked against a Runtime", "rules checked against a Core"} {
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
		n[0], n[1], n[2] = max(n[0], fc.Checked), max(n[1], fc.RuntimeChecked), max(n[2], fc.CoreChecked)
		out[fc.Prefix] = n
	}
	return out
}

// Format renders the floor as rules/coverage-floor.txt holds it.
func (floor CoverageFloor) Format() string {
	var b strings.Builder
	b.WriteString("# Rules checked per family: overall, against a Runtime, against a Core. It may only rise:\n")
	b.WriteString("# go test ./scenarios -run CoverageFloor -raise-coverage-floor (see rules/README.md).\n")
	for _, f := range RuleFamilies {
		n := floor[f.Prefix]
		fmt.Fprintf(&b, "%s %d %d %d\n", f.Prefix, n[0], n[1], n[2])
	}
	return b.String()
}
