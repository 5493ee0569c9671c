//go:build wirecheck_mutants

package mutation

// runtimeFN are the Runtime mutants of the FN family written from its clauses
// (scenarios/rules/clauses/FN.tsv), each before the scenario that kills it; their points are in
// points_fn.go.
var runtimeFN = []Mutant{}
