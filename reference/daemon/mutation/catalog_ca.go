//go:build wirecheck_mutants

package mutation

// runtimeCA are the Runtime mutants of the CA family written from its clauses
// (scenarios/rules/clauses/CA.tsv), each before the scenario that kills it; their points are in
// points_ca.go.
var runtimeCA = []Mutant{}
