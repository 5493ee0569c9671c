//go:build wirecheck_mutants

package mutants

import (
	"context"
	"flag"
	"runtime"
	"slices"
	"testing"
	"time"
)

// The matrix tests' flags, shared by both sides' test binaries.
var (
	onlyPoints   = flag.String("point", "", "judge only the mutants whose point matches this regular expression")
	updateMatrix = flag.Bool("update", false, "rewrite this side's section of docs/mutants.md from this run")
	workers      = flag.Int("workers", 2*runtime.NumCPU(), "worker processes playing side by side (a play mostly waits on loopback)")
	seedFlag     = flag.Uint64("seed", 0, "seed of the map's completeness check (0: one drawn from the clock, printed)")
)

// Update reports whether this run rewrites docs/mutants.md (-update).
func Update() bool { return *updateMatrix }

// Matrix is one side's run: the map a clean run built and each mutant's finding.
type Matrix struct {
	Kills     []Kill
	Scenarios int // the side's scenarios, all passed by the unmutated reference
	Reach     Reach
	Took      time.Duration
}

// Run is one side's whole matrix: it starts the workers, plays the clean run that builds the map
// (every scenario must pass), completes the map and proves it complete on a second clean run
// (Reach.Complete), saves it at reachFile, and judges ms. It fails t on a scenario the reference
// fails, a hole in the map, and a survivor the survivors file does not list. With -update it
// rewrites the side's kill record (KillsFile).
func Run(t *testing.T, s Side, ms []Mutant, reachFile string) Matrix {
	t.Helper()
	began := time.Now()
	// The survivors files name mutants of the whole registry, a focused run's too.
	known, err := LoadSurvivors(s.Name, ms)
	if err != nil {
		t.Fatal(err)
	}
	ms = Only(t, ms, *onlyPoints, *updateMatrix)
	scs, err := s.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPool(max(1, *workers))
	if err != nil {
		t.Fatalf("starting the matrix's workers: %v", err)
	}
	defer p.Close()
	ctx := context.Background()

	reach, failing, err := Baseline(ctx, p, scs)
	if err != nil {
		t.Fatalf("the clean run: %v", err)
	}
	for _, f := range failing {
		t.Errorf("the unmutated reference fails %s", f)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("the clean run: %d scenarios pass in %v on %d workers", len(scs), time.Since(began).Round(time.Millisecond), *workers)

	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	var points []string
	for _, m := range ms {
		points = append(points, m.Point)
	}
	slices.Sort(points)
	racy, holes, err := reach.Complete(ctx, p, points, seed)
	if err != nil {
		t.Fatalf("the second clean run: %v", err)
	}
	for _, h := range holes {
		t.Errorf("the map is not complete (seed %d): %s", seed, h)
	}
	if t.Failed() {
		t.FailNow()
	}
	for _, r := range racy {
		t.Logf("racy reach, added to the map: %s", r)
	}
	if err := reach.Write(reachFile); err != nil {
		t.Fatal(err)
	}
	t.Logf("the map is complete (seed %d): on a second clean run, no mutant whose point a scenario did not reach changed its verdict; %d racy reaches added; the map is at %s",
		seed, len(racy), reachFile)

	kills := Judge(ctx, t, p, reach, ms, known)
	switch {
	case *updateMatrix:
		if err := WriteKills(KillsFile(s.Name), kills); err != nil {
			t.Fatal(err)
		}
	case *onlyPoints == "":
		for _, e := range CheckKillRecord(s.Name, kills) {
			t.Error(e)
		}
	}
	return Matrix{Kills: kills, Scenarios: len(scs), Reach: reach, Took: time.Since(began)}
}
