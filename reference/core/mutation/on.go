//go:build wirecheck_mutants

package mutation

import "sync/atomic"

var active atomic.Pointer[Point]

// On reports whether p is the Core mutant this process plays now.
func On(p Point) bool {
	a := active.Load()
	return a != nil && *a == p
}

// Activate makes p the one active Core mutant ("" for none) and returns a function that restores
// the previous one. Mutants are process-wide: play one at a time.
func Activate(p Point) (restore func()) {
	prev := active.Load()
	if p == "" {
		active.Store(nil)
	} else {
		active.Store(&p)
	}
	return func() { active.Store(prev) }
}
