//go:build wirecheck_mutants

package mutation

// runtimeRS are the Runtime mutants of the RS family written from its clauses
// (scenarios/rules/clauses/RS.tsv), each before the scenario that kills it; their points are in
// points_rs.go.
var runtimeRS = []Mutant{}
