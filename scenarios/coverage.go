package scenarios

import "slices"

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

// FamilyCoverage is the coverage of one family's rules, in rule order.
type FamilyCoverage struct {
	Family
	CoverageCounts
	Rules []RuleCoverage `json:"rule_coverage"`
}

// Coverage is the catalog's coverage of the rules, per family in the spec's order.
type Coverage struct {
	CoverageCounts
	Families []FamilyCoverage `json:"families"`
}

// ComputeCoverage traces the catalog's rules: members to the rule list.
func ComputeCoverage(c *Catalog) Coverage {
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
			rc, ok := byRule[id]
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
	return cov
}
