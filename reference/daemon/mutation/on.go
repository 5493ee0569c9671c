//go:build wirecheck_mutants

package mutation

import (
	"sync"

	"github.com/wirecheck/wirecheck/internal/mutation"
)

// Enabled is true in the mutants build: a mutation point's groundwork (what a mutant needs kept
// before its point is asked about) runs, the mutant itself only once its point is on.
const Enabled = true

// On reports whether p is the mutant this process plays now.
func On(p Point) bool { return mutation.On(string(p)) }

// Activate makes p the one active mutant ("" for none) and returns a function that restores the
// previous one. Mutants are process-wide: play one at a time.
func Activate(p Point) (restore func()) { return mutation.Activate(string(p)) }

// frames holds the last frame each daemon sent, for the replay mutant: a daemon that carries a frame
// of one connection into the next.
var frames sync.Map

// Remember records the last frame owner sent.
func Remember(owner any, frame []byte) { frames.Store(owner, frame) }

// Recall returns, and forgets, the last frame owner sent.
func Recall(owner any) []byte {
	if f, ok := frames.LoadAndDelete(owner); ok {
		return f.([]byte)
	}
	return nil
}
