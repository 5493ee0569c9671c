//go:build wirecheck_mutants

package corematrix_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coremutation "github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/runner/mutants"
	"github.com/wirecheck/wirecheck/scenarios"
)

// TestMain serves plays when the matrix starts this binary as one of its workers.
func TestMain(m *testing.M) {
	mutants.ServeIfWorker(coreSide)
	os.Exit(m.Run())
}

// The Core-side catalog is worth what it catches: every registered single-bug variant of the
// reference Core fails at least one Core scenario that the unmutated reference Core passes, among
// those that reach its point. Every mutant is judged and shown; a survivor fails the test unless
// runner/mutants/survivors/<FAMILY>.tsv lists it.
func TestCoreMutationMatrix(t *testing.T) {
	var ms []mutants.Mutant
	for _, m := range coremutation.Core {
		ms = append(ms, mutants.Mutant{Point: string(m.Point), Clause: m.Clause, Description: m.Description,
			Activate: func() func() { return coremutation.Activate(m.Point) }})
	}
	mx := mutants.Run(t, coreSide, ms, filepath.Join("..", "..", "..", "out", "mutants", "core-reach.json"))

	var b strings.Builder
	fmt.Fprint(&b, mutants.CoreSection[1:])
	fmt.Fprintf(&b, "\nEach single-bug variant of the reference Core (`reference/core/mutation`), the clause it breaks "+
		"(`scenarios/rules/clauses`; a bare rule ID: a rule not yet split), and the first Core scenario (of the %d the unmutated reference Core passes, "+
		"played by the `core: reference` pairing) that kills it. A mutant plays only the scenarios that reach its point (`out/mutants/core-reach.json`), "+
		"those naming its clause first, each group cheapest first, and a kill counts only when the failure repeats on a replay with the full bounds. "+
		"Every mutant is kept and shown; a survivor fails the run unless `runner/mutants/survivors/<FAMILY>.tsv` lists it.\n\n", mx.Scenarios)
	fmt.Fprintf(&b, "### Score per family\n\n")
	mutants.WriteScore(&b, mutants.Score(mx.Kills))
	fmt.Fprintf(&b, "\n### Every mutant\n\n")
	mutants.WriteRows(&b, mx.Kills)
	table := b.String()
	fmt.Print(table)
	t.Logf("%d Core mutants against %d scenarios in %v", len(mx.Kills), mx.Scenarios, mx.Took.Round(100*time.Millisecond))
	if mutants.Update() {
		if err := mutants.WriteSection(mutants.CoreSection, table); err != nil {
			t.Fatal(err)
		}
	}
}

// coreSide plays Core scenarios against a fresh in-process reference Core each. A first play has
// a short real-time bound on each read, so a mutant that withholds a frame costs half a second;
// the replay that confirms a failure has the full second.
var coreSide = mutants.Side{
	Name: "core",
	Scenarios: func() ([]*scenarios.Scenario, error) {
		cat, err := scenarios.Embedded()
		if err != nil {
			return nil, err
		}
		pairing := runner.ReferenceCorePairing()
		var scs []*scenarios.Scenario
		for _, sc := range cat.Scenarios {
			if pairing.Covers(sc) && pairing.Skip(sc) == "" {
				scs = append(scs, sc)
			}
		}
		return scs, nil
	},
	Play: func(sc *scenarios.Scenario, alone bool, decided func()) *scenarios.Result {
		o := runner.Options{Seed: "mutants", Step: time.Second / 2, Decided: func(*scenarios.Scenario) { decided() }}
		if alone {
			o.Step = time.Second
		}
		return runner.PlayReferenceCoreWith(context.Background(), sc, o)
	},
}
