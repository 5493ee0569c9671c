//go:build wirecheck_mutants

package mutation

// runtimeWS are the Runtime mutants of the WS family written from its clauses
// (scenarios/rules/clauses/WS.tsv), each before the scenario that kills it; their points are in
// points_ws.go.
var runtimeWS = []Mutant{}
