//go:build wirecheck_mutants

package mutation

// coreSA are the Core mutants of the SA family written from its clauses
// (scenarios/rules/clauses/SA.tsv), each before the scenario that kills it; their points are in
// points_sa.go.
var coreSA = []Mutant{}
