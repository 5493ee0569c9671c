package scenarios

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var raiseFloor = flag.Bool("raise-coverage-floor", false, "lift rules/coverage-floor.txt to the measured coverage (never lowers it)")

const floorFile = "rules/coverage-floor.txt"

// The catalog's rule coverage never drops below the committed floor.
func TestCoverageFloor(t *testing.T) {
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(floorFile)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := ParseCoverageFloor(string(data))
	if err != nil {
		t.Fatalf("%s: %v", floorFile, err)
	}
	cov := ComputeCoverage(c)
	if below := floor.Below(cov); len(below) > 0 {
		t.Fatalf("rule coverage dropped (a scenario lost a rules: entry, or was removed):\n%s", strings.Join(below, "\n"))
	}
	raised := floor.Raised(cov).Format()
	switch {
	case *raiseFloor && raised != string(data):
		if err := os.WriteFile(floorFile, []byte(raised), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("raised %s", floorFile)
	case raised != string(data):
		t.Logf("coverage is above the floor: raise it with go test ./scenarios -run CoverageFloor -raise-coverage-floor")
	}
}

// Coverage counts a scenario on a side only when it tests that side and the rule binds it.
func TestCoverageCountsSides(t *testing.T) {
	a, _ := Parse("a.yaml", []byte("id: a\ntitle: t\nrules: [CN-14, AD-08, PJ-08]\nsteps: [{silence: core}]\n"))
	b, _ := Parse("b.yaml", []byte("id: b\ntitle: t\ntests: core\nrules: [CN-14]\nsteps: [{silence: core}]\n"))
	c, errs := Link(append(a, b...))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cov := ComputeCoverage(c)
	get := func(id string) RuleCoverage {
		for _, f := range cov.Families {
			for _, r := range f.Rules {
				if r.ID == id {
					return r
				}
			}
		}
		t.Fatalf("no rule %s", id)
		return RuleCoverage{}
	}
	if r := get("CN-14"); len(r.Runtime) != 0 || strings.Join(r.Core, ",") != "a,b" {
		t.Errorf("CN-14 binds Core: runtime %v, core %v", r.Runtime, r.Core)
	}
	if r := get("AD-08"); strings.Join(r.Runtime, ",") != "a" || len(r.Core) != 0 {
		t.Errorf("AD-08 binds the Runtime: runtime %v, core %v", r.Runtime, r.Core)
	}
	if n := len(Rules()); cov.Checked != 3 || cov.Rules != n || cov.Observable+cov.Unobservable != n {
		t.Errorf("totals: %+v", cov.CoverageCounts)
	}
}
