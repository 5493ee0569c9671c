package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The embedded rule list parses and keeps the spec's 323 rules in its 14 families, and the project's
// own CH family (the contract Harness's promises).
func TestLoadRules(t *testing.T) {
	if _, err := parseRules(rulesTSV); err != nil {
		t.Fatal(err)
	}
	perFamily := map[string]int{}
	for _, r := range Rules() {
		perFamily[r.Family]++
	}
	want := map[string]int{"CN": 52, "AD": 70, "RS": 18, "CA": 21, "IN": 23, "IA": 20, "FN": 14, "RP": 26, "WS": 32, "SU": 10, "SA": 7, "DS": 6, "EF": 8, "PJ": 16, "CH": 2}
	if diff := cmp.Diff(want, perFamily); diff != "" {
		t.Fatalf("rules per family (-want +got):\n%s", diff)
	}
}

// An unknown or repeated rule ID is an error at its line.
func TestLoadRejectsUnknownRuleIDs(t *testing.T) {
	text := "id: a\ntitle: t\nrules:\n  - CN-14\n  - CN-99\n  - CN-14\nsteps: [{silence: core}]\n"
	_, err := Parse("f.yaml", []byte(text))
	want := []string{
		`f.yaml:5: rules: "CN-99" is not a rule of scenarios/rules/rules.tsv`,
		`f.yaml:6: rules: CN-14 is named twice`,
	}
	if diff := cmp.Diff(want, loadErrors(t, err)); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
}

// A clause is named by its ID; one the rule does not have, or a rule named beside one of its
// clauses, is an error at its line.
func TestLoadChecksClauseIDs(t *testing.T) {
	text := "id: a\ntitle: t\nrules:\n  - CN-14.1\n  - CN-14.99\n  - CN-14\n  - AD-38\n  - AD-38.1\nsteps: [{silence: core}]\n"
	_, err := Parse("f.yaml", []byte(text))
	want := []string{
		`f.yaml:5: rules: "CN-14.99" is not a clause of scenarios/rules/clauses (CN-14 has ` + fmt.Sprint(len(ClausesOf("CN-14"))) + `)`,
		`f.yaml:6: rules: CN-14 and a clause of it are both named: name the clauses the scenario checks`,
		`f.yaml:8: rules: AD-38 and a clause of it are both named: name the clauses the scenario checks`,
	}
	if diff := cmp.Diff(want, loadErrors(t, err)); diff != "" {
		t.Fatalf("errors (-want +got):\n%s", diff)
	}
}

// Every catalog scenario names the rules it checks, and only rules of a side it tests.
func TestLintCatalogRules(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range LintRules(c) {
		lines = append(lines, e.Error())
	}
	if len(lines) > 0 {
		t.Fatalf("%d problems:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// Lint names an untagged scenario and a rule of the side the scenario does not test.
func TestLintRulesFindsUntaggedAndWrongSide(t *testing.T) {
	a, _ := Parse("a.yaml", []byte("id: a\ntitle: t\nsteps: [{silence: core}]\n"))
	b, _ := Parse("b.yaml", []byte("id: b\ntitle: t\ntests: core\nrules: [AD-08.1, AD-09]\nsteps: [{silence: core}]\n"))
	c, errs := Link(append(a, b...))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, e := range LintRules(c) {
		got = append(got, e.Error())
	}
	want := []string{
		"a.yaml:1: scenario a names no rules: add rules: [ID, …] with the rules it checks",
		"b.yaml:1: scenario b tests the core but clause AD-08.1 binds the runtime",
		"b.yaml:1: scenario b tests the core but rule AD-09 binds the runtime",
		"b.yaml:1: scenario b names rule AD-09 whole, which has " + fmt.Sprint(len(ClausesOf("AD-09"))) + " clauses: name the clauses it checks (AD-09.1 … AD-09." + fmt.Sprint(len(ClausesOf("AD-09"))) + ")",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("lint (-want +got):\n%s", diff)
	}
}
