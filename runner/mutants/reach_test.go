//go:build wirecheck_mutants

package mutants

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/internal/mutation"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A worker counts the points a play asks about up to the verdict, and no further: the teardown
// after it cannot change the verdict, and races the next play's reset.
func TestServeCountsThePointsReachedUpToTheVerdict(t *testing.T) {
	sc := &scenarios.Scenario{ID: "a/b"}
	side := Side{
		Scenarios: func() ([]*scenarios.Scenario, error) { return []*scenarios.Scenario{sc}, nil },
		Play: func(sc *scenarios.Scenario, _ bool, decided func()) *scenarios.Result {
			verdict := scenarios.Pass
			if mutation.On("before") {
				verdict = scenarios.Fail
			}
			decided()
			mutation.On("teardown")
			return &scenarios.Result{Scenario: sc.ID, Verdict: verdict, Duration: time.Millisecond}
		},
	}
	in := strings.NewReader(`{"scenario":"a/b"}` + "\n" + `{"scenario":"a/b","point":"before"}` + "\n")
	var out bytes.Buffer
	if err := serve(side, in, &out); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var clean, mutated outcome
	if err := dec.Decode(&clean); err != nil {
		t.Fatal(err)
	}
	if err := dec.Decode(&mutated); err != nil {
		t.Fatal(err)
	}
	want := outcome{Scenario: "a/b", Verdict: scenarios.Pass, Took: time.Millisecond, Reached: []string{"before"}}
	if d := cmp.Diff(want, clean); d != "" {
		t.Errorf("clean play (-want +got):\n%s", d)
	}
	if mutated.Verdict != scenarios.Fail || mutated.Failure == "" {
		t.Errorf("the play with its point active: %+v; want a failure, as the switch was on", mutated)
	}
}

// A scenario of unknown ID is refused, not played as an empty one.
func TestServeRefusesAnUnknownScenario(t *testing.T) {
	side := Side{Scenarios: func() ([]*scenarios.Scenario, error) { return nil, nil }}
	err := serve(side, strings.NewReader(`{"scenario":"nope"}`+"\n"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("serve = %v; want an error naming the scenario", err)
	}
}

// A mutant plays the scenarios that reach its point: those naming its clause (or its whole rule)
// first, then those naming another clause of its rule, each group cheapest first; the others never.
func TestReachingOrdersByClauseThenCost(t *testing.T) {
	r := Reach{Scenarios: map[string]ScenarioReach{
		"cheap":              {Took: 1, Points: []string{"p", "q"}},
		"dear":               {Took: 9, Points: []string{"p"}},
		"dear-for-clause":    {Took: 8, Rules: []string{"AD-01.2"}, Points: []string{"p"}},
		"cheap-for-rule":     {Took: 2, Rules: []string{"AD-01"}, Points: []string{"p"}},
		"cheap-other-clause": {Took: 1, Rules: []string{"CN-02", "AD-01.1"}, Points: []string{"p"}},
		"elsewhere":          {Took: 0, Rules: []string{"AD-01.2"}, Points: []string{"q"}},
	}}
	got := r.Reaching("p", "AD-01.2")
	want := []string{"cheap-for-rule", "dear-for-clause", "cheap-other-clause", "cheap", "dear"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Reaching (-want +got):\n%s", d)
	}
	if got := r.Reaching("none", "AD-01.2"); len(got) != 0 {
		t.Errorf("a point nothing reaches: %v", got)
	}
	if !r.Names("cheap-for-rule", "AD-01.2") || r.Names("cheap-other-clause", "AD-01.2") {
		t.Error("Names: a whole rule names each of its clauses, another clause of it does not")
	}
}
