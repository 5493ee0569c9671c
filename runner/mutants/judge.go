//go:build wirecheck_mutants

package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Mutant is a single-bug variant as the matrix sees it, of either side.
type Mutant struct {
	Point, Rule, Description string
	Activate                 func() (restore func())
}

// A kill is a scenario that passes against the reference and does not pass against the mutant.
type Kill struct {
	Mutant
	Confirmed string   // the scenario (verdict) whose failure repeated when it played alone
	Beside    []string // the other scenarios (verdict) that failed beside the others, not replayed
	Took      time.Duration
}

// Side is how one reference side's scenarios are played: play a set side by side, replay one alone.
type Side struct {
	Play   func([]*scenarios.Scenario) []*scenarios.Result
	Replay func(*scenarios.Scenario) *scenarios.Result
}

// Confirmed plays scs and plays again, alone, every scenario that did not pass beside the others,
// keeping the second result: a verdict that comes only from the load of a parallel run (a short
// real-time window missed) is not a baseline failure.
func (s Side) Confirmed(scs []*scenarios.Scenario) []*scenarios.Result {
	results := s.Play(scs)
	for i, r := range results {
		if r.Verdict != scenarios.Pass {
			results[i] = s.Replay(scs[i])
		}
	}
	return results
}

// Only keeps the mutants whose point matches pattern (a regular expression; empty keeps all), for a
// focused run while writing one: `make mutants POINT=ws-`. A filtered run never rewrites the
// matrix, which lists every mutant.
func Only(t testing.TB, ms []Mutant, pattern string, update bool) []Mutant {
	t.Helper()
	if pattern == "" {
		return ms
	}
	if update {
		t.Fatal("-update rewrites the whole matrix: run it without -point")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("-point: %v", err)
	}
	var kept []Mutant
	for _, m := range ms {
		if re.MatchString(m.Point) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		t.Skipf("-point %q matches no mutant of this side", pattern)
	}
	return kept
}

// Judge plays scs against each mutant in turn and fails the test for every survivor: a survivor is
// never whitelisted (write the scenario, or take the mutant out and report it).
//
// A mutant is killed when a scenario that failed beside the others fails again alone: load alone
// never makes a kill. Replaying stops at the first repeat, because a mutant that withholds a frame
// fails most of the catalog, each failure costing a full step bound alone (one mutant, 63 scenarios,
// was a minute of replays); the other failures are listed as seen beside the others.
func Judge(t testing.TB, s Side, scs []*scenarios.Scenario, ms []Mutant) []Kill {
	t.Helper()
	var matrix []Kill
	for _, m := range ms {
		began := time.Now()
		restore := m.Activate()
		k := Kill{Mutant: m}
		for i, r := range s.Play(scs) {
			if r.Verdict == scenarios.Pass {
				continue
			}
			if k.Confirmed == "" {
				if alone := s.Replay(scs[i]); alone.Verdict != scenarios.Pass {
					k.Confirmed = fmt.Sprintf("%s (%s)", alone.Scenario, alone.Verdict)
					continue
				}
			}
			k.Beside = append(k.Beside, fmt.Sprintf("%s (%s)", r.Scenario, r.Verdict))
		}
		restore()
		k.Took = time.Since(began)
		slices.Sort(k.Beside)
		matrix = append(matrix, k)
		if k.Confirmed == "" {
			t.Errorf("mutant %s (%s) survived: %s", m.Point, m.Rule, m.Description)
		} else {
			t.Logf("mutant %s killed by %s and %d more, in %v", m.Point, k.Confirmed, len(k.Beside), k.Took.Round(time.Millisecond))
		}
	}
	return matrix
}

// WriteRows renders the matrix as a Markdown table.
func WriteRows(b *strings.Builder, matrix []Kill) {
	fmt.Fprintf(b, "| mutant | rule | breaks | verdict | killed by (failed alone) | also failed beside the others |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, k := range matrix {
		verdict := "killed"
		if k.Confirmed == "" {
			verdict = "**survived**"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", k.Point, k.Rule, k.Description, verdict, k.Confirmed, strings.Join(k.Beside, "<br>"))
	}
}

// CoreSection marks where the Core matrix begins in docs/mutants.md; the Runtime matrix is above it.
const CoreSection = "\n## Core mutants\n"

// Doc is docs/mutants.md as the matrices' tests (two directories below this one) see it.
var Doc = filepath.Join("..", "..", "..", "docs", "mutants.md")

// WriteSection rewrites one section of docs/mutants.md and keeps the other: section "" is the
// Runtime matrix at the top, CoreSection the Core matrix after it.
func WriteSection(section, text string) error { return WriteDocSection(Doc, section, text) }

// MonitorDoc is docs/monitor-mutants.md, in the same two sections as Doc.
var MonitorDoc = filepath.Join("..", "..", "..", "docs", "monitor-mutants.md")

// WriteDocSection rewrites one section of a two-section document (see WriteSection).
func WriteDocSection(doc, section, text string) error {
	old, err := os.ReadFile(doc)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	runtime, core, _ := strings.Cut(string(old), CoreSection)
	if core != "" {
		core = CoreSection[1:] + core
	}
	if section == "" {
		runtime = text
	} else {
		core = text
	}
	out := strings.TrimRight(runtime, "\n") + "\n"
	if core != "" {
		out += "\n" + core
	}
	return os.WriteFile(doc, []byte(out), 0o644)
}

// KillersOf reads one section of docs/mutants.md ("" the Runtime's, CoreSection the Core's): each
// mutant's point and the scenarios that failed against it, the confirmed one and those beside it.
func KillersOf(section string) (map[string][]string, error) {
	raw, err := os.ReadFile(Doc)
	if err != nil {
		return nil, err
	}
	runtime, core, _ := strings.Cut(string(raw), CoreSection)
	text := runtime
	if section != "" {
		text = core
	}
	out := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 6 || !strings.HasPrefix(cells[0], "| ") {
			continue
		}
		point := strings.TrimPrefix(cells[0], "| ")
		for _, cell := range cells[4:6] {
			for _, s := range strings.Split(strings.TrimSuffix(cell, " |"), "<br>") {
				if id, _, ok := strings.Cut(s, " ("); ok {
					out[point] = append(out[point], strings.TrimSpace(id))
				}
			}
		}
	}
	return out, nil
}
