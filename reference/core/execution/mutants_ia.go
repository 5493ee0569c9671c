package execution

import (
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The interactions (IA) mutation points of Core's answer validation. Every body is guarded by
// mutation.On, a constant false outside the wirecheck_mutants build.

// checkedAnswers is the user-choice answer whose question IDs are checked against the prompt's:
// all of it, unless a mutant leaves blank ones out of the check (IA-17.2).
func checkedAnswers(v *proto.PromptForUserChoiceDecisionPayload) *proto.PromptForUserChoiceDecisionPayload {
	blank := func(a proto.QuestionAnswer) bool { return strings.TrimSpace(a.QuestionID) == "" }
	if !slices.ContainsFunc(v.QuestionAnswers, blank) || !mutation.On(mutation.IABlankQuestionIDSent) {
		return v
	}
	c := *v
	c.QuestionAnswers = slices.DeleteFunc(slices.Clone(v.QuestionAnswers), blank)
	return &c
}

// looseAnswer reports whether a mutant takes a caller's user-choice answer that failed its
// validation (IA-17.1 … IA-17.4): each only an answer whose one defect is its clause's.
func looseAnswer(p interface{ Validate() error }) bool {
	v, ok := p.(*proto.PromptForUserChoiceDecisionPayload)
	if !ok {
		return false
	}
	// valid reports whether the answer validates once mend changed a copy of it.
	valid := func(mend func(c *proto.PromptForUserChoiceDecisionPayload) bool) bool {
		c := *v
		c.QuestionAnswers = slices.Clone(v.QuestionAnswers)
		return mend(&c) && c.Validate() == nil
	}
	switch {
	case valid(func(c *proto.PromptForUserChoiceDecisionPayload) bool {
		had := c.Cancelled && len(c.QuestionAnswers) > 0
		c.QuestionAnswers = nil
		return had
	}) && mutation.On(mutation.IACancelledWithAnswersSent):
		return true
	case valid(func(c *proto.PromptForUserChoiceDecisionPayload) bool {
		n := len(c.QuestionAnswers)
		c.QuestionAnswers = slices.DeleteFunc(c.QuestionAnswers, func(a proto.QuestionAnswer) bool { return strings.TrimSpace(a.QuestionID) == "" })
		return len(c.QuestionAnswers) < n
	}) && mutation.On(mutation.IABlankQuestionIDSent):
		return true
	case valid(func(c *proto.PromptForUserChoiceDecisionPayload) bool {
		seen, out := map[string]bool{}, c.QuestionAnswers[:0]
		for _, a := range c.QuestionAnswers {
			if !seen[a.QuestionID] {
				out = append(out, a)
			}
			seen[a.QuestionID] = true
		}
		changed := len(out) < len(c.QuestionAnswers)
		c.QuestionAnswers = out
		return changed
	}) && mutation.On(mutation.IARepeatedQuestionSent):
		return true
	case valid(func(c *proto.PromptForUserChoiceDecisionPayload) bool {
		changed := false
		for i, a := range c.QuestionAnswers {
			if a.Answers == nil {
				c.QuestionAnswers[i].Answers, changed = []string{}, true
			}
		}
		return changed
	}) && mutation.On(mutation.IANullAnswersSent):
		return true
	}
	return false
}
