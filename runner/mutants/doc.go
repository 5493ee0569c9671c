// Package mutants holds the mutation kill matrix (make mutants): the Runtime catalog played against
// every single-bug variant of the reference Runtime, and the Core scenarios against every
// single-bug variant of the reference Core (reference/core/mutation). Its test builds only with -tags
// wirecheck_mutants; it is a package of its own because a mutant may strand goroutines in its
// daemon, which package runner's leak check would rightly refuse.
package mutants
