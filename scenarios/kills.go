package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
)

// Kill is one line of a side's kill record (rules/kills): a mutant of the reference on that side,
// the clause it breaks, and the scenario that killed it.
type Kill struct {
	Side   Side   `json:"side"`
	Point  string `json:"point"`
	Clause string `json:"clause"` // a clause ID, or a rule not yet split
	Killer string `json:"killer,omitempty"`
	// Names says the killer names the clause: only such a kill shows the clause checked.
	Names bool `json:"names_clause,omitempty"`
}

//go:embed rules/kills
var killsFS embed.FS

var loadKills = sync.OnceValues(func() ([]Kill, error) { return parseKillFiles(killsFS, "rules/kills") })

// Kills returns the committed kill records of both sides.
func Kills() ([]Kill, error) { return loadKills() }

func parseKillFiles(fsys fs.FS, dir string) ([]Kill, error) {
	var out []Kill
	for _, side := range []Side{SideRuntime, SideCore} {
		raw, err := fs.ReadFile(fsys, dir+"/"+string(side)+".tsv")
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		ks, err := ParseKills(side, string(raw))
		if err != nil {
			return nil, err
		}
		out = append(out, ks...)
	}
	return out, nil
}

// ParseKills reads one side's kill record: point, clause, killer, names (yes/no); tab-separated,
// # comments.
func ParseKills(side Side, tsv string) ([]Kill, error) {
	var out []Kill
	for i, line := range strings.Split(strings.TrimSuffix(tsv, "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 || (cols[3] != "yes" && cols[3] != "no") || cols[0] == "" {
			return nil, fmt.Errorf("kills/%s.tsv:%d: want point, clause, killer, yes|no", side, i+1)
		}
		out = append(out, Kill{Side: side, Point: cols[0], Clause: cols[1], Killer: cols[2], Names: cols[3] == "yes"})
	}
	return out, nil
}

// ClauseOfKill is the clause a kill record's mutant breaks: its clause, or the one clause of a
// rule not yet split; "" for a bare rule that has since been split (the mutant needs its clause).
func ClauseOfKill(k Kill) string {
	if RuleOf(k.Clause) != k.Clause {
		return k.Clause
	}
	if cs := ClausesOf(k.Clause); len(cs) == 1 {
		return cs[0].ID
	}
	return ""
}
