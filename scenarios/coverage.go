package scenarios

import (
	"slices"
	"strings"
)

// RuleCoverage is what the catalog checks of one rule: the scenarios naming it that test a
// Runtime, and those that test a Core, each counted only on a side the rule binds.
type RuleCoverage struct {
	Rule
	Runtime []string `json:"runtime_scenarios"`
	Core    []string `json:"core_scenarios"`
}

// BindsRuntime and BindsCore say which implementations a rule constrains.
func (r Rule) BindsRuntime() bool { return r.Binds != SideCore }
func (r Rule) BindsCore() bool    { return r.Binds != SideRuntime }

// Checked reports whether some scenario checks the rule on a side it binds.
func (r RuleCoverage) Checked() bool { return len(r.Runtime)+len(r.Core) > 0 }

// CoverageCounts are rules checked out of rules that could be, overall and per side. Unobservable
// rules are counted apart and in no denominator.
type CoverageCounts struct {
	Rules          int `json:"rules"`
	Unobservable   int `json:"unobservable"`
	Checked        int `json:"checked"`
	Observable     int `json:"observable"`
	RuntimeChecked int `json:"runtime_checked"`
	RuntimeBound   int `json:"runtime_bound"`
	CoreChecked    int `json:"core_checked"`
	CoreBound      int `json:"core_bound"`
}

func (c *CoverageCounts) add(r RuleCoverage) {
	c.Rules++
	if r.Unobservable != "" {
		c.Unobservable++
		return
	}
	c.Observable++
	if r.Checked() {
		c.Checked++
	}
	if r.BindsRuntime() {
		c.RuntimeBound++
		if len(r.Runtime) > 0 {
			c.RuntimeChecked++
		}
	}
	if r.BindsCore() {
		c.CoreBound++
		if len(r.Core) > 0 {
			c.CoreChecked++
		}
	}
}

// FamilyCoverage is the coverage of one family's rules, in rule order, and of their clauses.
type FamilyCoverage struct {
	Family
	CoverageCounts
	Rules        []RuleCoverage   `json:"rule_coverage"`
	ClauseCounts ClauseCounts     `json:"clause_counts"`
	Clauses      []ClauseCoverage `json:"clause_coverage"`
}

// Coverage is the catalog's coverage of the rules, per family in the spec's order.
type Coverage struct {
	CoverageCounts
	ClauseCounts ClauseCounts     `json:"clause_counts"`
	Families     []FamilyCoverage `json:"families"`
	// Target says which plays were counted: "" every scenario, "process" only those a
	// certification of a daemon in another process plays.
	Target string `json:"target,omitempty"`
	// OnlyInProcess lists, for the process target, the Runtime clauses that only scenarios it does
	// not play check.
	OnlyInProcess []string `json:"only_in_process,omitempty"`
}

// ClauseCoverage is what checks one clause on each side it binds.
type ClauseCoverage struct {
	Clause
	Runtime SideClause `json:"runtime"`
	Core    SideClause `json:"core"`
}

// SideClause is one side's checks of a clause: the scenarios testing that side that name it, the
// mutants of that side's reference that break it, and those of them a scenario naming it killed.
// Only the last makes the clause checked: a name without a killed mutant is a tag, not a check.
type SideClause struct {
	Scenarios []string `json:"scenarios"`
	Mutants   []string `json:"mutants"`
	Killed    []string `json:"killed"`
}

// Checked reports whether a mutant breaking the clause on this side was killed by a scenario that
// names it.
func (s SideClause) Checked() bool { return len(s.Killed) > 0 }

// ClauseCounts are clauses per side: bound (observable clauses the side must keep), named by a
// scenario, broken by a mutant, checked (a mutant killed by a scenario naming it). Unobservable
// clauses are counted apart; Implicit counts rules not yet split (one clause each).
type ClauseCounts struct {
	Clauses        int `json:"clauses"`
	Unobservable   int `json:"unobservable"`
	Implicit       int `json:"implicit"`
	RuntimeBound   int `json:"runtime_bound"`
	RuntimeNamed   int `json:"runtime_named"`
	RuntimeMutants int `json:"runtime_mutants"`
	RuntimeChecked int `json:"runtime_checked"`
	CoreBound      int `json:"core_bound"`
	CoreNamed      int `json:"core_named"`
	CoreMutants    int `json:"core_mutants"`
	CoreChecked    int `json:"core_checked"`
}

func (c *ClauseCounts) add(cc ClauseCoverage) {
	c.Clauses++
	if cc.Implicit {
		c.Implicit++
	}
	if cc.Unobservable != "" {
		c.Unobservable++
		return
	}
	count := func(binds bool, s SideClause, bound, named, mutants, checked *int) {
		if !binds {
			return
		}
		*bound++
		if len(s.Scenarios) > 0 {
			*named++
		}
		if len(s.Mutants) > 0 {
			*mutants++
		}
		if s.Checked() {
			*checked++
		}
	}
	count(cc.BindsRuntime(), cc.Runtime, &c.RuntimeBound, &c.RuntimeNamed, &c.RuntimeMutants, &c.RuntimeChecked)
	count(cc.BindsCore(), cc.Core, &c.CoreBound, &c.CoreNamed, &c.CoreMutants, &c.CoreChecked)
}

// ComputeCoverage traces the catalog's rules: members to the rule list, and its clauses to the
// kill records.
func ComputeCoverage(c *Catalog) Coverage { return ComputeCoverageFor(c, nil) }

// ComputeCoverageFor is ComputeCoverage counting only the scenarios include keeps (nil: all): a
// clause is checked only where a kept scenario that names it killed a mutant breaking it. It says
// what a run that plays only those scenarios checks (a certification of a daemon in another
// process plays fewer than the in-process gate).
func ComputeCoverageFor(c *Catalog, include func(*Scenario) bool) Coverage {
	if include != nil {
		kept := *c
		kept.Scenarios = slices.DeleteFunc(slices.Clone(c.Scenarios), func(s *Scenario) bool { return !include(s) })
		c = &kept
	}
	byRule := map[string]*RuleCoverage{}
	var cov Coverage
	for _, f := range RuleFamilies {
		cov.Families = append(cov.Families, FamilyCoverage{Family: f})
	}
	var all []*RuleCoverage
	for _, r := range Rules() {
		rc := &RuleCoverage{Rule: r, Runtime: []string{}, Core: []string{}}
		byRule[r.ID] = rc
		all = append(all, rc)
	}
	for _, s := range c.Scenarios {
		for _, id := range s.Rules {
			if slices.ContainsFunc(s.Rules[:slices.Index(s.Rules, id)], func(o string) bool { return RuleOf(o) == RuleOf(id) }) {
				continue // a second clause of a rule already counted
			}
			rc, ok := byRule[RuleOf(id)]
			if !ok {
				continue // the loader already refused it
			}
			if s.Tests.Covers(SideRuntime) && rc.BindsRuntime() {
				rc.Runtime = append(rc.Runtime, s.ID)
			}
			if s.Tests.Covers(SideCore) && rc.BindsCore() {
				rc.Core = append(rc.Core, s.ID)
			}
		}
	}
	for _, rc := range all {
		fc := &cov.Families[slices.IndexFunc(RuleFamilies, func(f Family) bool { return f.Prefix == rc.Family })]
		fc.Rules = append(fc.Rules, *rc)
		fc.add(*rc)
		cov.add(*rc)
	}
	kills, _ := Kills() // the embedded records are tested
	for _, cc := range clauseCoverage(c, kills) {
		fam, _, _ := strings.Cut(cc.Rule, "-")
		fc := &cov.Families[slices.IndexFunc(RuleFamilies, func(f Family) bool { return f.Prefix == fam })]
		fc.Clauses = append(fc.Clauses, cc)
		fc.ClauseCounts.add(cc)
		cov.ClauseCounts.add(cc)
	}
	return cov
}

// clauseCoverage traces every clause to the scenarios naming it and the mutants breaking it.
func clauseCoverage(c *Catalog, kills []Kill) []ClauseCoverage {
	var out []ClauseCoverage
	index := map[string]int{}
	for _, cl := range Clauses() {
		index[cl.ID] = len(out)
		out = append(out, ClauseCoverage{Clause: cl, Runtime: SideClause{Scenarios: []string{}, Mutants: []string{}, Killed: []string{}},
			Core: SideClause{Scenarios: []string{}, Mutants: []string{}, Killed: []string{}}})
	}
	side := func(cc *ClauseCoverage, s Side) *SideClause {
		if s == SideCore {
			return &cc.Core
		}
		return &cc.Runtime
	}
	for _, s := range c.Scenarios {
		for _, cl := range Clauses() {
			if !s.NamesClause(cl.ID) {
				continue
			}
			cc := &out[index[cl.ID]]
			for _, sd := range []Side{SideRuntime, SideCore} {
				if s.Tests.Covers(sd) && cl.Binds.Covers(sd) {
					side(cc, sd).Scenarios = append(side(cc, sd).Scenarios, s.ID)
				}
			}
		}
	}
	played := map[string]bool{}
	for _, s := range c.Scenarios {
		played[s.ID] = true
	}
	for _, k := range kills {
		i, ok := index[ClauseOfKill(k)]
		if !ok {
			continue
		}
		sc := side(&out[i], k.Side)
		sc.Mutants = append(sc.Mutants, k.Point)
		if k.Killer != "" && k.Names && played[k.Killer] {
			sc.Killed = append(sc.Killed, k.Point)
		}
	}
	return out
}
