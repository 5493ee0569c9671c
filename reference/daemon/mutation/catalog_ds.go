//go:build wirecheck_mutants

package mutation

// runtimeDS are the Runtime mutants of the DS family written from its clauses
// (scenarios/rules/clauses/DS.tsv), each before the scenario that kills it; their points are in
// points_ds.go.
var runtimeDS = []Mutant{}
