//go:build wirecheck_mutants

package mutation

// runtimeAD are the Runtime mutants of the AD family written from its clauses
// (scenarios/rules/clauses/AD.tsv), each before the scenario that kills it; their points are in
// points_ad.go.
var runtimeAD = []Mutant{
	{ADUnavailableKindAdmitted, "AD-11.2", "an execution_prepare for a kind advertised available:false is judged as if the kind were available: it goes on to the other admission rules (admitted, or refused for another rule) instead of rejected resource_unavailable"},
}
