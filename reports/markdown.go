package reports

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Markdown limits: a pull-request comment holds at most 65 536 characters.
const (
	mdDiffLines   = 40     // lines of one diff shown before it is cut
	mdLineRunes   = 240    // runes of one line of a block shown before it is cut
	mdCaseBytes   = 8_000  // a case detailed in more than this is shown in short
	mdDetailBytes = 40_000 // once the comment is this long, no further case is detailed
	mdMaxBytes    = 60_000 // the whole comment, whatever the run (bytes: never fewer than characters)
	mdTailBytes   = 400    // kept for the closing pointer to the full reports
)

// WriteMarkdown writes a summary fit for a pull-request comment: the profile line, a table of
// counts, then only the cases that need attention (failed, inconclusive, harness error, a known
// failure that passed) with their step, file:line, message, bindings and the diff in a fenced block
// cut to a sane length, and collapsed lists of the rest. Everything the daemon could have
// influenced is inside code spans or fenced blocks, so a frame cannot inject markup, links or
// mentions. Cases are in id order, so the same run gives the same text.
func WriteMarkdown(w io.Writer, run *Run) error {
	r, err := run.forPeople()
	if err != nil {
		return err
	}
	var b strings.Builder
	s := r.Summary()
	status := "✅ CERTIFIED"
	if !r.OK() {
		status = "❌ NOT CERTIFIED"
	}
	fmt.Fprintf(&b, "## wirecheck certify: %s\n\n", status)
	fmt.Fprintf(&b, "%s\n\n", mdCode(r.ProfileLine()))
	if why := r.Reasons(); len(why) > 0 {
		b.WriteString("Not certified because:\n\n")
		for _, w := range why {
			fmt.Fprintf(&b, "- %s\n", mdText(w))
		}
		b.WriteString("\n")
	}

	b.WriteString("| verdict | cases |\n| --- | ---: |\n")
	row := func(label string, n int, always bool) {
		if n > 0 || always {
			fmt.Fprintf(&b, "| %s | %d |\n", label, n)
		}
	}
	row("✅ pass", s.Pass-s.UnexpectedPasses, true)
	row("❌ fail", s.Fail-s.ExpectedFailures, true)
	row("❔ inconclusive", s.Inconclusive, true)
	row("⚠️ harness error", s.HarnessError, true)
	row("➖ not applicable", s.NotApplicable, true)
	row("known failing, failed as expected", s.ExpectedFailures, false)
	row("❌ known failing, but passed", s.UnexpectedPasses, false)
	fmt.Fprintf(&b, "| **total** | **%d** |\n\n", s.Total)

	var meta []string
	add := func(k, v string) {
		if v != "" {
			meta = append(meta, k+" "+mdCode(v))
		}
	}
	add("target", r.Target)
	add("daemon", r.Profile.DaemonVersion)
	add("wire", r.WireVersion)
	add("seed", r.Seed)
	add("shard", r.Shard.describe())
	add("by", r.Tool)
	if !r.Started.IsZero() {
		when := r.Started.UTC().Format("2006-01-02 15:04:05 UTC")
		if !r.Finished.IsZero() {
			when += fmt.Sprintf(" (%s)", r.Finished.Sub(r.Started).Round(time.Millisecond))
		}
		meta = append(meta, when)
	}
	if len(meta) > 0 {
		fmt.Fprintf(&b, "%s\n\n", strings.Join(meta, " · "))
	}

	causes := r.Causes()
	mdCauses(&b, causes)

	var attention, passed, notApplicable, expected []int
	for i, c := range r.Cases {
		switch c.Outcome() {
		case Passed:
			passed = append(passed, i)
		case NotApplicable:
			notApplicable = append(notApplicable, i)
		case ExpectedFail:
			expected = append(expected, i)
		default:
			attention = append(attention, i)
		}
	}
	names := caseNames(r.Cases)
	left := false // something is left out: the comment points to the full reports
	if len(attention) > 0 {
		fmt.Fprintf(&b, "### Needs attention (%d)\n\n", len(attention))
		// The first case of each cause in full, the largest cause first; the rest by id.
		byName := make(map[string]int, len(names))
		for i, n := range names {
			byName[n] = i
		}
		detailed := map[int]bool{}
		for _, c := range causes {
			i, ok := byName[c.Scenarios[0]]
			if !ok || b.Len() > mdDetailBytes {
				continue
			}
			one := mdDetail(r.Cases[i], names[i], len(c.Scenarios))
			if b.Len()+len(one) > mdDetailBytes+mdCaseBytes {
				continue
			}
			b.WriteString(one)
			detailed[i] = true
		}
		var rest []int
		for _, i := range attention {
			if !detailed[i] {
				rest = append(rest, i)
			}
		}
		left = mdList(&b, fmt.Sprintf("%d more that need attention, each under its cause above", len(rest)), rest, func(i int) string {
			return outcomeEmoji(r.Cases[i].Outcome()) + " " + mdCode(names[i])
		}) || left
	}
	left = mdList(&b, fmt.Sprintf("%d known failing, failed as expected", len(expected)), expected, func(i int) string {
		return mdCode(names[i]) + ": " + mdCode(cut(failureHeadline(r.Cases[i].Result.Failure), mdLineRunes))
	}) || left
	left = mdList(&b, fmt.Sprintf("%d not applicable", len(notApplicable)), notApplicable, func(i int) string {
		return mdCode(names[i]) + ": " + mdCode(cut(notApplicableReason(r.Cases[i].Result.Failure), mdLineRunes))
	}) || left
	left = mdList(&b, fmt.Sprintf("%d passed", len(passed)), passed, func(i int) string { return mdCode(names[i]) }) || left
	if left {
		b.WriteString("Left out to fit a comment: every case is in full in the HTML, JSON and JUnit reports and the evidence bundle written beside this file.\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// mdDetail is mdCase, in short when in full it would take more than mdCaseBytes. of is the number
// of cases its cause explains.
func mdDetail(c Case, name string, of int) string {
	var b strings.Builder
	mdCase(&b, c, name, of)
	if b.Len() <= mdCaseBytes {
		return b.String()
	}
	b.Reset()
	fmt.Fprintf(&b, "#### %s %s %s\n\n", outcomeEmoji(c.Outcome()), mdCode(name), mdText(cut(c.Result.Title, mdLineRunes)))
	fmt.Fprintf(&b, "- %s\n- too long for a comment: see the HTML report\n\n", mdCode(cut(failureHeadline(c.Result.Failure), mdLineRunes)))
	return b.String()
}

// mdCase details one case that needs attention; of is the number of cases its cause explains.
func mdCase(b *strings.Builder, c Case, name string, of int) {
	res := c.Result
	fmt.Fprintf(b, "#### %s %s %s\n\n", outcomeEmoji(c.Outcome()), mdCode(name), mdText(res.Title))
	if of > 1 {
		fmt.Fprintf(b, "The first of %d cases with this cause.\n\n", of)
	}
	if c.Outcome() == UnexpectedPass {
		b.WriteString("Listed as known failing, but it passed: remove it from the known-failing list.\n\n")
		return
	}
	f := res.Failure
	if f == nil {
		fmt.Fprintf(b, "%s, no failure recorded.\n\n", res.Verdict)
		return
	}
	where := fmt.Sprintf("- **%s**, %s", res.Verdict, stepName(f.Step))
	if f.StepDesc != "" {
		where += ": " + mdCode(f.StepDesc)
	}
	if f.Pos.File != "" {
		where += " at " + mdCode(f.Pos.String())
	}
	b.WriteString(where + "\n")
	if f.Cause != "" {
		fmt.Fprintf(b, "- cause: %s\n", mdCode(f.Cause))
	}
	first, more, _ := strings.Cut(f.Message, "\n")
	fmt.Fprintf(b, "- %s\n", mdCode(first))
	for i, d := range res.Daemons {
		fmt.Fprintf(b, "- %s\n", mdCode(daemonSummary(i, len(res.Daemons), d)))
	}
	if bs := sortedBindings(f.Bindings); len(bs) > 0 {
		for i, x := range bs {
			bs[i] = mdCode(x)
		}
		fmt.Fprintf(b, "- bindings: %s\n", strings.Join(bs, " "))
	}
	if len(f.Missing) > 0 {
		fmt.Fprintf(b, "- missing capabilities: %s\n", mdCode(strings.Join(f.Missing, ", ")))
	}
	if len(res.Spec) > 0 {
		specs := make([]string, len(res.Spec))
		for i, s := range res.Spec {
			specs[i] = mdCode(s)
		}
		fmt.Fprintf(b, "- spec: %s\n", strings.Join(specs, " "))
	}
	fmt.Fprintf(b, "- seed %s, scripted %s\n\n", mdCode(res.Seed), res.Played)
	if more = strings.Trim(more, "\n"); more != "" {
		b.WriteString(mdFence("", cutLines(more, mdDiffLines)))
	}
	if f.Diff != "" {
		b.WriteString(mdFence("diff", cutLines(strings.TrimRight(f.Diff, "\n"), mdDiffLines)))
	} else if f.Actual != nil {
		b.WriteString("received:\n\n")
		b.WriteString(mdFence("", cutLines(prettyJSON(f.Actual), mdDiffLines)))
	}
	b.WriteString("\n")
}

// mdCauses writes the table of root causes, or nothing when no case needs attention.
func mdCauses(b *strings.Builder, causes []Cause) {
	if len(causes) == 0 {
		return
	}
	fmt.Fprintf(b, "### Causes (%d)\n\n| cases | cause | which |\n| ---: | --- | --- |\n", len(causes))
	for i, c := range causes {
		if i == causesShown {
			fmt.Fprintf(b, "\n%d more %s (see the HTML or JSON report)\n", len(causes)-i, plural(len(causes)-i, "cause", "causes"))
			break
		}
		shown := c.Scenarios[:min(len(c.Scenarios), casesShown)]
		which := make([]string, len(shown))
		for i, name := range shown {
			which[i] = mdCell(name)
		}
		more := ""
		if n := len(c.Scenarios) - len(shown); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		fmt.Fprintf(b, "| %d | %s | %s%s |\n", len(c.Scenarios), mdCell(cut(c.Text, causeRunes)), strings.Join(which, ", "), more)
	}
	b.WriteString("\n")
}

// mdCell is mdCode for a table cell: a pipe, which would end the cell, is escaped (GitHub
// unescapes it inside the code span).
func mdCell(s string) string {
	return strings.ReplaceAll(mdCode(s), "|", `\|`)
}

// mdList writes a collapsed list, or nothing when it is empty, with as many items as the comment
// has room for (mdMaxBytes, less what its tail needs); it reports whether it left any out.
func mdList(b *strings.Builder, summary string, idx []int, item func(int) string) (cut bool) {
	if len(idx) == 0 {
		return false
	}
	head := fmt.Sprintf("<details><summary>%s</summary>\n\n", summary)
	const end = "\n</details>\n\n"
	if b.Len()+len(head)+len(end) > mdMaxBytes-mdTailBytes {
		return true
	}
	b.WriteString(head)
	for k, i := range idx {
		line := "- " + item(i) + "\n"
		if b.Len()+len(line)+len(end) > mdMaxBytes-mdTailBytes {
			fmt.Fprintf(b, "- … and %d more\n", len(idx)-k)
			cut = true
			break
		}
		b.WriteString(line)
	}
	b.WriteString(end)
	return cut
}

func outcomeEmoji(o Outcome) string {
	switch o {
	case Passed:
		return "✅"
	case Failed, UnexpectedPass:
		return "❌"
	case ExpectedFail:
		return "☑️"
	case Inconclusive:
		return "❔"
	case NotApplicable:
		return "➖"
	}
	return "⚠️"
}

// cutLines keeps the first n lines of s, each cut to mdLineRunes, and says how many were cut.
func cutLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	more := len(lines) - n
	lines = lines[:min(n, len(lines))]
	for i, l := range lines {
		lines[i] = cut(l, mdLineRunes)
	}
	if more <= 0 {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines, "\n") + fmt.Sprintf("\n… %d more lines (see the HTML or JSON report)", more)
}

// mdCode renders s as an inline code span, which Markdown renders literally (no markup, no
// HTML, no links or mentions). Newlines become spaces; the fence is longer than any backtick run
// inside. (Not for table cells: a pipe would end the cell.)
func mdCode(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r", " "), "\n", " ")
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence renders s as a fenced code block whose fence is longer than any backtick run inside.
func mdFence(lang, s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	return fence + lang + "\n" + s + "\n" + fence + "\n"
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// mdText escapes text written by scenario authors (titles) so it renders as written: HTML is
// escaped and Markdown punctuation backslashed.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range strings.ReplaceAll(s, "\n", " ") {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '#', '|', '~', '!', '@': // no link without '[' and ']', so '(' and ')' stay
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
