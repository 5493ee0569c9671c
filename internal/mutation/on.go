//go:build wirecheck_mutants

package mutation

import "sync/atomic"

var active atomic.Pointer[string]

// On reports whether point is the mutant this process plays now.
func On(point string) bool {
	a := active.Load()
	return a != nil && *a == point
}

// Activate makes point the one active mutant ("" for none) and returns a function that restores
// the previous one. Mutants are process-wide: play one at a time.
func Activate(point string) (restore func()) {
	prev := active.Load()
	if point == "" {
		active.Store(nil)
	} else {
		active.Store(&point)
	}
	return func() { active.Store(prev) }
}
