//go:build wirecheck_mutants

package mutation

// A Mutant is one single-bug variant of the reference Core: the point that turns it on and the
// normative rule (../shared/spec/rules.md) it breaks.
type Mutant struct {
	Point       Point
	Rule        string
	Description string
}

// Core is the registry of Core mutants the matrix plays. Each was written from its rule's text; a
// mutant no scenario kills stays out of it until a scenario does.
var Core = []Mutant{}
