// Package mutants is the kill loop of the mutation matrix (make mutants): it plays a side's
// scenarios against each single-bug variant of a reference side and names the scenarios that kill
// it. The matrices themselves are the tests of runtimematrix (every variant of the reference
// Runtime, reference/daemon/mutation) and corematrix (the reference Core, reference/core/mutation):
// two packages, so go test plays them side by side in two processes, each with its own mutant
// switch. Everything here builds only with -tags wirecheck_mutants; the matrices live apart from
// package runner because a mutant may strand goroutines in its daemon, which runner's leak check
// would rightly refuse.
package mutants
