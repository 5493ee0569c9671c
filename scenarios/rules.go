package scenarios

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// Rule is one normative rule of the protocol, numbered in rules/rules.tsv (the project's copy of
// the spec's rules.md, corrected where the spec says otherwise).
type Rule struct {
	ID      string `json:"id"`      // e.g. CN-14
	Family  string `json:"family"`  // the ID's prefix, e.g. CN
	Section string `json:"section"` // e.g. §1.4
	// Binds is the side whose behaviour the rule constrains: a scenario checks it only when it
	// tests that side (SideBoth: either side can break it).
	Binds Side   `json:"binds"`
	Text  string `json:"text"`
	// Unobservable, when set, says why no wire observation can show the rule broken; coverage
	// lists such rules with the reason instead of counting them as missing.
	Unobservable string `json:"unobservable,omitempty"`
}

// Family is a group of rules sharing an ID prefix.
type Family struct {
	Prefix string `json:"prefix"`
	Name   string `json:"name"`
}

// RuleFamilies lists the families in the order of the spec.
var RuleFamilies = []Family{
	{"CN", "connection"}, {"AD", "admission"}, {"RS", "Run streams"}, {"CA", "cancellation"},
	{"IN", "input"}, {"IA", "interactions"}, {"FN", "functions"}, {"RP", "runtime_prepare"},
	{"WS", "workspace"}, {"SU", "suspension"}, {"SA", "sub-agents"}, {"DS", "device_shutdown"},
	{"EF", "engine failures"}, {"PJ", "delivery projection"},
	// The project's own: promises of the contract Harness (docs/contract-harness.md), which a
	// certification depends on though the protocol spec does not state them.
	{"CH", "contract Harness"},
}

//go:embed rules/rules.tsv
var rulesTSV string

var loadRules = sync.OnceValues(func() ([]Rule, map[string]Rule) {
	rules, err := parseRules(rulesTSV)
	if err != nil {
		panic("scenarios/rules/rules.tsv: " + err.Error()) // the embedded file is tested
	}
	byID := make(map[string]Rule, len(rules))
	for _, r := range rules {
		byID[r.ID] = r
	}
	return rules, byID
})

// Rules returns every rule, in the order of rules.tsv (the spec's).
func Rules() []Rule { rules, _ := loadRules(); return rules }

// RuleByID returns one rule.
func RuleByID(id string) (Rule, bool) { _, byID := loadRules(); r, ok := byID[id]; return r, ok }

// parseRules reads rules.tsv: id, side, section, unobservable reason, text; tab-separated.
func parseRules(tsv string) ([]Rule, error) {
	var out []Rule
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(tsv, "\n"), "\n") {
		cols := strings.Split(line, "\t")
		if len(cols) != 5 {
			return nil, fmt.Errorf("line %d: want 5 tab-separated columns, got %d", i+1, len(cols))
		}
		r := Rule{ID: cols[0], Binds: Side(cols[1]), Section: cols[2], Unobservable: cols[3], Text: cols[4]}
		prefix, _, ok := strings.Cut(r.ID, "-")
		if !ok || !ruleIDRE.MatchString(r.ID) || familyOf(prefix) == nil {
			return nil, fmt.Errorf("line %d: %q is not a rule id of a known family", i+1, r.ID)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("line %d: duplicate rule %s", i+1, r.ID)
		}
		seen[r.ID] = true
		r.Family = prefix
		switch r.Binds {
		case SideBoth, SideCore, SideRuntime:
		default:
			return nil, fmt.Errorf("line %d: %s binds %q, want both, core or runtime", i+1, r.ID, r.Binds)
		}
		out = append(out, r)
	}
	return out, nil
}

func familyOf(prefix string) *Family {
	for i := range RuleFamilies {
		if RuleFamilies[i].Prefix == prefix {
			return &RuleFamilies[i]
		}
	}
	return nil
}
