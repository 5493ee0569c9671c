// Package mutants is the kill loop of the mutation matrix (make mutants): it maps which
// scenarios reach each mutation point of a reference side, proves the map complete, and plays each
// single-bug variant only against the scenarios that reach its point, in worker processes that
// each own a mutant switch, naming the scenario that kills it. The matrices themselves are the
// tests of runtimematrix (every variant of the reference Runtime, reference/daemon/mutation) and
// corematrix (the reference Core, reference/core/mutation), whose TestMain serves as a worker when
// the matrix starts it so. Everything here builds only with -tags wirecheck_mutants; the matrices
// live apart from package runner because a mutant may strand goroutines in its daemon, which
// runner's leak check would rightly refuse.
package mutants
