package fault_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/catalogsample"
	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// transparentSample plays a sample with the catalog's variety instead of every scenario: what
// `make stress` runs under -race, where the whole catalog takes minutes (the claim there is about
// the relay's own goroutines and clocks, which the sample exercises in every step and frame kind).
var transparentSample = flag.Bool("transparent-sample", false, "play a sample of the catalog (internal/catalogsample) through the transparent relay")

var catalog = func() *scenarios.Catalog {
	c, err := scenarios.Embedded()
	if err != nil {
		panic(fmt.Sprintf("the embedded catalog does not load:\n%v", err))
	}
	return c
}()

// transparentScenarios is the catalog, or its sample with -transparent-sample. (Container bodies
// run in RunSpecs, after the flags are parsed.)
func transparentScenarios() []*scenarios.Scenario {
	if !*transparentSample {
		return catalog.Scenarios
	}
	return catalogsample.Cover(catalog.Scenarios)
}

// The relay adds nothing: every scenario of the catalog passes with a relay that has no rule
// between the peers, through the same pairing code the gate uses.
var _ = Describe("a relay with no faults is transparent", Label("transparent"), func() {
	var (
		logs  *syncBuffer
		opts  runner.Options
		empty = &fault.Schedule{}
	)
	BeforeEach(func() {
		logs = &syncBuffer{}
		opts = runner.Options{Seed: fmt.Sprint(GinkgoRandomSeed()), Faults: empty, Credential: credential,
			RelayLog: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	})
	AfterEach(func() {
		Expect(containsCredential(logs.String())).To(BeFalse(), "the relay logged a credential")
	})

	Describe("scripted Core ↔ relay ↔ scripted Runtime", Label("self-check"), func() {
		selfCheck := runner.SelfCheckPairing()
		for _, sc := range transparentScenarios() {
			if sc.HasFaults() {
				continue // played with its faults armed by the gate (conformance)
			}
			if why := selfCheck.Skip(sc); why != "" {
				continue // what the self-check pairing cannot play, it cannot play through a relay either
			}
			It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
				ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				core, rt := runner.SelfCheck(ctx2, sc, opts)
				Expect(core.Verdict).To(Equal(scenarios.Pass), "scripted Core:\n%s", core)
				Expect(rt).NotTo(BeNil(), "the scripted Runtime never ran")
				if !runner.OnlyTurnChecksNotApplicable(sc, rt) {
					Expect(rt.Verdict).To(Equal(scenarios.Pass), "scripted Runtime:\n%s", rt)
				}
				Expect(faultEvents(core)).To(BeEmpty())
				if sc.Handshake == nil || sc.Handshake.Expect == nil {
					Expect(logs.String()).To(ContainSubstring("fault relay: connection open"), "the peers bypassed the relay")
				}
			})
		}
	})

	Describe("scripted Core ↔ relay ↔ reference Runtime", Label("runtime"), func() {
		for _, sc := range transparentScenarios() {
			if !sc.Tests.Covers(scenarios.SideRuntime) || sc.HasFaults() {
				continue
			}
			if a := sc.BootstrapAnswer; a != nil && a.StalledUpgrades > 0 {
				// The daemon's upgrade ends at the relay, which does not carry its abandonment
				// to Core: behind a relay an upgrade left unanswered is not the daemon's to give up.
				continue
			}
			if slices.ContainsFunc(sc.Steps, func(st *scenarios.Step) bool { return st.Kind == scenarios.StepAwaitStall }) {
				continue // the relay keeps reading from the daemon: a Core that stopped reading blocks no write of its
			}
			It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
				mon := monitor.New(nil)
				o := opts
				o.Tap = func(*scenarios.Scenario) fault.Tap { return mon }
				r := runner.PlayRuntime(ctx, sc, 0, runner.ReferenceRuntime{}, o)
				Expect(r.Verdict).To(Equal(scenarios.Pass), "%s", r)
				// The monitor watched a conforming Runtime: any alarm against it is a false one.
				Expect(alarmsAgainst(mon, proto.Runtime)).To(BeEmpty(), "the monitor blamed the reference Runtime")
				Expect(faultEvents(r)).To(BeEmpty())
				if sc.Handshake == nil || sc.Handshake.Expect == nil {
					Expect(logs.String()).To(ContainSubstring("fault relay: connection open"), "the peers bypassed the relay")
				}
			})
		}
	})
})

var _ = Describe("a monitored relay between the scripted Runtime and the reference Core", Label("transparent", "core"), func() {
	for _, sc := range transparentScenarios() {
		if !sc.Tests.Covers(scenarios.SideCore) || sc.HasFaults() {
			continue
		}
		if slices.ContainsFunc(sc.Steps, func(st *scenarios.Step) bool { return st.Kind == scenarios.StepAwaitStall }) {
			continue // the relay keeps reading from Core: a Runtime that stopped reading blocks no write of Core's
		}
		It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
			mon := monitor.New(nil)
			r := runner.PlayReferenceCoreWatched(ctx, sc, fmt.Sprint(GinkgoRandomSeed()), 0, mon)
			Expect(r.Verdict).To(BeElementOf(scenarios.Pass, scenarios.NotApplicable), "%s", r)
			// The monitor watched the reference Core: any alarm against it is a false one.
			Expect(alarmsAgainst(mon, proto.Core)).To(BeEmpty(), "the monitor blamed the reference Core")
		})
	}
})

// alarmsAgainst are the monitor's alarms against one side, one per line.
func alarmsAgainst(m *monitor.Monitor, side proto.Peer) []string {
	var out []string
	for _, a := range m.Alarms() {
		if a.From == side {
			out = append(out, a.String())
		}
	}
	return out
}

// faultEvents are the relay's entries in a transcript: what it did to the frames.
func faultEvents(r *scenarios.Result) []string {
	var out []string
	for _, x := range r.Transcript {
		if x.Dir == scenarios.Event && x.Type == "fault" {
			out = append(out, x.Note)
		}
	}
	return out
}
