//go:build wirecheck_mutants

package mutation

// runtimePJ are the Runtime mutants of the PJ family written from its clauses
// (scenarios/rules/clauses/PJ.tsv), each before the scenario that kills it; their points are in
// points_pj.go.
var runtimePJ = []Mutant{}
