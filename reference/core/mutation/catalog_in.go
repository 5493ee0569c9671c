//go:build wirecheck_mutants

package mutation

// coreIN are the Core mutants of the IN family written from its clauses
// (scenarios/rules/clauses/IN.tsv), each before the scenario that kills it; their points are in
// points_in.go.
var coreIN = []Mutant{}
