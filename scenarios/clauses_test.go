package scenarios

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// Every rule has its clauses, numbered from 1, each binding a side its rule binds.
func TestEmbeddedClausesLoad(t *testing.T) {
	all := Clauses()
	rules := Rules()
	if len(all) < len(rules) {
		t.Fatalf("%d clauses for %d rules", len(all), len(rules))
	}
	for _, r := range rules {
		cs := ClausesOf(r.ID)
		if len(cs) == 0 || cs[0].ID != r.ID+".1" {
			t.Errorf("%s: clauses %v; want %s.1 first", r.ID, cs, r.ID)
		}
		for _, c := range cs {
			if got, ok := ClauseByID(c.ID); !ok || got.ID != c.ID || RuleOf(c.ID) != r.ID {
				t.Errorf("ClauseByID(%s) = %v, %v; RuleOf = %s", c.ID, got.ID, ok, RuleOf(c.ID))
			}
		}
	}
}

func TestParseClauseFiles(t *testing.T) {
	rules := []Rule{
		{ID: "AD-38", Family: "AD", Binds: SideRuntime, Text: "start after the deadline: expired"},
		{ID: "CN-03", Family: "CN", Binds: SideBoth, Text: "no credential in a URL"},
		{ID: "CN-43", Family: "CN", Binds: SideBoth, Text: "queues", Unobservable: "inside a process"},
	}
	for _, tc := range []struct {
		name, tsv string
		want      []string // clause IDs, or the errors
	}{
		{"unsplit rules are one implicit clause each", "# nothing\n", []string{"AD-38.1", "CN-03.1", "CN-43.1"}},
		{"split", "AD-38.1\truntime\tcode\t\tstatus expired after the deadline\nAD-38.2\truntime\tearly\t\tnot expired before it\nCN-03.1\tcore\tcode\t\tCore refuses it\n",
			[]string{"AD-38.1", "AD-38.2", "CN-03.1", "CN-43.1"}},
		{"a gap in the numbering", "AD-38.1\truntime\tduty\t\tx\nAD-38.3\truntime\tduty\t\ty\n",
			[]string{"clause 2 of AD-38 is AD-38.3: number a rule's clauses 1, 2, … in order, with no gap or repeat"}},
		{"a side the rule does not bind", "AD-38.1\tcore\tduty\t\tx\n",
			[]string{"AD.tsv:1: AD-38.1 binds the core, but its rule AD-38 binds only the runtime"}},
		{"an unknown kind and rule", "AD-38.1\truntime\tmaybe\t\tx\nAD-99.1\truntime\tduty\t\tx\n",
			[]string{"AD.tsv:1: AD-38.1 is of kind \"maybe\": want one of [duty code shape state early late at-limit over-limit order]", "AD.tsv:2: AD-99.1 is a clause of AD-99, which is not a rule of rules.tsv"}},
		{"an unobservable rule with an observable clause", "CN-43.1\tboth\tduty\t\tx\n",
			[]string{"CN-43 is unobservable in rules.tsv (inside a process) but has observable clauses: clear the rule's reason or give each clause one"}},
		{"columns", "AD-38.1\truntime\tduty\tx\n", []string{"AD.tsv:1: want 5 tab-separated columns (clause, side, kind, unobservable, text), got 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs, err := parseClauseFiles(fstest.MapFS{"c/AD.tsv": {Data: []byte(tc.tsv)}}, "c", rules)
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			for _, c := range cs {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A clause is checked on a side only where a mutant of that side breaking it was killed by a
// scenario naming it: a name alone, or a kill by a scenario that does not name it, is no check.
func TestClauseCoverageNeedsAKillByANamingScenario(t *testing.T) {
	a, _ := Parse("a.yaml", []byte("id: a\ntitle: t\nrules: [CN-14.1]\nsteps: [{silence: core}]\n"))
	b, _ := Parse("b.yaml", []byte("id: b\ntitle: t\ntests: core\nrules: [CN-15.1]\nsteps: [{silence: core}]\n"))
	c, errs := Link(append(a, b...))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	kills := []Kill{
		{Side: SideCore, Point: "p1", Clause: "CN-14.1", Killer: "a", Names: true},
		{Side: SideCore, Point: "p2", Clause: "CN-15.1", Killer: "a", Names: false},
	}
	got := map[string]SideClause{}
	for _, cc := range clauseCoverage(c, kills) {
		if cc.ID == "CN-14.1" || cc.ID == "CN-15.1" {
			got[cc.ID] = cc.Core
		}
	}
	want := map[string]SideClause{
		"CN-14.1": {Scenarios: []string{"a"}, Mutants: []string{"p1"}, Killed: []string{"p1"}},
		"CN-15.1": {Scenarios: []string{"b"}, Mutants: []string{"p2"}, Killed: []string{}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// Counting only some scenarios (a certification of a daemon in another process plays fewer), a
// kill by a scenario left out checks nothing.
func TestClauseCoverageCountsOnlyTheKilledByScenariosKept(t *testing.T) {
	a, _ := Parse("a.yaml", []byte("id: a\ntitle: t\ntests: core\nrules: [CN-14.1]\nsteps: [{silence: core}]\n"))
	c, errs := Link(a)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	kills := []Kill{{Side: SideCore, Point: "p1", Clause: "CN-14.1", Killer: "a", Names: true}}
	kept := *c
	kept.Scenarios = nil
	for _, cc := range clauseCoverage(&kept, kills) {
		if cc.ID == "CN-14.1" && (len(cc.Core.Killed) != 0 || len(cc.Core.Scenarios) != 0 || len(cc.Core.Mutants) != 1) {
			t.Errorf("%s with its killer left out: %+v; want the mutant, no scenario, no kill", cc.ID, cc.Core)
		}
	}
}
