package scenarios

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const tableDoc = `table: busy/runtime
title: "{operation} while {state} is refused"
tests: runtime
labels: [busy]
states:
  exporting:
    title: an export runs
    requires: [preparation]
    vars: {env: e1}
    steps: [{silence: runtime}]
  writing:
    title: a write receives its body
    steps: [{silence: core}]
operations:
  start:
    title: an execution_start
    requires: [preparation, streaming]
    vars: {run: r1}
    steps: [{silence: {from: runtime, window: 10ms}}]
  prepare:
    title: an execution_prepare
    steps: [{silence: runtime}]
cells:
  start: {exporting: [AD-32.2], writing: [AD-32.1]}
  prepare: {exporting: [AD-14.1]}
except:
  prepare: {writing: "the write's own rule (WS-20) refuses it"}
`

// A table stands for one scenario per (operation, state) cell, with both entries' requires and
// vars and the state's steps before the operation's.
func TestTableExpandsToOneScenarioPerCell(t *testing.T) {
	parsed, err := Parse("busy.yaml", []byte(tableDoc))
	if err != nil {
		t.Fatal(err)
	}
	c, errs := Link(parsed)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	byID := map[string]*Scenario{}
	for _, sc := range c.Scenarios {
		byID[sc.ID] = sc
	}
	var scs []*Scenario
	for _, p := range parsed {
		scs = append(scs, byID[p.ID])
	}
	type row struct {
		ID, Title string
		Rules     []string
		Requires  []string
		Steps     int
		Vars      []string
	}
	var got []row
	for _, sc := range scs {
		var vars []string
		for k := range sc.Vars {
			vars = append(vars, k)
		}
		slices.Sort(vars)
		got = append(got, row{sc.ID, sc.Title, sc.Rules, sc.Requires, len(sc.Steps), vars})
	}
	want := []row{
		{"busy/runtime/start/in-exporting", "an execution_start while an export runs is refused", []string{"AD-32.2"}, []string{"preparation", "streaming"}, 2, []string{"env", "run"}},
		{"busy/runtime/start/in-writing", "an execution_start while a write receives its body is refused", []string{"AD-32.1"}, []string{"preparation", "streaming"}, 2, []string{"run"}},
		{"busy/runtime/prepare/in-exporting", "an execution_prepare while an export runs is refused", []string{"AD-14.1"}, []string{"preparation"}, 2, []string{"env"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

// Every (operation, state) pair needs its clauses or an excepted reason.
func TestTableRefusesAMissingRow(t *testing.T) {
	doc := tableDoc[:len(tableDoc)-len("except:\n  prepare: {writing: \"the write's own rule (WS-20) refuses it\"}\n")]
	_, err := Parse("busy.yaml", []byte(doc))
	want := []string{"busy.yaml:24: table busy/runtime: prepare in writing has no row: give it the clauses it checks under cells, or a reason under except"}
	if d := cmp.Diff(want, loadErrors(t, err)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}
