package reports_test

import (
	"github.com/wirecheck/wirecheck/reference/daemon"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

func caseOf(v scenarios.Verdict, known bool) reports.Case {
	var f *scenarios.Failure
	if v != scenarios.Pass {
		f = &scenarios.Failure{Message: "m"}
	}
	return reports.Case{Result: result("x/"+string(v), v, f, nil), KnownFailing: known}
}

var _ = Describe("the results model", Label("model"), func() {
	DescribeTable("a case's outcome and whether it allows certification",
		func(v scenarios.Verdict, known bool, outcome reports.Outcome, ok bool) {
			c := caseOf(v, known)
			Expect(c.Outcome()).To(Equal(outcome))
			Expect(c.OK()).To(Equal(ok))
		},
		Entry("pass", scenarios.Pass, false, reports.Passed, true),
		Entry("fail", scenarios.Fail, false, reports.Failed, false),
		Entry("inconclusive", scenarios.Inconclusive, false, reports.Inconclusive, false),
		Entry("not applicable", scenarios.NotApplicable, false, reports.NotApplicable, true),
		Entry("harness error", scenarios.HarnessError, false, reports.HarnessError, false),
		Entry("known failing that fails", scenarios.Fail, true, reports.ExpectedFail, true),
		Entry("known failing that passes", scenarios.Pass, true, reports.UnexpectedPass, false),
		Entry("known failing, inconclusive", scenarios.Inconclusive, true, reports.Inconclusive, false),
		Entry("known failing, not applicable", scenarios.NotApplicable, true, reports.NotApplicable, true),
		Entry("known failing, harness error", scenarios.HarnessError, true, reports.HarnessError, false),
		Entry("an unknown verdict", scenarios.Verdict("bogus"), false, reports.HarnessError, false),
	)

	It("counts a case without a result as a harness error", func() {
		Expect(reports.Case{}.Outcome()).To(Equal(reports.HarnessError))
	})

	type row struct {
		cases []reports.Case
		ok    bool
		exit  int
		line  string
	}
	pass, fail := caseOf(scenarios.Pass, false), caseOf(scenarios.Fail, false)
	na, inc, herr := caseOf(scenarios.NotApplicable, false), caseOf(scenarios.Inconclusive, false), caseOf(scenarios.HarnessError, false)
	xfail, xpass := caseOf(scenarios.Fail, true), caseOf(scenarios.Pass, true)
	DescribeTable("OK: every applicable case passed, known failures failed, no harness error",
		func(r row) {
			run := &reports.Run{Cases: r.cases, Profile: contractProfile()}
			Expect(run.OK()).To(Equal(r.ok))
			Expect(run.ExitCode()).To(Equal(r.exit))
			Expect(run.ProfileLine()).To(HaveSuffix(r.line))
		},
		Entry("all passed", row{[]reports.Case{pass, pass}, true, 0, "2/2 applicable passed, 0 not applicable — CERTIFIED"}),
		Entry("passed and not applicable", row{[]reports.Case{pass, na}, true, 0, "1/1 applicable passed, 1 not applicable — CERTIFIED"}),
		Entry("a known failure failed", row{[]reports.Case{pass, xfail}, true, 0, "1/2 applicable passed, 1 known failing, 0 not applicable — CERTIFIED"}),
		Entry("one failed", row{[]reports.Case{pass, fail, na}, false, 1, "NOT CERTIFIED: 1 failed"}),
		Entry("inconclusive", row{[]reports.Case{pass, inc}, false, 1, "NOT CERTIFIED: 1 inconclusive"}),
		Entry("a known failure passed", row{[]reports.Case{pass, xpass}, false, 1, "NOT CERTIFIED: 1 known failing passed"}),
		Entry("a harness error alone", row{[]reports.Case{pass, herr, xfail}, false, 2, "NOT CERTIFIED: 1 harness error"}),
		Entry("a failure and a harness error", row{[]reports.Case{fail, herr, herr}, false, 1, "NOT CERTIFIED: 1 failed, 2 harness errors"}),
		Entry("nothing applicable ran", row{[]reports.Case{na}, false, 1, "NOT CERTIFIED: no applicable scenario ran"}),
		Entry("nothing ran", row{nil, false, 1, "0/0 applicable passed, 0 not applicable — NOT CERTIFIED: no applicable scenario ran"}),
		Entry("a harness error among cases that do not apply", row{[]reports.Case{na, herr}, false, 2, "0/1 applicable passed, 1 not applicable — NOT CERTIFIED: 1 harness error"}),
	)

	It("summarises by verdict, with known failures counted in their verdict too", func() {
		s := handRun().Summary()
		Expect(s).To(Equal(reports.Summary{Total: 8, Applicable: 7, Pass: 2, Fail: 3, Inconclusive: 1, NotApplicable: 1,
			HarnessError: 1, ExpectedFailures: 1, UnexpectedPasses: 1}))
	})

	Describe("the profile", func() {
		It("is read from the first heartbeat, capabilities in declaration order", func() {
			p := reports.ProfileFromHeartbeat([]byte(heartbeatFrame("preparation", "streaming", "environment_none")))
			Expect(p).To(Equal(reports.Profile{Known: true, DaemonVersion: "mydaemon 1.4.2", Kind: "contract", Advertised: true,
				Available: true, KindVersion: "contract-1", Supported: []string{"streaming", "environment_none", "preparation"},
				Unsupported: p.Unsupported}))
			Expect(append(p.Supported, p.Unsupported...)).To(ConsistOf(proto.CapabilityNames()))
			line := (&reports.Run{Profile: p, Cases: []reports.Case{caseOf(scenarios.Pass, false)}}).ProfileLine()
			Expect(line).To(Equal("profile: contract [streaming, environment_none, preparation] — 1/1 applicable passed, 0 not applicable — CERTIFIED"))
		})

		It("says when the kind is not advertised, unavailable, or the heartbeat is invalid", func() {
			other := proto.MustEnvelope("heartbeat", "", &proto.HeartbeatPayload{TS: 1, DaemonVersion: "d"})
			b, _ := other.Encode()
			p := reports.ProfileFromHeartbeat(b)
			Expect(p.Known).To(BeTrue())
			Expect(p.Advertised).To(BeFalse())
			Expect((&reports.Run{Profile: p}).ProfileLine()).To(HavePrefix("profile: kind contract not advertised — "))

			bad := reports.ProfileFromHeartbeat([]byte(`{"type":"heartbeat","payload":{"ts":1,"active_requests":0,"supported_agent_kinds":[{"kind":"contract","available":true,"capabilities":{"streaming":true}}]}}`))
			Expect(bad.Known).To(BeFalse())
			Expect(bad.Problem).To(ContainSubstring("subagent_observations: is required"))
			Expect((&reports.Run{Profile: bad}).ProfileLine()).To(HavePrefix("profile: unknown (the first heartbeat is invalid: heartbeat.supported_agent_kinds[0]"))

			Expect(reports.ProfileFromHeartbeat([]byte(`{"type":"done","id":"r","payload":{"content":""}}`)).Problem).To(Equal("the frame is a done, not a heartbeat"))
			Expect((&reports.Run{}).ProfileLine()).To(HavePrefix("profile: unknown (no heartbeat) — "))
		})

		It("is detected from the transcripts of real results", func() {
			p := reports.DetectProfile(realResults())
			Expect(p.Known).To(BeTrue())
			Expect(p.DaemonVersion).To(Equal("wirecheck-reference"))
			// What the reference declares, read back from the wire, in declaration order.
			declared := daemon.ContractCapabilities()
			var want []string
			for _, name := range proto.CapabilityNames() {
				if v, _ := declared.Get(name); v.Supported() {
					want = append(want, name)
				}
			}
			Expect(want).To(ContainElements("streaming", "preparation"))
			Expect(p.Supported).To(Equal(want))
			Expect(reports.DetectProfile(nil)).To(Equal(reports.Profile{}))
		})
	})

	It("plays real results that pass against the reference Runtime, and fail against broken ones", func() {
		byVerdict := map[scenarios.Verdict]int{}
		for _, c := range realResults() {
			byVerdict[c.Result.Verdict]++
			if c.Result.Verdict != scenarios.Pass {
				Expect(c.Result.Scenario).To(HavePrefix("broken/"), "%s", c.Result)
			}
		}
		Expect(byVerdict[scenarios.Fail]).To(Equal(3))
		Expect(byVerdict[scenarios.Pass]).To(Equal(len(realResults())-3), "every case but the broken three passes")
		run := realRun()
		Expect(run.OK()).To(BeFalse())
		Expect(run.ProfileLine()).To(HaveSuffix("NOT CERTIFIED: 3 failed"))
	})

	It("never changes the Run it renders", func() {
		run := handRun()
		before := mustJSON(run)
		for _, w := range writers {
			Expect(w.write(GinkgoWriter, run)).To(Succeed())
		}
		Expect(mustJSON(run)).To(Equal(before))
	})

	It("refuses a run with a case that has no result", func() {
		run := &reports.Run{Cases: []reports.Case{{}}, Started: time.Now()}
		for _, w := range writers {
			Expect(w.write(GinkgoWriter, run)).To(MatchError(ContainSubstring("case 0 has no Result")), w.name)
		}
		Expect(reports.WriteJSON(GinkgoWriter, nil)).To(MatchError(ContainSubstring("nil Run")))
	})
})
