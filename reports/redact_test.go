package reports_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// everywhere plants s in every string of a run a daemon or a user could fill.
func everywhere(s string) *reports.Run {
	run := handRun()
	run.Tool += " " + s
	run.Target += " " + s
	run.Seed = s
	run.Profile.DaemonVersion = s
	run.Profile.Problem = s
	run.Selection = reports.Selection{Run: []string{s}, Skip: []string{s}, Labels: s, KnownFailing: []string{s}}
	run.Cases = append(run.Cases, reports.Case{Result: &scenarios.Result{
		Scenario: "secret/" + s, Title: s, Spec: []string{s + ".md#" + s}, Labels: []string{s}, Played: scenarios.SideCore,
		Verdict: scenarios.Fail, Seed: s,
		Failure: &scenarios.Failure{Step: 1, StepDesc: s, Pos: scenarios.Pos{File: s}, Message: s, Diff: "- " + s,
			Expected: map[string]any{s: []any{s, map[string]any{"k": s}}}, Actual: s,
			Bindings: map[string]string{s: s}, Missing: []string{s}},
		Transcript: []scenarios.Exchange{{Dir: scenarios.RuntimeToCore, Type: s, Frame: `{"type":"` + s + `"}`, Note: s}},
	}})
	return run
}

var _ = Describe("redaction", Label("redaction"), func() {
	It("keeps every configured secret out of every report and every bundle file", func() {
		const s = "hunter2-s3cr3t"
		run := everywhere(s)
		run.Redact = []string{s, "", secret}
		for _, w := range writers {
			out := render(w.write, run)
			Expect(strings.Contains(out, s)).To(BeFalse(), w.name)
			Expect(strings.Contains(out, secret)).To(BeFalse(), w.name)
			Expect(out).To(ContainSubstring("[REDACTED]"), w.name)
		}
		dir := filepath.Join(GinkgoT().TempDir(), "bundle")
		Expect(reports.WriteBundle(dir, run)).To(Succeed())
		Expect(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			Expect(strings.Contains(string(data), s)).To(BeFalse(), p)
			Expect(strings.Contains(filepath.Base(p), s)).To(BeFalse(), p)
			return err
		})).To(Succeed())
		Expect(run.Target).To(ContainSubstring(s), "the Run itself is left as it was")
	})

	It("keeps secrets out of the journals, in plain and escaped forms, and the journals still verify", func() {
		const s = `pa"ss<word>&\x`
		run := everywhere(s)
		frame, _ := json.Marshal(map[string]string{"type": "heartbeat", "token": s})
		res := run.Cases[len(run.Cases)-1].Result
		res.Transcript = append(res.Transcript, scenarios.Exchange{Dir: scenarios.RuntimeToCore, Type: "heartbeat", Frame: string(frame)},
			scenarios.Exchange{Dir: scenarios.Event, Type: "reject", Note: "401 bad credential " + s})
		run.Redact = []string{s}
		dir := filepath.Join(GinkgoT().TempDir(), "bundle")
		Expect(reports.WriteBundle(dir, run)).To(Succeed())
		entries, err := os.ReadDir(filepath.Join(dir, journal.BundleDir))
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(len(run.Cases)))
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, journal.BundleDir, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			for _, form := range []string{"ss<word>", `ss\u003cword`, `ss\\u003cword`, `pa\"ss`, `pa\\\"ss`} {
				Expect(strings.Contains(string(data), form)).To(BeFalse(), "%s shows %s", e.Name(), form)
			}
		}
		check := journal.VerifyBundle(dir, nil)
		Expect(check.Journals).To(HaveLen(len(run.Cases)))
		Expect(check.Problems).To(BeEmpty())
	})

	It("catches a secret in its JSON-escaped forms, as frames carry it", func() {
		const s = `pa"ss<word>&\x`
		run := handRun()
		frame, _ := json.Marshal(map[string]string{"type": "heartbeat", "token": s})
		run.Cases[0].Result.Transcript = append(run.Cases[0].Result.Transcript, scenarios.Exchange{Dir: scenarios.RuntimeToCore, Type: "heartbeat", Frame: string(frame)})
		Expect(string(frame)).To(ContainSubstring(`pa\"ss\u003cword\u003e\u0026\\x`))
		run.Cases[0].Result.Title = `a title with pa\"ss<word>&\\x inside`
		run.Redact = []string{s}
		for _, w := range writers {
			out := render(w.write, run)
			for _, form := range []string{"ss<word>", `ss\u003cword`, "ss&lt;word", `ss\\u003cword`, "ss\\u003cword"} {
				Expect(strings.Contains(out, form)).To(BeFalse(), "%s shows %s", w.name, form)
			}
		}
	})

	It("changes nothing when no secret is configured", func() {
		run := handRun()
		run.Redact = nil
		Expect(render(reports.WriteJSON, run)).To(ContainSubstring("handle-" + secret))
	})
})
