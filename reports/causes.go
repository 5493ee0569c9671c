package reports

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Cause is one root cause of the cases that keep a run from certification, with the cases it
// explains: 72 failures that all come from a missing Bearer header are one Cause.
type Cause struct {
	// Text is the cause in plain words: the failures' Cause when the harness named one, else their
	// one-line reason with what differs between scenarios (generated IDs, durations, times) shown
	// as <uuid>, <duration>, … .
	Text      string
	Scenarios []string // the cases it explains, by name (see the reports), in id order
}

// Causes groups the cases that need attention (failed, inconclusive, harness error, a known
// failure that passed) by root cause: Failure.Cause when set, else the first line of the message
// with scenario-specific values normalised (see normalise). The largest group comes first, then
// by text. Secrets in Redact never appear in the texts or names.
func (r *Run) Causes() []Cause {
	clean := redactor(r.Redact)
	cases := sortedCases(r.Cases)
	names := caseNames(withResults(cases))
	type group struct {
		texts map[string]bool
		cause Cause
	}
	byKey := map[string]*group{}
	var order []string
	i := 0
	for _, c := range cases {
		name := "(a case without a result)"
		if c.Result != nil {
			name, i = names[i], i+1
		}
		if c.OK() {
			continue
		}
		text := clean(caseReason(c))
		key := normalise(text)
		g, ok := byKey[key]
		if !ok {
			g = &group{texts: map[string]bool{}, cause: Cause{Text: key}}
			byKey[key] = g
			order = append(order, key)
		}
		g.texts[text] = true
		g.cause.Scenarios = append(g.cause.Scenarios, clean(name))
	}
	out := make([]Cause, 0, len(order))
	for _, key := range order {
		g := byKey[key]
		if len(g.texts) == 1 {
			for t := range g.texts {
				g.cause.Text = t // every scenario said exactly this: show it as said
			}
		}
		out = append(out, g.cause)
	}
	slices.SortStableFunc(out, func(a, b Cause) int {
		if d := len(b.Scenarios) - len(a.Scenarios); d != 0 {
			return d
		}
		return strings.Compare(a.Text, b.Text)
	})
	return out
}

// CauseOf is the root cause Causes would group c under (its text with what differs between
// scenarios normalised), for a caller that groups results as they arrive. secrets are redacted
// as Run.Redact is.
func CauseOf(c Case, secrets []string) string { return normalise(redactor(secrets)(caseReason(c))) }

// withResults drops the cases caseNames cannot name.
func withResults(cases []Case) []Case {
	return slices.DeleteFunc(slices.Clone(cases), func(c Case) bool { return c.Result == nil })
}

// caseReason is the one line a case that needs attention is grouped by.
func caseReason(c Case) string {
	switch c.Outcome() {
	case UnexpectedPass:
		return "listed as known failing, but it passed: remove it from the known-failing list"
	case Inconclusive:
		return "inconclusive: " + failureReason(c.Result.Failure)
	}
	if c.Result == nil {
		return "harness error: no result was recorded"
	}
	if c.Result.Failure == nil {
		return string(c.Result.Verdict) + ", no failure recorded"
	}
	return failureReason(c.Result.Failure)
}

// What normalise replaces, in this order: values a run generates or measures, which differ
// between scenarios that fail for the same reason. Plain numbers and quoted values are kept: "want
// 2, got 3" and "want 1, got 2" may be different failures.
var normalisers = []struct {
	re   *regexp.Regexp
	with func(string) string
}{
	{regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`), always("<time>")},
	{regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), always("<uuid>")},
	{regexp.MustCompile(`\bwirecheck-[A-Za-z0-9]+-\d{3,}\b`), always("<device>")}, // the runner's device IDs: seed and index
	{regexp.MustCompile(`(?i)\b[0-9a-f]{8,}\b`), generatedHex},
	{regexp.MustCompile(`\b(\d+(\.\d+)?(h|ms|µs|us|ns|m|s))+\b`), always("<duration>")},
}

func always(s string) func(string) string { return func(string) string { return s } }

// generatedHex replaces a word of 8 or more hex digits with both a digit and a letter (a handle,
// a hash); a plain number or word stays.
func generatedHex(m string) string {
	if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(strings.ToLower(m), "abcdef") {
		return "<hex>"
	}
	return m
}

// normalise is the text two scenarios failing for the same reason share.
func normalise(text string) string {
	for _, n := range normalisers {
		text = n.re.ReplaceAllStringFunc(text, n.with)
	}
	return text
}

// How much of the causes a terminal or a comment shows: the largest causes, a few of their cases
// each ("and N more"), their text cut to a line.
const (
	causesShown = 10
	casesShown  = 3
	causeRunes  = 300
)

// WriteCauses writes the causes of the run's cases that need attention, for the last lines of a
// terminal: a count, then each cause with how many cases it explains and the first few of them.
// It writes nothing when no case needs attention. Past causesShown causes it says how many more
// there are. Text a daemon could influence has its control characters made visible, so it cannot
// drive the terminal.
//
//	2 causes of 74 scenarios that need attention:
//	  72  the daemon sends no Bearer header
//	      admission/expiry/a, admission/prepare/b, connection/c and 69 more
//	   2  runtime frame differs: payload.revision: want 2, got 3
//	      broken/wrong-revision, runs/x
func WriteCauses(w io.Writer, run *Run) error {
	causes := run.Causes()
	if len(causes) == 0 {
		return nil
	}
	total, width := 0, 1
	for _, c := range causes {
		total += len(c.Scenarios)
		width = max(width, len(fmt.Sprint(len(c.Scenarios))))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s of %d %s that need attention:\n", len(causes), plural(len(causes), "cause", "causes"),
		total, plural(total, "scenario", "scenarios"))
	for i, c := range causes {
		if i == causesShown {
			fmt.Fprintf(&b, "  … and %d more %s (see the report)\n", len(causes)-i, plural(len(causes)-i, "cause", "causes"))
			break
		}
		fmt.Fprintf(&b, "  %*d  %s\n", width, len(c.Scenarios), cut(oneLine(printable(c.Text)), causeRunes))
		shown := c.Scenarios[:min(len(c.Scenarios), casesShown)]
		more := ""
		if n := len(c.Scenarios) - len(shown); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(&b, "  %*s  %s%s\n", width, "", oneLine(printable(strings.Join(shown, ", "))), more)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine keeps a text on one terminal line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
