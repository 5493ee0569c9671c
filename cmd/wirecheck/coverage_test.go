package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wirecheck/wirecheck/scenarios"
)

func runCoverage(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newCoverageCommand()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// Every format names the families, the unchecked rules and the unobservable ones with their reason.
func TestCoverageFormats(t *testing.T) {
	text, err := runCoverage(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"All families: ", "Clauses: ", "CN connection: ", "  clauses: ", "connection/version/0-7-0", "Rules no scenario checks (",
		"why: queue and channel sizes", "Clauses not checked on a side they bind"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	md, err := runCoverage(t, "--format", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "| CN connection |") || !strings.Contains(md, "## PJ delivery projection") || !strings.Contains(md, "unobservable: ") {
		t.Errorf("markdown output:\n%.600s", md)
	}
	js, err := runCoverage(t, "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var cov scenarios.Coverage
	if err := json.Unmarshal([]byte(js), &cov); err != nil {
		t.Fatal(err)
	}
	if cov.Rules != len(scenarios.Rules()) || len(cov.Families) != len(scenarios.RuleFamilies) || cov.Checked == 0 {
		t.Errorf("json counts: %+v", cov.CoverageCounts)
	}
	if _, err := runCoverage(t, "--format", "yaml"); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// --target process counts only what a certification of a daemon in another process plays, and
// names the clauses the gate checks in process alone (await_stall scenarios: CN-42, AD-28, AD-50).
func TestCoverageTargetProcess(t *testing.T) {
	text, err := runCoverage(t, "--target", "process")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Target: a Runtime in another process", "Runtime clauses checked by the gate in process but by no scenario a process certification plays (", "AD-28."} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%.600s", want, text)
		}
	}
	if _, err := runCoverage(t, "--target", "container"); err == nil {
		t.Error("an unknown target was accepted")
	}
}

// A rule no scenario checks is marked where its family lists it, and listed again at the end.
func TestCoverageTextNamesAnUncheckedRule(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	cov := scenarios.ComputeCoverage(cat)
	r := &cov.Families[0].Rules[0]
	r.Runtime, r.Core, r.Unobservable = nil, nil, ""
	var out bytes.Buffer
	if err := writeCoverageText(&out, cov); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%-6s binds %-7s NOT CHECKED  %s", r.ID, r.Binds, r.Text); !strings.Contains(out.String(), want) {
		t.Errorf("text output lacks %q:\n%.1200s", want, out.String())
	}
	_, list, _ := strings.Cut(out.String(), "Rules no scenario checks (")
	list, _, _ = strings.Cut(list, "Rules no wire observation")
	if want := "\n  " + r.ID + " " + r.Text + "\n"; !strings.Contains(list, want) {
		t.Errorf("the list of rules no scenario checks lacks %q:\n%s", want, list)
	}
}
