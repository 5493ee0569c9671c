//go:build wirecheck_mutants

package mutation

import (
	"slices"
	"sync"
	"sync/atomic"
)

var active atomic.Pointer[string]

// reached holds every point asked about since the last ResetReached: the points a play reached.
var reached sync.Map

// On reports whether point is the mutant this process plays now, and records that the play
// reached it: a mutant whose point a scenario never asks about cannot change that scenario's
// verdict, so the matrix plays each mutant only against the scenarios that reach it.
func On(point string) bool {
	if _, seen := reached.Load(point); !seen {
		reached.Store(point, struct{}{})
	}
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

// ResetReached forgets the points reached so far; play one scenario at a time between it and
// Reached to learn what that scenario reaches.
func ResetReached() { reached.Clear() }

// Reached returns the points asked about since the last ResetReached, sorted.
func Reached() []string {
	var out []string
	reached.Range(func(k, _ any) bool {
		out = append(out, k.(string))
		return true
	})
	slices.Sort(out)
	return out
}
