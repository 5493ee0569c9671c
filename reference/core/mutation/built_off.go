//go:build !wirecheck_mutants

package mutation

// Built is false outside the mutants build.
const Built = false
