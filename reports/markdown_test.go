package reports_test

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// mdOutsideCode returns the Markdown with code spans and fenced blocks removed: what GitHub
// would interpret as markup.
func mdOutsideCode(md string) string {
	var out []string
	inFence := ""
	for _, line := range strings.Split(md, "\n") {
		if m := regexp.MustCompile("^(`{3,})").FindString(line); m != "" {
			if inFence == "" {
				inFence = m
				continue
			} else if strings.TrimSpace(line) == inFence {
				inFence = ""
				continue
			}
		}
		if inFence == "" {
			out = append(out, line)
		}
	}
	for i, line := range out {
		out[i] = withoutCodeSpans(line)
	}
	return strings.Join(out, "\n")
}

// withoutCodeSpans removes the code spans of one line as CommonMark reads them: a run of n
// backticks opens a span that the next run of exactly n backticks closes.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		end := -1
		for j := i + n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				end = j + m
				break
			}
			j += m
		}
		if end < 0 { // no closing run: the backticks are literal
			b.WriteString(line[i : i+n])
			i += n
			continue
		}
		i = end
	}
	return b.String()
}

var _ = Describe("Markdown", Label("markdown"), func() {
	It("leads with the status, the profile line and a table of counts", func() {
		run := handRun()
		md := render(reports.WriteMarkdown, run)
		lines := strings.Split(md, "\n")
		Expect(lines[0]).To(Equal("## wirecheck certify: ❌ NOT CERTIFIED"))
		Expect(lines[2]).To(Equal("`" + run.ProfileLine() + "`"))
		Expect(md).To(ContainSubstring("| verdict | cases |\n| --- | ---: |\n| ✅ pass | 1 |\n| ❌ fail | 2 |\n| ❔ inconclusive | 1 |\n" +
			"| ⚠️ harness error | 1 |\n| ➖ not applicable | 1 |\n| known failing, failed as expected | 1 |\n" +
			"| ❌ known failing, but passed | 1 |\n| **total** | **8** |\n"))
		Expect(md).To(ContainSubstring("target `command: ./mydaemon --core {core_url} --token [REDACTED]` · daemon `mydaemon 1.4.2` · wire `0.11.0` · seed `42`"))
		Expect(md).To(ContainSubstring("2026-05-04 09:30:00 UTC (2.345s)"))
	})

	It("details the first case of each cause, in the causes' order, and collapses the rest", func() {
		md := render(reports.WriteMarkdown, handRun())
		heads := regexp.MustCompile("(?m)^#### (\\S+) `([^`]+)`").FindAllStringSubmatch(md, -1)
		var got []string
		for _, h := range heads {
			got = append(got, h[1]+" "+h[2])
		}
		Expect(got).To(Equal([]string{ // five causes of one case each: by their text
			"❔ cancellation/deadline-after-dispatch", "⚠️ connection/daemon-never-started", "❌ runs/known/fixed-meanwhile",
			"❌ admission/prepare/wrong-revision", "❌ admission/prepare/hostile-frame",
		}))
		Expect(md).To(ContainSubstring("- **fail**, step 3: `runtime sends preparation_status` at `catalog/admission/prepare.yaml:13`\n" +
			"- `preparation_status payload.revision: want 2, got 3`\n" +
			"- bindings: `executor=executor-1` `handle=handle-[REDACTED]` `prepare=prepare`\n" +
			"- spec: `runtime-protocol.md#preparation-and-execution-order`\n- seed `42`, scripted core\n\n" +
			"```diff\n  {\n    \"id\": \"prepare\",\n-   \"revision\": 2,\n+   \"revision\": 3\n  }\n```\n"))
		Expect(md).To(ContainSubstring("Listed as known failing, but it passed"))
		Expect(md).To(ContainSubstring("<details><summary>1 passed</summary>\n\n- `admission/prepare/passes`\n\n</details>"))
		Expect(md).To(ContainSubstring("<details><summary>1 not applicable</summary>\n\n- `runs/needs-steering`: `requires: steering`\n\n</details>"))
		Expect(md).To(ContainSubstring("<details><summary>1 known failing, failed as expected</summary>\n\n- `runs/known/still-broken`: `preparation_status payload.revision: want 2, got 3 (step 3, catalog/admission/prepare.yaml:13)`"))
	})

	It("keeps whatever a daemon sends inside code, so it cannot become markup", func() {
		md := render(reports.WriteMarkdown, handRun())
		Expect(md).To(ContainSubstring(hostile[:20]))
		outside := mdOutsideCode(md)
		Expect(outside).NotTo(ContainSubstring("<script"))
		Expect(outside).NotTo(ContainSubstring("<img"))
		Expect(outside).NotTo(ContainSubstring("alert("))

		run := handRun()
		run.Cases[1].Result.Failure.Message = "a ``` fence and a `tick` and\nnew lines"
		run.Cases[1].Result.Failure.Diff = "```\n</details><script>x</script>\n```"
		md = render(reports.WriteMarkdown, run)
		Expect(md).To(ContainSubstring("- ````a ``` fence and a `tick` and````\n"))
		Expect(md).To(ContainSubstring("```\nnew lines\n```\n"), "the message's later lines in a block")
		Expect(md).To(ContainSubstring("````diff\n```\n</details><script>x</script>\n```\n````\n"))
		Expect(mdOutsideCode(md)).NotTo(ContainSubstring("<script"))
	})

	It("cuts long diffs and long lines, and shows a cause's other cases by id", func() {
		run := handRun()
		var long []string
		for i := range 200 {
			long = append(long, fmt.Sprintf("- \tline %d", i))
		}
		long[3] = "- " + strings.Repeat("x", 1000)
		run.Cases[1].Result.Failure.Diff = strings.Join(long, "\n") // the cause's first case, detailed
		for i := range 150 {
			r := *run.Cases[1].Result
			f := *r.Failure
			f.Diff = strings.Join(long, "\n")
			r.Failure, r.Scenario = &f, fmt.Sprintf("runs/many/%03d", i)
			run.Cases = append(run.Cases, reports.Case{Result: &r})
		}
		md := render(reports.WriteMarkdown, run)
		Expect(md).To(ContainSubstring("The first of 151 cases with this cause."))
		Expect(md).To(ContainSubstring("- \tline 39\n… 160 more lines (see the HTML or JSON report)\n```"))
		Expect(md).To(ContainSubstring("- " + strings.Repeat("x", 237) + "…\n"))
		Expect(md).To(ContainSubstring("<details><summary>150 more that need attention, each under its cause above</summary>\n\n- ❌ `runs/many/000`\n"))
		Expect(md).To(ContainSubstring("- ❌ `runs/many/148`\n"))
	})

	It("stays under 60,000 bytes whatever the run, and says what it left out", func() {
		run := handRun()
		huge := strings.Repeat("a member the daemon left out, ", 200)
		for i := range 600 {
			r := *run.Cases[1].Result
			f := *r.Failure
			// 300 causes of two cases each, each with a long message, a long line and a long diff
			f.Message = fmt.Sprintf("cause-%c%c: %s\n%s", 'a'+i/2%26, 'a'+i/2/26, huge, huge)
			f.Diff = strings.Repeat(huge+"\n", 100)
			r.Failure, r.Scenario = &f, fmt.Sprintf("runs/many/%03d", i)
			run.Cases = append(run.Cases, reports.Case{Result: &r})
		}
		for i := range 2000 {
			run.Cases = append(run.Cases, reports.Case{Result: result(fmt.Sprintf("passing/%04d/%s", i, strings.Repeat("long-name", 5)), scenarios.Pass, nil, nil)})
		}
		md := render(reports.WriteMarkdown, run)
		Expect(len(md)).To(BeNumerically("<=", 60_000))
		Expect(md).To(HaveSuffix("Left out to fit a comment: every case is in full in the HTML, JSON and JUnit reports and the evidence bundle written beside this file.\n"))
		Expect(md).To(ContainSubstring("### Causes (305)"))
		Expect(strings.Count(md, "\n#### ")).To(BeNumerically(">=", 5), "the largest causes' first cases in full")
		Expect(md).To(MatchRegexp(`\n- … and \d+ more\n`))
		Expect(strings.Count(md, "<details>")).To(Equal(strings.Count(md, "</details>")), "every collapsed block is closed")
		Expect(strings.Count(md, "```")%2).To(Equal(0), "every fence is closed")
	})

	It("says CERTIFIED for a clean run", func() {
		run := &reports.Run{Cases: []reports.Case{{Result: result("a/b", scenarios.Pass, nil, nil)}}, Started: started, Finished: started.Add(time.Second),
			Profile: contractProfile()}
		md := render(reports.WriteMarkdown, run)
		Expect(md).To(HavePrefix("## wirecheck certify: ✅ CERTIFIED\n\n`profile: contract [streaming, environment_none, preparation] — 1/1 applicable passed, 0 not applicable — CERTIFIED`\n\n|"))
		Expect(md).NotTo(ContainSubstring("Causes"))
		Expect(md).NotTo(ContainSubstring("Needs attention"))
	})
})

var _ = Describe("Markdown of a failure before any step", Label("markdown"), func() {
	It("leaves out the step description and position it does not have", func() {
		md := render(reports.WriteMarkdown, handRun())
		Expect(md).To(ContainSubstring("- **harness_error**, before the first step\n- `launch: exec: ./mydaemon: permission denied`\n"))
	})
})
