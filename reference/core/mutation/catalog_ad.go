//go:build wirecheck_mutants

package mutation

// coreAD are the Core mutants of the AD family written from its clauses
// (scenarios/rules/clauses/AD.tsv), each before the scenario that kills it; their points are in
// points_ad.go.
var coreAD = []Mutant{}
