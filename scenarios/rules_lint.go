package scenarios

import "fmt"

// LintRules reports the catalog scenarios that name no rule, the rules and clauses a scenario
// names that bind only the side it does not test (it cannot catch their violation), and a rule
// of several clauses named whole (a scenario names the clauses it checks).
func LintRules(c *Catalog) LoadErrors {
	var errs LoadErrors
	for _, s := range c.Scenarios {
		if len(s.Rules) == 0 {
			errs = append(errs, &LoadError{Pos: s.Pos, Msg: fmt.Sprintf("scenario %s names no rules: add rules: [ID, …] with the rules it checks", s.ID)})
		}
		for _, id := range s.Rules {
			r, ok := RuleByID(RuleOf(id))
			binds, what := r.Binds, "rule"
			if c, isClause := ClauseByID(id); isClause {
				binds, what = c.Binds, "clause"
			}
			if ok && s.Tests != SideBoth && binds != SideBoth && binds != s.Tests {
				errs = append(errs, &LoadError{Pos: s.Pos, Msg: fmt.Sprintf("scenario %s tests the %s but %s %s binds the %s", s.ID, s.Tests, what, id, binds)})
			}
			if n := len(ClausesOf(id)); ok && id == RuleOf(id) && n > 1 {
				errs = append(errs, &LoadError{Pos: s.Pos, Msg: fmt.Sprintf("scenario %s names rule %s whole, which has %d clauses: name the clauses it checks (%s.1 … %s.%d)", s.ID, id, n, id, id, n)})
			}
		}
	}
	return errs
}
