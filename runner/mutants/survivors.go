//go:build wirecheck_mutants

package mutants

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SurvivorsDir lists the mutants known to survive the catalog, one file per family
// (<FAMILY>.tsv), each line with why: a mutant written from its clause before the scenario that
// kills it, or one equivalent to the reference. The matrix shows every survivor; it fails only on
// one no file lists, and on a listed one that was killed, so the files only shrink. Its path is
// relative to the repository.
const SurvivorsDir = "runner/mutants/survivors"

// Survivors maps a known survivor's point to the reason the file gives.
type Survivors map[string]string

// LoadSurvivors reads the survivors files' lines of one side ("runtime" or "core"), as the matrix
// tests (two directories below this one) see them: side, point, clause, why; tab-separated, #
// comments. A point the side's registry does not have is an error: the files name only mutants
// that exist.
func LoadSurvivors(side string, ms []Mutant) (Survivors, error) {
	files, err := filepath.Glob(filepath.Join("..", "..", "..", SurvivorsDir, "*.tsv"))
	if err != nil {
		return nil, err
	}
	var all strings.Builder
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		all.WriteString(fmt.Sprintf("# %s\n%s\n", filepath.Base(f), raw))
	}
	return parseSurvivors(all.String(), side, ms)
}

func parseSurvivors(text, side string, ms []Mutant) (Survivors, error) {
	clauses := map[string]string{}
	for _, m := range ms {
		clauses[m.Point] = m.Clause
	}
	out := Survivors{}
	var errs []string
	file, n := SurvivorsDir, 0
	for _, line := range strings.Split(text, "\n") {
		n++
		if name, ok := strings.CutPrefix(line, "# "); ok && strings.HasSuffix(name, ".tsv") && !strings.Contains(name, " ") {
			file, n = SurvivorsDir+"/"+name, 0 // where LoadSurvivors joined the next file
			continue
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		at := fmt.Sprintf("%s:%d", file, n)
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
