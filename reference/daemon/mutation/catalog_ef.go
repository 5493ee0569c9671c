//go:build wirecheck_mutants

package mutation

// runtimeEF are the Runtime mutants of the EF family written from its clauses
// (scenarios/rules/clauses/EF.tsv), each before the scenario that kills it; their points are in
// points_ef.go.
var runtimeEF = []Mutant{}
