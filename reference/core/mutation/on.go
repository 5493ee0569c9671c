//go:build wirecheck_mutants

package mutation

import "github.com/wirecheck/wirecheck/internal/mutation"

// On reports whether p is the mutant this process plays now.
func On(p Point) bool { return mutation.On(string(p)) }

// Activate makes p the one active mutant ("" for none) and returns a function that restores the
// previous one. Mutants are process-wide: play one at a time.
func Activate(p Point) (restore func()) { return mutation.Activate(string(p)) }
