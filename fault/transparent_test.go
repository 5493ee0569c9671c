package fault_test

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/goleak"

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

// A transparent play is one scenario played through a relay with no rule. There are about 1,300
// and each mostly waits on loopback round trips, so BeforeSuite plays the ones Ginkgo's filters
// select side by side (16 per CPU, as the gate does) before any spec runs, and each spec judges
// its own play. Played one after another they took two minutes.
type transparentPlay struct {
	play func(ctx context.Context) *playOutcome
	out  *playOutcome
}

// playOutcome is what a spec judges: the results, what the relay logged, what the monitor saw.
type playOutcome struct {
	core, runtime *scenarios.Result
	logs          string
	mon           *monitor.Monitor
}

// transparentPlays are keyed by the spec's container texts and its leaf text, as
// transparentKey joins them.
var transparentPlays = map[string]*transparentPlay{}

// transparentSelected holds the keys of the transparent specs the filters select (TestRelay
// previews them before the suite runs).
var transparentSelected = map[string]bool{}

func transparentKey(texts ...string) string { return strings.Join(texts, "\x00") }

// transparent registers a play under the spec texts and returns the spec body's way to its outcome.
func transparent(play func(ctx context.Context) *playOutcome, texts ...string) func() *playOutcome {
	k := transparentKey(texts...)
	p := &transparentPlay{play: play}
	transparentPlays[k] = p
	return func() *playOutcome {
		Expect(p.out).NotTo(BeNil(), "BeforeSuite did not play %s", k)
		return p.out
	}
}

// relayOptions are a transparent play's options, with its own log for the relay.
func relayOptions(logs *syncBuffer) runner.Options {
	return runner.Options{Seed: fmt.Sprint(GinkgoRandomSeed()), Faults: &fault.Schedule{}, Credential: credential,
		RelayLog: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
}

var _ = BeforeSuite(func(ctx SpecContext) {
	base := goleak.IgnoreCurrent()
	var plays []*transparentPlay
	for k, p := range transparentPlays {
		if transparentSelected[k] {
			plays = append(plays, p)
		}
	}
	sem := make(chan struct{}, 16*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for _, p := range plays {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // a safety net, not a budget
			defer cancel()
			p.out = p.play(ctx)
		})
	}
	wg.Wait()
	// The plays' goroutines are checked once, after all of them: relays, sessions, timers and
	// peers all stop.
	Eventually(func() error { return goleak.Find(base) }).WithTimeout(within).Should(Succeed(), "goroutines left running after the transparent plays")
}, NodeTimeout(10*time.Minute))

// The relay adds nothing: every scenario of the catalog passes with a relay that has no rule
// between the peers, through the same pairing code the gate uses.
var _ = Describe(transparentText, Label("transparent"), func() {
	Describe(selfCheckText, Label("self-check"), func() {
		selfCheck := runner.SelfCheckPairing()
		for _, sc := range transparentScenarios() {
			if sc.HasFaults() {
				continue // played with its faults armed by the gate (conformance)
			}
			if why := selfCheck.Skip(sc); why != "" {
				continue // what the self-check pairing cannot play, it cannot play through a relay either
			}
			outcome := transparent(func(ctx context.Context) *playOutcome {
				logs := &syncBuffer{}
				// A safety net: the largest plays (4,000 frames) under -race on a loaded machine
				// took more than 30 s.
				ctx, cancel := context.WithTimeout(ctx, runner.InProcessBound)
				defer cancel()
				core, rt := runner.SelfCheck(ctx, sc, relayOptions(logs))
				return &playOutcome{core: core, runtime: rt, logs: logs.String()}
			}, transparentText, selfCheckText, sc.ID)
			It(sc.ID, Label(sc.Labels...), func() {
				o := outcome()
				Expect(o.core.Verdict).To(Equal(scenarios.Pass), "scripted Core:\n%s", o.core)
				Expect(o.runtime).NotTo(BeNil(), "the scripted Runtime never ran")
				if !runner.OnlyTurnChecksNotApplicable(sc, o.runtime) {
					Expect(o.runtime.Verdict).To(Equal(scenarios.Pass), "scripted Runtime:\n%s", o.runtime)
				}
				Expect(faultEvents(o.core)).To(BeEmpty())
				expectRelayed(sc, o.logs)
			})
		}
	})

	Describe(referenceRuntimeText, Label("runtime"), func() {
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
			outcome := transparent(func(ctx context.Context) *playOutcome {
				logs := &syncBuffer{}
				mon := monitor.New(nil)
				o := relayOptions(logs)
				o.Tap = func(*scenarios.Scenario) fault.Tap { return mon }
				r := runner.PlayRuntime(ctx, sc, 0, runner.ReferenceRuntime{}, o)
				return &playOutcome{runtime: r, logs: logs.String(), mon: mon}
			}, transparentText, referenceRuntimeText, sc.ID)
			It(sc.ID, Label(sc.Labels...), func() {
				o := outcome()
				Expect(o.runtime.Verdict).To(Equal(scenarios.Pass), "%s", o.runtime)
				// The monitor watched a conforming Runtime: any alarm against it is a false one.
				Expect(alarmsAgainst(o.mon, proto.Runtime)).To(BeEmpty(), "the monitor blamed the reference Runtime")
				Expect(faultEvents(o.runtime)).To(BeEmpty())
				expectRelayed(sc, o.logs)
			})
		}
	})
})

var _ = Describe(monitoredCoreText, Label("transparent", "core"), func() {
	for _, sc := range transparentScenarios() {
		if !sc.Tests.Covers(scenarios.SideCore) || sc.HasFaults() {
			continue
		}
		if slices.ContainsFunc(sc.Steps, func(st *scenarios.Step) bool { return st.Kind == scenarios.StepAwaitStall }) {
			continue // the relay keeps reading from Core: a Runtime that stopped reading blocks no write of Core's
		}
		outcome := transparent(func(ctx context.Context) *playOutcome {
			mon := monitor.New(nil)
			r := runner.PlayReferenceCoreWatched(ctx, sc, fmt.Sprint(GinkgoRandomSeed()), 0, mon)
			return &playOutcome{core: r, mon: mon}
		}, monitoredCoreText, sc.ID)
		It(sc.ID, Label(sc.Labels...), func() {
			o := outcome()
			Expect(o.core.Verdict).To(BeElementOf(scenarios.Pass, scenarios.NotApplicable), "%s", o.core)
			// The monitor watched the reference Core: any alarm against it is a false one.
			Expect(alarmsAgainst(o.mon, proto.Core)).To(BeEmpty(), "the monitor blamed the reference Core")
		})
	}
})

const (
	transparentText      = "a relay with no faults is transparent"
	selfCheckText        = "scripted Core ↔ relay ↔ scripted Runtime"
	referenceRuntimeText = "scripted Core ↔ relay ↔ reference Runtime"
	monitoredCoreText    = "a monitored relay between the scripted Runtime and the reference Core"
)

// expectRelayed checks the play's relay log: no credential in it, and the peers went through
// the relay (unless the scenario's handshake is refused before a connection opens).
func expectRelayed(sc *scenarios.Scenario, logs string) {
	Expect(containsCredential(logs)).To(BeFalse(), "the relay logged a credential")
	if sc.Handshake == nil || sc.Handshake.Expect == nil {
		Expect(logs).To(ContainSubstring("fault relay: connection open"), "the peers bypassed the relay")
	}
}

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
