//go:build wirecheck_mutants

package mutants

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Mutant is a single-bug variant as the matrix sees it, of either side: the point that turns it
// on and the clause (scenarios/rules/clauses) it breaks, or a rule not yet split into clauses.
type Mutant struct {
	Point, Clause, Description string
	Activate                   func() (restore func())
}

// Rule is the rule of the mutant's clause.
func (m Mutant) Rule() string { return scenarios.RuleOf(m.Clause) }

// A Kill is the matrix's finding for one mutant: the scenario that killed it, if one did.
type Kill struct {
	Mutant
	// Confirmed is the first scenario (verdict) whose failure repeated on a replay with the full
	// bounds; empty for a survivor.
	Confirmed string
	// Reaching is how many scenarios reach the mutant's point; Played how many of them it played,
	// cheapest first, up to the kill.
	Reaching, Played int
	Took             time.Duration
	// Names says the killer names the mutant's clause: only such a kill shows the clause checked.
	Names bool
	// Known is the survivors file's reason when the mutant is listed there.
	Known string
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

// Judge plays each mutant against the scenarios that reach its point (the map r), those that name
// its clause first, cheapest first, and stops at the first failure that repeats on a replay with
// the full bounds: load alone never makes a kill, and a scenario that does not reach the point
// cannot make one either (the map is proved complete by CheckComplete). Mutants play side by side
// on the pool's workers. Every mutant is judged and shown; a survivor fails the test unless known
// lists it, and a mutant known lists that was killed fails it too (the list only shrinks).
func Judge(ctx context.Context, t testing.TB, p *Pool, r Reach, ms []Mutant, known Survivors) []Kill {
	t.Helper()
	matrix := make([]Kill, len(ms))
	err := forEach(ctx, p, len(ms), func(i int) error {
		m := ms[i]
		began := time.Now()
		k := Kill{Mutant: m, Known: known[m.Point]}
		reaching := r.Reaching(m.Point, m.Clause)
		k.Reaching = len(reaching)
		for _, id := range reaching {
			k.Played++
			o, err := p.Play(ctx, play{Scenario: id, Point: m.Point})
			if err != nil {
				return err
			}
			if o.Verdict == scenarios.Pass {
				continue
			}
			again, err := p.Play(ctx, play{Scenario: id, Point: m.Point, Alone: true})
			if err != nil {
				return err
			}
			if again.Verdict != scenarios.Pass {
				k.Confirmed = fmt.Sprintf("%s (%s)", id, again.Verdict)
				k.Names = r.Names(id, m.Clause)
				break
			}
		}
		k.Took = time.Since(began)
		matrix[i] = k
		return nil
	})
	if err != nil {
		t.Fatalf("the matrix's workers failed: %v", err)
	}
	for _, k := range matrix {
		switch {
		case k.Confirmed != "" && k.Known != "":
			t.Errorf("mutant %s (%s) is listed in %s as a survivor but was killed by %s: take its line out (the list only shrinks)", k.Point, k.Clause, SurvivorsDir, k.Confirmed)
		case k.Confirmed != "":
			t.Logf("mutant %s killed by %s, the %d. of %d reaching scenarios, in %v", k.Point, k.Confirmed, k.Played, k.Reaching, k.Took.Round(time.Millisecond))
		case k.Known != "":
			t.Logf("known survivor %s (%s), reached by %d scenarios: %s", k.Point, k.Clause, k.Reaching, k.Known)
		case k.Reaching == 0:
			t.Errorf("mutant %s (%s) survived: no scenario reaches its point: %s", k.Point, k.Clause, k.Description)
		default:
			t.Errorf("mutant %s (%s) survived all %d scenarios that reach its point: %s", k.Point, k.Clause, k.Reaching, k.Description)
		}
	}
	return matrix
}

// WriteRows renders the matrix as a Markdown table.
func WriteRows(b *strings.Builder, matrix []Kill) {
	fmt.Fprintf(b, "| mutant | clause | breaks | verdict | killed by (failed twice) | reaching scenarios | played |\n| --- | --- | --- | --- | --- | ---: | ---: |\n")
	for _, k := range matrix {
		verdict := "killed"
		switch {
		case k.Confirmed == "" && k.Known != "":
			verdict = "**survived** (known: " + k.Known + ")"
		case k.Confirmed == "":
			verdict = "**survived**"
		case !k.Names:
			verdict = "killed, by a scenario that does not name its clause"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %d | %d |\n", k.Point, k.Clause, k.Description, verdict, k.Confirmed, k.Reaching, k.Played)
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
// mutant's point and the scenario that killed it.
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
		if id, _, ok := strings.Cut(cells[4], " ("); ok {
			out[point] = append(out[point], strings.TrimSpace(id))
		}
	}
	return out, nil
}
