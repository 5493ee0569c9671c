package reports_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reports"
	"github.com/wirecheck/wirecheck/scenarios"
)

// contractProfile is a daemon that advertises kind contract, available, with a few capabilities.
func contractProfile() reports.Profile {
	return reports.ProfileFromHeartbeat([]byte(heartbeatFrame("preparation", "environment_none", "streaming")))
}

// heartbeatWithout is a valid heartbeat that advertises kinds other than contract (none at all
// when kinds is empty), or contract unavailable.
func heartbeatOf(kinds ...proto.SupportedAgentKind) reports.Profile {
	env := proto.MustEnvelope("heartbeat", "", &proto.HeartbeatPayload{TS: 1, DaemonVersion: "old 0.2.0", SupportedAgentKinds: kinds})
	b, err := env.Encode()
	Expect(err).NotTo(HaveOccurred())
	return reports.ProfileFromHeartbeat(b)
}

func unavailableContract() proto.SupportedAgentKind {
	caps := proto.MustDeclareCapabilities("preparation")
	return proto.SupportedAgentKind{Kind: "contract", Available: false, Version: "c", Capabilities: &caps}
}

var _ = Describe("no certificate without the contract kind", Label("model"), func() {
	pass, na := caseOf(scenarios.Pass, false), caseOf(scenarios.NotApplicable, false)
	herr, fail := caseOf(scenarios.HarnessError, false), caseOf(scenarios.Fail, false)

	type row struct {
		profile reports.Profile
		cases   []reports.Case
		exit    int
		reasons []string
		line    string
	}
	DescribeTable("the verdict, its reasons in order, and the profile line",
		func(r row) {
			run := &reports.Run{Profile: r.profile, Cases: r.cases}
			Expect(run.OK()).To(BeFalse())
			Expect(run.ExitCode()).To(Equal(r.exit))
			Expect(run.Reasons()).To(Equal(r.reasons))
			Expect(run.ProfileLine()).To(Equal(r.line))
		},
		Entry("every applicable scenario passed, but the kind is not advertised", row{heartbeatOf(), []reports.Case{pass, pass, na}, 1,
			[]string{"kind contract is not advertised (a certificate requires it)"},
			"profile: kind contract not advertised — 2/2 applicable passed, 1 not applicable — NOT CERTIFIED: kind contract is not advertised (a certificate requires it)"}),
		Entry("the kind is advertised unavailable", row{heartbeatOf(unavailableContract()), []reports.Case{pass}, 1,
			[]string{"kind contract is advertised as unavailable (a certificate requires it available)"},
			"profile: contract (unavailable) [preparation] — 1/1 applicable passed, 0 not applicable — NOT CERTIFIED: kind contract is advertised as unavailable (a certificate requires it available)"}),
		Entry("the first heartbeat is invalid", row{reports.ProfileFromHeartbeat([]byte(`{"type":"heartbeat","payload":{}}`)), []reports.Case{pass}, 1,
			[]string{"the first heartbeat is invalid, so kind contract is unknown (a certificate requires it)"},
			"profile: unknown (the first heartbeat is invalid: heartbeat.ts: is required) — 1/1 applicable passed, 0 not applicable — NOT CERTIFIED: the first heartbeat is invalid, so kind contract is unknown (a certificate requires it)"}),
		Entry("the reason comes first, before failures and harness errors, and blames the daemon", row{heartbeatOf(), []reports.Case{fail, herr, na}, 1,
			[]string{"kind contract is not advertised (a certificate requires it)", "1 failed", "1 harness error"},
			"profile: kind contract not advertised — 0/2 applicable passed, 1 not applicable — NOT CERTIFIED: kind contract is not advertised (a certificate requires it), 1 failed, 1 harness error"}),
		Entry("nothing applicable ran: every scenario needed what the kind did not offer", row{heartbeatOf(), []reports.Case{na, na}, 1,
			[]string{"kind contract is not advertised (a certificate requires it)", "no applicable scenario ran"},
			"profile: kind contract not advertised — 0/0 applicable passed, 2 not applicable — NOT CERTIFIED: kind contract is not advertised (a certificate requires it), no applicable scenario ran"}),
		Entry("no heartbeat at all, though what ran passed", row{reports.Profile{}, []reports.Case{pass}, 1,
			[]string{"no heartbeat, so kind contract is unknown (a certificate requires it)"},
			"profile: unknown (no heartbeat) — 1/1 applicable passed, 0 not applicable — NOT CERTIFIED: no heartbeat, so kind contract is unknown (a certificate requires it)"}),
		Entry("no heartbeat because the harness failed: a harness error, and the missing heartbeat last", row{reports.Profile{}, []reports.Case{herr, herr}, 2,
			[]string{"2 harness errors", "no heartbeat, so kind contract is unknown (a certificate requires it)"},
			"profile: unknown (no heartbeat) — 0/2 applicable passed, 0 not applicable — NOT CERTIFIED: 2 harness errors, no heartbeat, so kind contract is unknown (a certificate requires it)"}),
	)

	It("certifies when the kind is advertised and available, and asks nothing of a run that tested only a Core", func() {
		Expect((&reports.Run{Profile: contractProfile(), Cases: []reports.Case{pass, na}}).Reasons()).To(BeEmpty())
		core := reports.Case{Result: &scenarios.Result{Scenario: "core/x", Played: scenarios.SideRuntime, Verdict: scenarios.Pass}}
		run := &reports.Run{Cases: []reports.Case{core}}
		Expect(run.OK()).To(BeTrue(), run.ProfileLine())
	})

	It("puts the reason first in every report", func() {
		run := &reports.Run{Profile: heartbeatOf(), Cases: []reports.Case{pass, na}, Started: started}
		const why = "kind contract is not advertised (a certificate requires it)"
		Expect(render(reports.WriteMarkdown, run)).To(ContainSubstring("## wirecheck certify: ❌ NOT CERTIFIED\n\n`" + run.ProfileLine() + "`\n\nNot certified because:\n\n- " + why + "\n"))
		Expect(render(reports.WriteHTML, run)).To(ContainSubstring(`<ul class="reasons"><li>` + why + `</li></ul>`))
		var doc struct {
			OK       bool
			ExitCode int `json:"exit_code"`
			Reasons  []string
		}
		Expect(jsonUnmarshal(render(reports.WriteJSON, run), &doc)).To(Succeed())
		Expect(doc).To(Equal(struct {
			OK       bool
			ExitCode int `json:"exit_code"`
			Reasons  []string
		}{false, 1, []string{why}}))
		Expect(render(reports.WriteJUnit, run)).To(ContainSubstring(`<property name="profile" value="profile: kind contract not advertised — 1/1 applicable passed, 1 not applicable — NOT CERTIFIED: ` + why + `">`))
	})

	It("never shows an empty kind in the profile heading", func() {
		for _, p := range []reports.Profile{{}, heartbeatOf(), {Known: true, Advertised: true}} {
			page := render(reports.WriteHTML, &reports.Run{Profile: p, Cases: []reports.Case{pass}})
			Expect(page).To(ContainSubstring("<h2>Declared profile (kind contract)</h2>"))
			Expect(page).NotTo(ContainSubstring("kind )"))
			Expect(page).NotTo(ContainSubstring("<code></code>"))
		}
	})
})

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
