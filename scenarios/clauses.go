package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Clause is one thing a rule asks, on its own: an obligation, the code of one case, one edge of a
// bound, one busy state an operation is refused in. It is the unit a scenario names, a mutant
// breaks and coverage counts: a rule is checked clause by clause (rules/clauses/README.md).
type Clause struct {
	ID    string     `json:"id"`   // e.g. AD-38.2
	Rule  string     `json:"rule"` // e.g. AD-38
	Binds Side       `json:"binds"`
	Kind  ClauseKind `json:"kind"`
	Text  string     `json:"text"`
	// Unobservable, when set, says why no wire observation can show the clause broken.
	Unobservable string `json:"unobservable,omitempty"`
	// Implicit marks the one clause of a rule not yet split: the whole rule as its rules.tsv line
	// states it.
	Implicit bool `json:"implicit,omitempty"`
}

// ClauseKind says what sort of thing a clause asks; a bound has two clauses, one per edge.
type ClauseKind string

const (
	KindDuty      ClauseKind = "duty"       // do, or never do, something
	KindCode      ClauseKind = "code"       // in one case, answer with one code, status or close code
	KindShape     ClauseKind = "shape"      // one way a member is constrained
	KindState     ClauseKind = "state"      // one operation refused (or answered) in one state
	KindEarly     ClauseKind = "early"      // a time bound's near edge: acting before it is due
	KindLate      ClauseKind = "late"       // a time bound's far edge: not acting once it is due
	KindAtLimit   ClauseKind = "at-limit"   // a size or count limit: the limit itself is taken
	KindOverLimit ClauseKind = "over-limit" // the limit plus one is refused
	KindOrder     ClauseKind = "order"      // one thing before another
	KindRule      ClauseKind = "rule"       // an implicit clause: the rule not yet split
)

var clauseKinds = []ClauseKind{KindDuty, KindCode, KindShape, KindState, KindEarly, KindLate, KindAtLimit, KindOverLimit, KindOrder}

// BindsRuntime and BindsCore say which implementations a clause constrains.
func (c Clause) BindsRuntime() bool { return c.Binds != SideCore }
func (c Clause) BindsCore() bool    { return c.Binds != SideRuntime }

var clauseIDRE = regexp.MustCompile(`^([A-Z]{2}-[0-9]{2,3})\.([1-9][0-9]*)$`)

// RuleOf is the rule a rule or clause ID belongs to: AD-38.2 and AD-38 are both AD-38's.
func RuleOf(id string) string {
	if m := clauseIDRE.FindStringSubmatch(id); m != nil {
		return m[1]
	}
	return id
}

//go:embed rules/clauses
var clausesFS embed.FS

var loadClauses = sync.OnceValues(func() ([]Clause, map[string][]Clause) {
	all, err := parseClauseFiles(clausesFS, "rules/clauses", Rules())
	if err != nil {
		panic("scenarios/rules/clauses: " + err.Error()) // the embedded files are tested
	}
	byRule := map[string][]Clause{}
	for _, c := range all {
		byRule[c.Rule] = append(byRule[c.Rule], c)
	}
	return all, byRule
})

// Clauses returns every clause, rule by rule in the order of rules.tsv.
func Clauses() []Clause { all, _ := loadClauses(); return all }

// ClausesOf returns a rule's clauses in order (none for an unknown rule).
func ClausesOf(rule string) []Clause { _, byRule := loadClauses(); return byRule[rule] }

// ClauseByID returns one clause.
func ClauseByID(id string) (Clause, bool) {
	for _, c := range ClausesOf(RuleOf(id)) {
		if c.ID == id {
			return c, true
		}
	}
	return Clause{}, false
}

// NamesClause reports whether the scenario names a clause: by its ID, or by its rule's (a rule
// named whole names each of its clauses).
func (s *Scenario) NamesClause(id string) bool {
	return slices.Contains(s.Rules, id) || slices.Contains(s.Rules, RuleOf(id))
}

// parseClauseFiles reads every *.tsv under dir and returns the clauses of rules, in rule order: a
// rule no file splits has one implicit clause, the rule itself.
func parseClauseFiles(fsys fs.FS, dir string, rules []Rule) ([]Clause, error) {
	byRule := map[string]Rule{}
	for _, r := range rules {
		byRule[r.ID] = r
	}
	files, err := fs.Glob(fsys, path.Join(dir, "*.tsv"))
	if err != nil {
		return nil, err
	}
	split := map[string][]Clause{}
	var errs []string
	for _, name := range files {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		cs, ferrs := parseClauses(path.Base(name), string(raw), byRule)
		errs = append(errs, ferrs...)
		for _, c := range cs {
			split[c.Rule] = append(split[c.Rule], c)
		}
	}
	var out []Clause
	for _, r := range rules {
		cs := split[r.ID]
		if len(cs) == 0 {
			out = append(out, Clause{ID: r.ID + ".1", Rule: r.ID, Binds: r.Binds, Kind: KindRule, Text: r.Text, Unobservable: r.Unobservable, Implicit: true})
			continue
		}
		for i, c := range cs {
			if want := fmt.Sprintf("%s.%d", r.ID, i+1); c.ID != want {
				errs = append(errs, fmt.Sprintf("clause %d of %s is %s: number a rule's clauses 1, 2, … in order, with no gap or repeat", i+1, r.ID, c.ID))
				break
			}
		}
		observable := slices.ContainsFunc(cs, func(c Clause) bool { return c.Unobservable == "" })
		if r.Unobservable != "" && observable {
			errs = append(errs, fmt.Sprintf("%s is unobservable in rules.tsv (%s) but has observable clauses: clear the rule's reason or give each clause one", r.ID, r.Unobservable))
		}
		if r.Unobservable == "" && !observable {
			errs = append(errs, fmt.Sprintf("every clause of %s is unobservable: give the rule the reason in rules.tsv as well", r.ID))
		}
		out = append(out, cs...)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}

// parseClauses reads one clauses file: clause, side, kind, unobservable reason, text;
// tab-separated, # comments.
func parseClauses(name, tsv string, rules map[string]Rule) ([]Clause, []string) {
	var out []Clause
	var errs []string
	for i, line := range strings.Split(strings.TrimSuffix(tsv, "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		at := name + ":" + strconv.Itoa(i+1)
		cols := strings.Split(line, "\t")
		if len(cols) != 5 {
			errs = append(errs, fmt.Sprintf("%s: want 5 tab-separated columns (clause, side, kind, unobservable, text), got %d", at, len(cols)))
			continue
		}
		c := Clause{ID: cols[0], Binds: Side(cols[1]), Kind: ClauseKind(cols[2]), Unobservable: cols[3], Text: cols[4]}
		m := clauseIDRE.FindStringSubmatch(c.ID)
		if m == nil {
			errs = append(errs, fmt.Sprintf("%s: %q is not a clause ID (RULE.n, e.g. AD-38.2)", at, c.ID))
			continue
		}
		c.Rule = m[1]
		r, ok := rules[c.Rule]
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s: %s is a clause of %s, which is not a rule of rules.tsv", at, c.ID, c.Rule))
			continue
		case c.Binds != SideRuntime && c.Binds != SideCore && c.Binds != SideBoth:
			errs = append(errs, fmt.Sprintf("%s: %s binds %q: want runtime, core or both", at, c.ID, c.Binds))
		case r.Binds != SideBoth && c.Binds != r.Binds:
			errs = append(errs, fmt.Sprintf("%s: %s binds the %s, but its rule %s binds only the %s", at, c.ID, c.Binds, r.ID, r.Binds))
		case !slices.Contains(clauseKinds, c.Kind):
			errs = append(errs, fmt.Sprintf("%s: %s is of kind %q: want one of %v", at, c.ID, c.Kind, clauseKinds))
		case strings.TrimSpace(c.Text) == "":
			errs = append(errs, fmt.Sprintf("%s: %s has no text", at, c.ID))
		}
		out = append(out, c)
	}
	return out, errs
}
