//go:build wirecheck_mutants

package mutation

// coreSU are the Core mutants of the SU family written from its clauses
// (scenarios/rules/clauses/SU.tsv), each before the scenario that kills it; their points are in
// points_su.go.
var coreSU = []Mutant{}
