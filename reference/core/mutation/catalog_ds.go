//go:build wirecheck_mutants

package mutation

// coreDS are the Core mutants of the DS family written from its clauses
// (scenarios/rules/clauses/DS.tsv), each before the scenario that kills it; their points are in
// points_ds.go.
var coreDS = []Mutant{}
