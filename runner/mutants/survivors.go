//go:build wirecheck_mutants

package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SurvivorsFile lists the mutants known to survive the catalog, each with why: a mutant written
// from its clause before the scenario that kills it, or one equivalent to the reference. The
// matrix shows every survivor; it fails only on one this file does not list, and on a listed one
// that was killed, so the file only shrinks. Its path is relative to the repository.
const SurvivorsFile = "runner/mutants/survivors.tsv"

// Survivors maps a known survivor's point to the reason the file gives.
type Survivors map[string]string

// LoadSurvivors reads the survivors file of one side ("runtime" or "core") from the matrix tests'
// directory (two below this one): side, point, clause, why; tab-separated, # comments. A point the
// side's registry does not have is an error: the file names only mutants that exist.
func LoadSurvivors(side string, ms []Mutant) (Survivors, error) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", SurvivorsFile))
	if err != nil {
		return nil, err
	}
	return parseSurvivors(string(raw), side, ms)
}

func parseSurvivors(text, side string, ms []Mutant) (Survivors, error) {
	clauses := map[string]string{}
	for _, m := range ms {
		clauses[m.Point] = m.Clause
	}
	out := Survivors{}
	var errs []string
	for i, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		at := fmt.Sprintf("%s:%d", SurvivorsFile, i+1)
		switch {
		case len(cols) != 4:
			errs = append(errs, fmt.Sprintf("%s: want 4 tab-separated columns (side, point, clause, why), got %d", at, len(cols)))
			continue
		case cols[0] != "runtime" && cols[0] != "core":
			errs = append(errs, fmt.Sprintf("%s: side %q: want runtime or core", at, cols[0]))
			continue
		case cols[0] != side:
			continue
		}
		point, clause, why := cols[1], cols[2], strings.TrimSpace(cols[3])
		got, ok := clauses[point]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s: %s has no mutant %q: the file lists only registered mutants", at, side, point))
		case got != clause:
			errs = append(errs, fmt.Sprintf("%s: mutant %s breaks %s, not %s", at, point, got, clause))
		case why == "":
			errs = append(errs, fmt.Sprintf("%s: %s is listed without a reason", at, point))
		case out[point] != "":
			errs = append(errs, fmt.Sprintf("%s: %s is listed twice", at, point))
		default:
			out[point] = why
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}
