package journal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// rejudgeScenario is played against the reference Runtime in process; each case below makes its
// recorded result into another daemon's.
const rejudgeScenario = "runs/prepared/completes-and-releases-before-done"

// TestRejudgeTellsTheTruthOnFailingRuns: an untouched journal rejudges clean whatever it recorded.
// A run recorded not applicable played no step; a run recorded failing ended at its failure, so
// what it never recorded is held against no step (a daemon that exits before connecting recorded
// nothing at all); a failure outside the steps (step 0) is never said to come after a step.
func TestRejudgeTellsTheTruthOnFailingRuns(t *testing.T) {
	t.Parallel()
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := cat.Get(rejudgeScenario)
	if !ok {
		t.Fatalf("%s is not in the catalog", rejudgeScenario)
	}
	ref := runner.PlayRuntime(context.Background(), sc, 0, runner.ReferenceRuntime{}, runner.Options{Seed: "rejudge"})
	if ref.Verdict != scenarios.Pass {
		t.Fatalf("the reference: %s", ref)
	}
	firstReply := slices.IndexFunc(ref.Transcript, func(e scenarios.Exchange) bool {
		return e.Dir == scenarios.RuntimeToCore && e.Type != "heartbeat"
	})
	lastStep := sc.Steps[len(sc.Steps)-1].Index

	cases := []struct {
		name    string
		edit    func(r *scenarios.Result)
		now     string
		differs []string
	}{
		{name: "a pass", edit: func(*scenarios.Result) {}, now: "pass"},
		{name: "not applicable before connecting", now: journal.NowNotApplicable, edit: func(r *scenarios.Result) {
			r.Verdict, r.Transcript = scenarios.NotApplicable, nil
			r.Failure = &scenarios.Failure{Message: "not applicable: await_stall needs a Runtime whose socket send buffer the harness bounds"}
		}},
		{name: "not applicable after the first heartbeat", now: journal.NowNotApplicable, edit: func(r *scenarios.Result) {
			r.Verdict, r.Transcript = scenarios.NotApplicable, r.Transcript[:firstReply]
			r.Failure = &scenarios.Failure{Message: `not applicable: kind "contract" does not declare [preparation]`, Missing: []string{"preparation"}}
		}},
		{name: "a daemon that exits before connecting", now: journal.NowAsRecorded, edit: func(r *scenarios.Result) {
			r.Verdict, r.Transcript = scenarios.Fail, nil
			r.Daemons = []scenarios.Daemon{{Exit: "exit code 7", Code: 7}}
			r.Failure = &scenarios.Failure{Message: "the Runtime stopped before connecting (exit code 7)", Cause: "the daemon exits before connecting (exit code 7)"}
		}},
		{name: "a daemon refused at the upgrade", now: journal.NowAsRecorded, edit: func(r *scenarios.Result) {
			r.Verdict = scenarios.Fail
			r.Transcript = []scenarios.Exchange{{Dir: scenarios.Event, Type: "rejected", Note: "401: no Bearer credential"}}
			r.Failure = &scenarios.Failure{Message: "the Runtime did not connect within 20s"}
		}},
		{name: "silent after its first reply", now: journal.NowAsRecorded, edit: func(r *scenarios.Result) {
			r.Verdict, r.Transcript = scenarios.Fail, r.Transcript[:firstReply+1]
			r.Failure = &scenarios.Failure{Step: lastStep, Message: "nothing arrived within 3s"}
		}},
		{name: "a frame that now fails under a failure outside the steps", edit: func(r *scenarios.Result) {
			r.Verdict = scenarios.Fail
			r.Transcript = slices.Clone(r.Transcript)
			r.Transcript[firstReply].Frame = withID(t, r.Transcript[firstReply].Frame, "someone-else")
			r.Failure = &scenarios.Failure{Message: "wirecheck runtime must exit 0; it ended with exit code 1"}
		}, now: "fail at step 2", differs: []string{"recorded fail outside the steps; step 2, which its recorded frames reached, now fails"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := *ref
			c.edit(&res)
			var b bytes.Buffer
			if _, err := journal.Write(&b, journal.Header{Wire: "0.11.0", Clock: "virtual"}, &res, nil); err != nil {
				t.Fatal(err)
			}
			recs, err := journal.Read(&b)
			if err != nil {
				t.Fatal(err)
			}
			got := journal.Rejudge(recs, cat)
			if got.Now != c.now {
				t.Errorf("now %q, want %q", got.Now, c.now)
			}
			var what []string
			for _, d := range got.Differences {
				what = append(what, d.What)
				if len(what) <= len(c.differs) {
					what[len(what)-1] = d.What[:min(len(d.What), len(c.differs[len(what)-1]))] // the reason after it is the matcher's
				}
			}
			if diff := cmp.Diff(c.differs, what); diff != "" {
				t.Errorf("differences (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRejudgeKnowsARuntimeMayEndItsTransport: after a disconnect step with may_end, a passing run
// whose Runtime ended its transport recorded none of the later steps' frames, and the player
// judged none: rejudging it finds nothing missing. A frame it did record is still matched.
func TestRejudgeKnowsARuntimeMayEndItsTransport(t *testing.T) {
	t.Parallel()
	const id = "cancellation/ds-03-device-shutdown-closes-pending-preparations"
	cat, sc := catalogScenario(t, id)
	mayEnd := slices.IndexFunc(sc.Steps, func(st *scenarios.Step) bool {
		return st.Kind == scenarios.StepDisconnect && st.Close.MayEnd
	})
	if mayEnd < 0 || !slices.ContainsFunc(sc.Steps[mayEnd:], func(st *scenarios.Step) bool { return st.Kind == scenarios.StepRuntime }) {
		t.Fatalf("%s no longer expects a Runtime frame after a may_end step", id)
	}
	ref := runner.PlayRuntime(context.Background(), sc, 0, runner.ReferenceRuntime{}, runner.Options{Seed: "rejudge"})
	if ref.Verdict != scenarios.Pass {
		t.Fatalf("the reference: %s", ref)
	}
	if got := rejudge(t, ref, cat); got.Now != "pass" || len(got.Differences) > 0 {
		t.Fatalf("the reference, untouched: now %q, %v", got.Now, got.Differences)
	}
	// A Runtime that ended its transport at the may_end step: its transcript stops there.
	ended := *ref
	cut := slices.IndexFunc(ref.Transcript, func(e scenarios.Exchange) bool { return e.Step > sc.Steps[mayEnd].Index })
	ended.Transcript = ref.Transcript[:cut]
	if got := rejudge(t, &ended, cat); got.Now != "pass" || len(got.Differences) > 0 {
		t.Errorf("ended at the may_end step: now %q, %v", got.Now, got.Differences)
	}
	// One that stayed, and sent another frame than a later step expects, still fails there.
	wrong := *ref
	wrong.Transcript = slices.Clone(ref.Transcript)
	last := slices.IndexFunc(wrong.Transcript, func(e scenarios.Exchange) bool {
		return e.Step > sc.Steps[mayEnd].Index && e.Dir == scenarios.RuntimeToCore && e.Type != "heartbeat"
	})
	wrong.Transcript[last].Frame = withID(t, wrong.Transcript[last].Frame, "someone-else")
	if got := rejudge(t, &wrong, cat); got.Now == "pass" {
		t.Errorf("a wrong frame after the may_end step: now %q, %v", got.Now, got.Differences)
	}
}

// TestRejudgeFollowsAnExportPull: an export_pull step is rejudged chunk by chunk as the player
// judged it, so an untouched pull rejudges clean, and a recorded archive that no longer holds the
// written files fails the step.
func TestRejudgeFollowsAnExportPull(t *testing.T) {
	t.Parallel()
	const id = "workspace/runtime/export-pulled-to-end-holds-the-written-files"
	cat, sc := catalogScenario(t, id)
	pull := slices.IndexFunc(sc.Steps, func(st *scenarios.Step) bool { return st.Kind == scenarios.StepExportPull })
	if pull < 0 {
		t.Fatalf("%s has no export_pull step", id)
	}
	ref := runner.PlayRuntime(context.Background(), sc, 0, runner.ReferenceRuntime{}, runner.Options{Seed: "rejudge"})
	if ref.Verdict != scenarios.Pass {
		t.Fatalf("the reference: %s", ref)
	}
	if got := rejudge(t, ref, cat); got.Now != "pass" || len(got.Differences) > 0 {
		t.Fatalf("the reference, untouched: now %q, %v", got.Now, got.Differences)
	}
	// The first chunk's data replaced by other bytes of a valid chunk: the archive no longer holds
	// the files.
	bad := *ref
	bad.Transcript = slices.Clone(ref.Transcript)
	first := slices.IndexFunc(bad.Transcript, func(e scenarios.Exchange) bool {
		return e.Step == sc.Steps[pull].Index && e.Type == "workspace_export_result"
	})
	var m map[string]any
	if err := json.Unmarshal([]byte(bad.Transcript[first].Frame), &m); err != nil {
		t.Fatal(err)
	}
	m["payload"].(map[string]any)["data"] = "AAAA"
	raw, _ := json.Marshal(m)
	bad.Transcript[first].Frame = string(raw)
	if got := rejudge(t, &bad, cat); got.Now != fmt.Sprintf("fail at step %d", sc.Steps[pull].Index) {
		t.Errorf("a pull whose first chunk changed: now %q, %v", got.Now, got.Differences)
	}
}

// catalogScenario is the embedded catalog and its scenario id.
func catalogScenario(t *testing.T, id string) (*scenarios.Catalog, *scenarios.Scenario) {
	t.Helper()
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := cat.Get(id)
	if !ok {
		t.Fatalf("%s is not in the catalog", id)
	}
	return cat, sc
}

// rejudge writes r as a journal, reads it back and rejudges it against cat.
func rejudge(t *testing.T, r *scenarios.Result, cat *scenarios.Catalog) journal.Rejudged {
	t.Helper()
	var b bytes.Buffer
	if _, err := journal.Write(&b, journal.Header{Wire: "0.11.0", Clock: "virtual"}, r, nil); err != nil {
		t.Fatal(err)
	}
	recs, err := journal.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	return journal.Rejudge(recs, cat)
}

// withID is frame with its envelope's id replaced.
func withID(t *testing.T, frame, id string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(frame), &m); err != nil {
		t.Fatal(err)
	}
	m["id"] = id
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
