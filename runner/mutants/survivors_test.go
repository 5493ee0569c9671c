//go:build wirecheck_mutants

package mutants

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/scenarios"
)

var registry = []Mutant{{Point: "a", Clause: "AD-01.2"}, {Point: "b", Clause: "CN-14"}, {Point: "c", Clause: "CN-14"}}

// The survivors file lists only registered mutants of the side, each with its clause and a reason.
func TestParseSurvivors(t *testing.T) {
	text := "# comment\nruntime\ta\tAD-01.2\twritten before its scenario\ncore\tz\tCN-01\tthe other side's\n"
	got, err := parseSurvivors(text, "runtime", registry)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Survivors{"a": "written before its scenario"}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	bad := "runtime\tnope\tAD-01.2\twhy\nruntime\ta\tAD-01.1\twhy\nruntime\tb\tCN-14\t \nruntime\tc\tCN-14\n"
	_, err = parseSurvivors(bad, "runtime", registry)
	want := []string{
		`runner/mutants/survivors:1: runtime has no mutant "nope": the file lists only registered mutants`,
		"runner/mutants/survivors:2: mutant a breaks AD-01.2, not AD-01.1",
		"runner/mutants/survivors:3: b is listed without a reason",
		"runner/mutants/survivors:4: want 4 tab-separated columns (side, point, clause, why), got 3",
	}
	if err == nil {
		t.Fatal("no error")
	}
	if d := cmp.Diff(want, strings.Split(err.Error(), "\n")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// The score counts per family, in the spec's order, and in all; a kill by a scenario that does not
// name the clause is a kill, but not a named one.
func TestScore(t *testing.T) {
	got := Score([]Kill{
		{Mutant: registry[0], Confirmed: "x (fail)", Names: true},
		{Mutant: registry[1], Confirmed: "y (fail)"},
		{Mutant: registry[2]},
	})
	want := []FamilyScore{
		{Family: "CN", Mutants: 2, Killed: 1, Survivors: []string{"c"}},
		{Family: "AD", Mutants: 1, Killed: 1, Named: 1},
		{Family: "all", Mutants: 3, Killed: 2, Named: 1, Survivors: []string{"c"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// The committed kill record must list the registry's mutants with their clauses, and every check
// it claims must hold in the run; a kill by a scenario not naming the clause claims none.
func TestCompareKillRecord(t *testing.T) {
	record := []scenarios.Kill{
		{Point: "a", Clause: "AD-01.2", Killer: "s", Names: true},
		{Point: "b", Clause: "CN-14.1", Killer: "s"},
		{Point: "gone", Clause: "CN-14"},
	}
	matrix := []Kill{
		{Mutant: registry[0], Confirmed: "s (fail)", Names: false},
		{Mutant: registry[1]},
		{Mutant: registry[2], Confirmed: "t (fail)", Names: true},
	}
	want := []string{
		"the kill record counts AD-01.2 checked by mutant a (killed by s, which names it); this run did not kill it with a scenario naming it (s (fail))",
		"the kill record says mutant b breaks CN-14.1; the registry says CN-14: run make mutants UPDATE=1",
		"the kill record lists mutant gone, which the registry no longer has: run make mutants UPDATE=1",
		"mutant c (CN-14) is not in the kill record: run make mutants UPDATE=1",
	}
	if d := cmp.Diff(want, compareKillRecord(record, matrix)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
