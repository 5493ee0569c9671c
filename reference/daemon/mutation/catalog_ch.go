//go:build wirecheck_mutants

package mutation

// runtimeCH are the Runtime mutants of the CH family written from its clauses
// (scenarios/rules/clauses/CH.tsv), each before the scenario that kills it; their points are in
// points_ch.go.
var runtimeCH = []Mutant{}
