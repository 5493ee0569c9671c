//go:build wirecheck_mutants

package mutation

// coreRS are the Core mutants of the RS family written from its clauses
// (scenarios/rules/clauses/RS.tsv), each before the scenario that kills it; their points are in
// points_rs.go.
var coreRS = []Mutant{}
