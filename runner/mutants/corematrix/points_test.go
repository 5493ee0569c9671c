//go:build wirecheck_mutants

package corematrix_test

import (
	"testing"

	coremutation "github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// A point names one mutant on one side. Both sides share one switch, keyed by the name
// (mutation.Activate), so a name registered twice, or on both sides, turns on two bugs at once
// and the matrix credits a kill to the wrong one.
func TestMutationPointsAreUniqueAcrossSides(t *testing.T) {
	side := map[string]string{}
	for _, m := range mutation.Runtime {
		if s, dup := side[string(m.Point)]; dup {
			t.Errorf("mutant point %q is registered twice (%s and Runtime)", m.Point, s)
		}
		side[string(m.Point)] = "Runtime"
	}
	for _, m := range coremutation.Core {
		if s, dup := side[string(m.Point)]; dup {
			t.Errorf("mutant point %q is registered twice (%s and Core)", m.Point, s)
		}
		side[string(m.Point)] = "Core"
	}
}
