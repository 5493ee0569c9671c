//go:build wirecheck_mutants

package mutation

// runtimeCN are the Runtime mutants of the CN family written from its clauses
// (scenarios/rules/clauses/CN.tsv), each before the scenario that kills it; their points are in
// points_cn.go.
var runtimeCN = []Mutant{}
