//go:build wirecheck_mutants

package corematrix_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	coremutation "github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/runner/mutants"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The Core-side catalog is worth what it catches: every registered single-bug variant of the
// reference Core fails at least one Core scenario that the unmutated reference Core passes. A
// survivor fails the test; it is never whitelisted.
func TestCoreMutationMatrix(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	pairing := runner.ReferenceCorePairing()
	var all []*scenarios.Scenario
	for _, sc := range cat.Scenarios {
		if pairing.Covers(sc) && pairing.Skip(sc) == "" {
			all = append(all, sc)
		}
	}
	for i, r := range coreSide.Confirmed(all) {
		if r.Verdict != scenarios.Pass {
			// Every Core scenario the catalog holds passes against the unmutated reference Core.
			t.Errorf("the unmutated reference Core fails %s (%s): %v", all[i].ID, r.Verdict, r.Failure)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	scs := all
	t.Logf("the unmutated reference Core passes all %d Core scenarios; they judge the mutants", len(scs))
	var ms []mutants.Mutant
	for _, m := range coremutation.Core {
		ms = append(ms, mutants.Mutant{Point: string(m.Point), Rule: m.Rule, Description: m.Description,
			Activate: func() func() { return coremutation.Activate(m.Point) }})
	}
	ms = mutants.Only(t, ms, *onlyPoints, *updateMatrix)
	matrix := mutants.Judge(t, coreSide, scs, ms)
	elapsed := time.Since(began).Round(100 * time.Millisecond)

	var b strings.Builder
	fmt.Fprint(&b, mutants.CoreSection[1:])
	fmt.Fprintf(&b, "\nEach single-bug variant of the reference Core (`reference/core/mutation`), the rule it breaks "+
		"(`scenarios/rules/rules.tsv`: the spec's rules and the contract Harness's own), and the Core scenarios (of the %d the unmutated reference Core passes, "+
		"played by the `core: reference` pairing) that fail against it, a kill counted only when a failure repeats with the "+
		"scenario playing alone. A mutant no scenario kills fails the run.\n\n", len(scs))
	mutants.WriteRows(&b, matrix)
	fmt.Fprintf(&b, "\nDropped, with the scenario that should catch them (none can today):\n\n")
	for _, d := range droppedCore {
		fmt.Fprintf(&b, "- %s\n", d)
	}
	table := b.String()
	fmt.Print(table)
	t.Logf("%d Core mutants against %d scenarios in %v", len(matrix), len(scs), elapsed)
	if *updateMatrix {
		if err := mutants.WriteSection(mutants.CoreSection, table); err != nil {
			t.Fatal(err)
		}
	}
}

// droppedCore lists the Core mutants taken out of the catalog because no scenario can kill them,
// each with its rule and what would.
var droppedCore = []string{
	"invalid-heartbeat-keeps-snapshot (CN-29): an invalid heartbeat closes the transport but keeps the snapshot. " +
		"connection/heartbeat/incomplete-capabilities-close-the-transport would, but the variant is equivalent in the reference Core: the shutdown that follows " +
		"in the same handler clears the snapshot under the lock that marks the Session closed, so the kept snapshot lives only between two statements " +
		"of the reader goroutine, where no frame, check or Turn claim can be ordered. Only a Core that keeps snapshots beyond the connection could show it.",
}

// coreSide plays Core scenarios against fresh in-process reference Cores, a few at a time.
var coreSide = mutants.Side{
	Play: func(scs []*scenarios.Scenario) []*scenarios.Result {
		results := make([]*scenarios.Result, len(scs))
		sem := make(chan struct{}, 16)
		var wg sync.WaitGroup
		for i, sc := range scs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				results[i] = runner.PlayReferenceCoreWithin(context.Background(), sc, "mutants", time.Second/2)
			}()
		}
		wg.Wait()
		return results
	},
	Replay: func(sc *scenarios.Scenario) *scenarios.Result {
		return runner.PlayReferenceCoreWithin(context.Background(), sc, "mutants", time.Second)
	},
}

var onlyPoints = flag.String("point", "", "judge only the mutants whose point matches this regular expression")

var updateMatrix = flag.Bool("update", false, "rewrite the Core section of docs/mutants.md from this run")
