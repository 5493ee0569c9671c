package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// oldDaemonRun is the old daemon: 72 scenarios refused at the handshake for one reason
// (the scripted Core names it as the Cause), each message naming its own device, and one frame
// failure of its own.
func oldDaemonRun() *reports.Run {
	run := &reports.Run{Profile: contractProfile(), Redact: []string{secret}}
	for i := range 72 {
		f := &scenarios.Failure{Pos: scenarios.Pos{File: "catalog/f.yaml", Line: 3},
			Message: fmt.Sprintf("Core refused the Runtime's connection with 400 missing_params (device wirecheck-s33d-%03d)\n  its last output:\n    token=%s", i, secret),
			Cause:   "the daemon sends no Bearer header"}
		run.Cases = append(run.Cases, reports.Case{Result: result(fmt.Sprintf("fam%d/scenario-%02d", i%4, i), scenarios.Fail, f, nil)})
	}
	own := &scenarios.Failure{Step: 3, Pos: scenarios.Pos{File: "catalog/g.yaml", Line: 9}, Message: "runtime frame differs: payload.revision: want 2, got 3"}
	run.Cases = append(run.Cases, reports.Case{Result: result("runs/own", scenarios.Fail, own, nil)})
	return run
}

func failing(id, message string) reports.Case {
	return reports.Case{Result: result(id, scenarios.Fail, &scenarios.Failure{Message: message}, nil)}
}

var _ = Describe("failures grouped by root cause", Label("causes"), func() {
	It("reads 72 failures with one cause as one cause, largest first", func() {
		causes := oldDaemonRun().Causes()
		Expect(causes).To(HaveLen(2))
		Expect(causes[0].Text).To(Equal("the daemon sends no Bearer header"))
		Expect(causes[0].Scenarios).To(HaveLen(72))
		Expect(causes[0].Scenarios[:2]).To(Equal([]string{"fam0/scenario-00", "fam0/scenario-04"}), "in id order")
		Expect(causes[1]).To(Equal(reports.Cause{Text: "runtime frame differs: payload.revision: want 2, got 3", Scenarios: []string{"runs/own"}}))
	})

	It("prints them as the terminal's last lines", func() {
		var b bytes.Buffer
		Expect(reports.WriteCauses(&b, oldDaemonRun())).To(Succeed())
		Expect(b.String()).To(Equal("2 causes of 73 scenarios that need attention:\n" +
			"  72  the daemon sends no Bearer header\n" +
			"      fam0/scenario-00, fam0/scenario-04, fam0/scenario-08 and 69 more\n" +
			"   1  runtime frame differs: payload.revision: want 2, got 3\n" +
			"      runs/own\n"))
		b.Reset()
		Expect(reports.WriteCauses(&b, &reports.Run{Profile: contractProfile(), Cases: []reports.Case{caseOf(scenarios.Pass, false)}})).To(Succeed())
		Expect(b.String()).To(BeEmpty(), "nothing needs attention")
	})

	It("groups failures without a named cause by their first line, with generated values normalised", func() {
		run := &reports.Run{Cases: []reports.Case{
			failing("a/1", "payload.executor_id: want ${executor} = \"3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f\" (bound earlier), got \"x\"\nmore"),
			failing("a/2", "payload.executor_id: want ${executor} = \"0b1c2d3e-4f50-4a6b-8c7d-8e9f0a1b2c3d\" (bound earlier), got \"x\""),
			failing("b/1", "the Runtime did not connect within 3.17s"),
			failing("b/2", "the Runtime did not connect within 250ms"),
			failing("c/1", "handle deadbeef01 expired at 2026-05-04T09:30:00Z"),
			failing("c/2", "handle 0123abcdef expired at 2026-05-04T09:35:12.5Z"),
			failing("d/1", "payload.revision: want 2, got 3"),
			failing("d/2", "payload.revision: want 1, got 2"),
			failing("e/1", "nothing arrived within 3s"),
			failing("e/2", "nothing arrived within 3s"),
		}}
		var got []string
		for _, c := range run.Causes() {
			got = append(got, fmt.Sprintf("%d %s", len(c.Scenarios), c.Text))
		}
		Expect(got).To(Equal([]string{
			"2 handle <hex> expired at <time>",
			"2 nothing arrived within 3s", // the same words everywhere: shown as said
			"2 payload.executor_id: want ${executor} = \"<uuid>\" (bound earlier), got \"x\"",
			"2 the Runtime did not connect within <duration>",
			"1 payload.revision: want 1, got 2", // plain numbers are kept: these may be different failures
			"1 payload.revision: want 2, got 3",
		}))
	})

	It("shows the causes in every report, and the first reason wherever a failure is summed up", func() {
		run := oldDaemonRun()
		const cause = "the daemon sends no Bearer header"

		md := render(reports.WriteMarkdown, run)
		Expect(md).To(ContainSubstring("### Causes (2)\n\n| cases | cause | which |\n| ---: | --- | --- |\n" +
			"| 72 | `" + cause + "` | `fam0/scenario-00`, `fam0/scenario-04`, `fam0/scenario-08` and 69 more |\n" +
			"| 1 | `runtime frame differs: payload.revision: want 2, got 3` | `runs/own` |\n"))
		Expect(md).To(ContainSubstring("- cause: `" + cause + "`\n- `Core refused the Runtime's connection with 400 missing_params (device wirecheck-s33d-000)`\n"))
		Expect(md).To(ContainSubstring("```\n  its last output:\n    token=[REDACTED]\n```"), "the message's detail, redacted")

		var doc struct {
			Causes []struct {
				Text      string
				Count     int
				Scenarios []string
			}
			Cases []struct{ Failure struct{ Cause string } }
		}
		Expect(json.Unmarshal([]byte(render(reports.WriteJSON, run)), &doc)).To(Succeed())
		Expect(doc.Causes).To(HaveLen(2))
		Expect(doc.Causes[0].Text).To(Equal(cause))
		Expect(doc.Causes[0].Count).To(Equal(72))
		Expect(doc.Causes[0].Scenarios).To(HaveLen(72))
		Expect(doc.Cases[0].Failure.Cause).To(Equal(cause))
		Expect(compileSchema().Validate(instance(render(reports.WriteJSON, run)))).To(Succeed())

		xml := render(reports.WriteJUnit, run)
		Expect(xml).To(ContainSubstring(`<property name="cause" value="72 × ` + cause + `"></property>`))
		doc2 := parseJUnit(xml)
		Expect(junitCase(doc2, "fam0/scenario-00").Failure.Message).To(Equal(cause + " (before the first step, catalog/f.yaml:3)"))
		Expect(junitCase(doc2, "fam0/scenario-00").Failure.Body).To(ContainSubstring("\ncause: " + cause + "\n"))

		page := render(reports.WriteHTML, run)
		card := regexp.MustCompile(`(?s)<section class="card causes">.*?</section>`).FindString(page)
		Expect(card).To(ContainSubstring(`<h2>Causes (2)</h2>`))
		Expect(card).To(ContainSubstring(`<td class="n">72</td><td><div class="cause">` + cause + `</div><div class="which"><a href="#case-`))
		Expect(deadLinks(page)).To(BeEmpty())
		Expect(page).To(ContainSubstring(`<span class="headline">` + cause + ` (before the first step, catalog/f.yaml:3)</span>`))
		Expect(page).To(ContainSubstring(`<div class="cause">Cause: ` + cause + `</div>`))

		for _, w := range writers {
			Expect(render(w.write, run)).NotTo(ContainSubstring(secret), w.name)
		}
	})

	It("keeps secrets and terminal control out of the causes", func() {
		run := &reports.Run{Redact: []string{secret}, Cases: []reports.Case{failing("a/1", "bad token "+secret+" \x1b[2J")}}
		Expect(run.Causes()[0].Text).To(Equal("bad token [REDACTED] \x1b[2J"))
		var b bytes.Buffer
		Expect(reports.WriteCauses(&b, run)).To(Succeed())
		Expect(b.String()).To(ContainSubstring("bad token [REDACTED] ␛[2J\n"))
		Expect(strings.ContainsRune(b.String(), 0x1b)).To(BeFalse())
	})

	It("uses the first line of a message as the reason where there is no cause", func() {
		run := &reports.Run{Profile: contractProfile(), Cases: []reports.Case{failing("a/1", "the daemon exited with status 3\n  its last output:\n    panic: boom")}}
		doc := parseJUnit(render(reports.WriteJUnit, run))
		Expect(junitCase(doc, "a/1").Failure.Message).To(Equal("the daemon exited with status 3 (before the first step)"))
		Expect(run.Causes()[0].Text).To(Equal("the daemon exited with status 3"))
	})
})

var _ = Describe("many distinct causes", Label("causes"), func() {
	It("are cut to the largest few on a terminal and in a comment", func() {
		run := &reports.Run{Profile: contractProfile()}
		for i := range 25 {
			run.Cases = append(run.Cases, failing(fmt.Sprintf("x/%02d", i), fmt.Sprintf("reason number %d %s", i, strings.Repeat("long ", 100))))
		}
		var b bytes.Buffer
		Expect(reports.WriteCauses(&b, run)).To(Succeed())
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		Expect(lines).To(HaveLen(1 + 2*10 + 1))
		Expect(lines[0]).To(Equal("25 causes of 25 scenarios that need attention:"))
		Expect(lines[21]).To(Equal("  … and 15 more causes (see the report)"))
		Expect(len([]rune(lines[1]))).To(BeNumerically("<", 320))
		md := render(reports.WriteMarkdown, run)
		Expect(md).To(ContainSubstring("\n15 more causes (see the HTML or JSON report)\n"))
	})
})
