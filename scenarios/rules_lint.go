package scenarios

import "fmt"

// LintRules reports the catalog scenarios that name no rule, and the rules a scenario names that
// bind only the side it does not test (it cannot catch their violation).
func LintRules(c *Catalog) LoadErrors {
	var errs LoadErrors
	for _, s := range c.Scenarios {
		if len(s.Rules) == 0 {
			errs = append(errs, &LoadError{Pos: s.Pos, Msg: fmt.Sprintf("scenario %s names no rules: add rules: [ID, …] with the rules it checks", s.ID)})
		}
		for _, id := range s.Rules {
			r, ok := RuleByID(id)
			if ok && s.Tests != SideBoth && r.Binds != SideBoth && r.Binds != s.Tests {
				errs = append(errs, &LoadError{Pos: s.Pos, Msg: fmt.Sprintf("scenario %s tests the %s but rule %s binds the %s", s.ID, s.Tests, id, r.Binds)})
			}
		}
	}
	return errs
}
