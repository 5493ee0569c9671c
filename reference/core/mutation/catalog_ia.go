//go:build wirecheck_mutants

package mutation

// coreIA are the Core mutants of the IA family written from its clauses
// (scenarios/rules/clauses/IA.tsv), each before the scenario that kills it; their points are in
// points_ia.go.
var coreIA = []Mutant{}
