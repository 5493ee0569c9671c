//go:build wirecheck_mutants

package mutation

// coreRP are the Core mutants of the RP family written from its clauses
// (scenarios/rules/clauses/RP.tsv), each before the scenario that kills it; their points are in
// points_rp.go.
var coreRP = []Mutant{}
