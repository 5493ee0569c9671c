//go:build wirecheck_mutants

package mutants

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Reach is the map two clean runs build: for each scenario, what its play against the unmutated
// reference cost and which mutation points it reached before its verdict was decided. A mutant can only change the verdict of a
// scenario that reaches its point (its switch is asked nowhere else), so the matrix plays each
// mutant against those alone, cheapest first. It is built afresh by every run, never edited.
type Reach struct {
	Scenarios map[string]ScenarioReach `json:"scenarios"`
}

// ScenarioReach is one scenario's entry in the map.
type ScenarioReach struct {
	Took   time.Duration `json:"took_ns"`
	Rules  []string      `json:"rules,omitempty"` // the rules and clauses the scenario names
	Points []string      `json:"points"`
}

// Reaching returns the scenarios that reach point, in the order a mutant of clause plays them:
// those that name the clause first (by its ID or its whole rule), then those that name another
// clause of its rule, then the others, each group cheapest first. A point on a common path (the
// handshake, a heartbeat) is reached by most of the catalog, and the scenario written for its
// clause is seldom the cheapest.
func (r Reach) Reaching(point, clause string) []string {
	var ids []string
	for id, s := range r.Scenarios {
		if _, ok := slices.BinarySearch(s.Points, point); ok {
			ids = append(ids, id)
		}
	}
	rule := scenarios.RuleOf(clause)
	names := func(id string) int {
		rs := r.Scenarios[id].Rules
		switch {
		case slices.Contains(rs, clause) || slices.Contains(rs, rule):
			return 0
		case slices.ContainsFunc(rs, func(n string) bool { return scenarios.RuleOf(n) == rule }):
			return 1
		}
		return 2
	}
	slices.SortFunc(ids, func(a, b string) int {
		return cmp.Or(cmp.Compare(names(a), names(b)), cmp.Compare(r.Scenarios[a].Took, r.Scenarios[b].Took), cmp.Compare(a, b))
	})
	return ids
}

// Names reports whether scenario id names clause, by its ID or its whole rule.
func (r Reach) Names(id, clause string) bool {
	rs := r.Scenarios[id].Rules
	return slices.Contains(rs, clause) || slices.Contains(rs, scenarios.RuleOf(clause))
}

// Write saves the map as JSON at path (the run's artefact, out/mutants/, for a reader who asks why
// a mutant played where it did).
func (r Reach) Write(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Baseline plays every scenario against the unmutated reference, one per worker at a time, and
// builds the map from what each play reached. A scenario that does not pass is replayed alone with
// the full bounds, and its reach is the union of both plays; one that fails again is returned: the
// reference itself fails it, and no mutant can be judged by it.
func Baseline(ctx context.Context, p *Pool, scs []*scenarios.Scenario) (Reach, []string, error) {
	r := Reach{Scenarios: map[string]ScenarioReach{}}
	var failing []string
	var mu sync.Mutex
	err := forEach(ctx, p, len(scs), func(i int) error {
		o, err := p.Play(ctx, play{Scenario: scs[i].ID})
		if err != nil {
			return err
		}
		reached := o.Reached
		if o.Verdict != scenarios.Pass {
			again, err := p.Play(ctx, play{Scenario: scs[i].ID, Alone: true})
			if err != nil {
				return err
			}
			reached = union(reached, again.Reached)
			o.Took = again.Took
			if again.Verdict != scenarios.Pass {
				mu.Lock()
				failing = append(failing, fmt.Sprintf("%s (%s): %s", again.Scenario, again.Verdict, again.Failure))
				mu.Unlock()
			}
		}
		mu.Lock()
		r.Scenarios[scs[i].ID] = ScenarioReach{Took: o.Took, Rules: scs[i].Rules, Points: reached}
		mu.Unlock()
		return nil
	})
	slices.Sort(failing)
	return r, failing, err
}

// Complete makes the map complete and proves it, on a second clean run: every scenario plays
// again, in an order shuffled by seed, each with one registered mutant active whose point the
// first play did not reach (chosen by seed).
//
// A point the second play reached and the first did not is a racy reach: the daemon got there
// concurrently with the last steps, on some plays only. It is added to the map (the mutant then
// plays that scenario too) and returned, for the log. A play whose verdict the active mutant
// changed, confirmed on a replay, without reaching its point on either play, is a hole: the
// mutant acts where its switch is never asked, and the matrix would skip a scenario that can kill
// it. Holes are returned, one line each, and fail the run.
func (r Reach) Complete(ctx context.Context, p *Pool, points []string, seed uint64) (racy, holes []string, err error) {
	rng := rand.New(rand.NewPCG(seed, seed))
	ids := make([]string, 0, len(r.Scenarios))
	for id := range r.Scenarios {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	plays := make([]play, len(ids))
	for i, id := range ids {
		var unreached []string
		for _, pt := range points {
			if _, ok := slices.BinarySearch(r.Scenarios[id].Points, pt); !ok {
				unreached = append(unreached, pt)
			}
		}
		plays[i] = play{Scenario: id}
		if len(unreached) > 0 {
			plays[i].Point = unreached[rng.IntN(len(unreached))]
		}
	}
	var mu sync.Mutex
	note := func(to *[]string, format string, args ...any) {
		mu.Lock()
		*to = append(*to, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	extra := make([][]string, len(plays))
	err = forEach(ctx, p, len(plays), func(i int) error {
		pl := plays[i]
		o, err := p.Play(ctx, pl)
		if err != nil {
			return err
		}
		first := r.Scenarios[pl.Scenario].Points
		for _, pt := range o.Reached {
			if _, ok := slices.BinarySearch(first, pt); !ok {
				extra[i] = append(extra[i], pt)
				note(&racy, "%s reached %s on one clean play of two", pl.Scenario, pt)
			}
		}
		if o.Verdict == scenarios.Pass || pl.Point == "" || slices.Contains(o.Reached, pl.Point) {
			return nil
		}
		again, err := p.Play(ctx, play{Scenario: pl.Scenario, Point: pl.Point, Alone: true})
		if err != nil {
			return err
		}
		if again.Verdict != scenarios.Pass && !slices.Contains(again.Reached, pl.Point) {
			note(&holes, "%s (%s) with mutant %s active, whose point it never reaches: %s", pl.Scenario, again.Verdict, pl.Point, again.Failure)
		}
		return nil
	})
	for i, pts := range extra {
		if len(pts) > 0 {
			e := r.Scenarios[plays[i].Scenario]
			e.Points = union(e.Points, pts)
			r.Scenarios[plays[i].Scenario] = e
		}
	}
	slices.Sort(racy)
	slices.Sort(holes)
	return racy, holes, err
}

// forEach runs f(0..n-1), as many at a time as the pool has workers, and returns the first error.
func forEach(ctx context.Context, p *Pool, n int, f func(int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, cap(p.free))
	var wg sync.WaitGroup
	for range cap(p.free) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
