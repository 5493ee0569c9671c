//go:build wirecheck_mutants

package mutation

// coreWS are the Core mutants of the WS family written from its clauses
// (scenarios/rules/clauses/WS.tsv), each before the scenario that kills it; their points are in
// points_ws.go.
var coreWS = []Mutant{}
