//go:build wirecheck_mutants

package mutation

// Built is true in the mutants build: a point whose decision needs a wrapper (a goroutine, a
// decoded copy) sets it up only here, so that the clean plays of the matrix ask each point exactly
// where its mutant acts.
const Built = true
