package fault_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

var catalog = func() *scenarios.Catalog {
	c, err := scenarios.Embedded()
	if err != nil {
		panic(fmt.Sprintf("the embedded catalog does not load:\n%v", err))
	}
	return c
}()

// relayed wraps a launched Runtime: it is pointed at a relay whose upstream is the scripted Core,
// and stopping it closes the relay.
type relayed struct {
	done  chan struct{}
	relay *fault.Relay
	stop  func(ctx context.Context) error
	once  sync.Once
}

func (r *relayed) Done() <-chan struct{} { return r.done }

func (r *relayed) Stop(ctx context.Context) error {
	err := r.stop(ctx)
	r.once.Do(r.relay.Close)
	return err
}

// startRelay puts a transparent relay in front of the scripted Core and returns the Connect to
// give the launched Runtime instead.
func startRelay(ctx context.Context, c scriptedcore.Connect, clk clock.Clock, logs *syncBuffer) (*fault.Relay, scriptedcore.Connect) {
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	relay, err := fault.New(c.ServerURL, nil, fault.Options{Clock: clk, Logger: log, Seed: 7})
	Expect(err).NotTo(HaveOccurred())
	base, err := relay.Start(ctx)
	Expect(err).NotTo(HaveOccurred())
	c.ServerURL = base
	return relay, c
}

// The relay adds nothing: every scenario of the catalog passes with it between the peers.
var _ = Describe("a relay with no faults is transparent", Label("transparent"), func() {
	var logs *syncBuffer
	BeforeEach(func() { logs = &syncBuffer{} })
	AfterEach(func() {
		Expect(containsCredential(logs.String())).To(BeFalse(), "the relay logged a credential")
	})

	Describe("scripted Core ↔ relay ↔ scripted Runtime", Label("self-check"), func() {
		for _, sc := range catalog.Scenarios {
			if sc.HasFaults() {
				continue // played with its faults armed by the gate (conformance)
			}
			It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
				ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				seed := fmt.Sprint(GinkgoRandomSeed())
				gate := script.NewGate()
				var rtResult *scenarios.Result
				var relay *fault.Relay
				launch := func(ctx context.Context, c scriptedcore.Connect, view scriptedcore.View) (scriptedcore.Runtime, error) {
					relay, c = startRelay(ctx, c, clock.NewFake(), logs)
					ctx, cancel := context.WithCancel(ctx)
					r := &relayed{done: make(chan struct{}), relay: relay}
					r.stop = func(ctx context.Context) error {
						select {
						case <-r.done:
						case <-ctx.Done():
							cancel()
							<-r.done
						}
						cancel()
						return nil
					}
					go func() {
						defer close(r.done)
						rtResult = scriptedruntime.Play(ctx, sc, scriptedruntime.Config{
							ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential,
							Driver: viewDriver{view}, Seed: seed, Linger: 3 * time.Second, Gate: gate,
						})
					}()
					return r, nil
				}
				core := scriptedcore.Play(ctx2, sc, scriptedcore.Config{Seed: seed, Clock: clock.NewFake(), Gate: gate,
					Credential: credential}, launch)
				Expect(core.Verdict).To(Equal(scenarios.Pass), "scripted Core:\n%s", core)
				Expect(rtResult).NotTo(BeNil(), "the scripted Runtime never ran")
				if !onlyTurnCheckNotApplicable(sc, rtResult) {
					Expect(rtResult.Verdict).To(Equal(scenarios.Pass), "scripted Runtime:\n%s", rtResult)
				}
				Expect(relay.Events()).To(BeEmpty())
				if sc.Handshake == nil || sc.Handshake.Expect == nil {
					Expect(logs.String()).To(ContainSubstring("fault relay: connection open"), "the peers bypassed the relay")
				}
			})
		}
	})

	Describe("scripted Core ↔ relay ↔ reference Runtime", Label("runtime"), func() {
		for _, sc := range catalog.Scenarios {
			if !sc.Tests.Covers(scenarios.SideRuntime) || sc.HasFaults() {
				continue
			}
			It(sc.ID, Label(sc.Labels...), func(ctx SpecContext) {
				ctx2, cancel := context.WithTimeout(ctx, 30*time.Second)
				defer cancel()
				fake := clock.NewFake()
				launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
					relay, c := startRelay(ctx, c, fake, logs)
					d, err := daemon.New(daemon.Config{
						ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Clock: fake,
						Harnesses: []harness.Harness{contract.New(fake, daemon.ContractCapabilities())},
					})
					if err != nil {
						relay.Close()
						return nil, err
					}
					ctx, cancel := context.WithCancel(ctx)
					r := &relayed{done: make(chan struct{}), relay: relay}
					var once sync.Once
					r.stop = func(ctx context.Context) error {
						// The daemon keeps waiting for native settlement on shutdown: drive its clock.
						once.Do(cancel)
						tick := time.NewTicker(time.Millisecond)
						defer tick.Stop()
						for {
							select {
							case <-r.done:
								return nil
							case <-tick.C:
								fake.Advance(time.Second)
							case <-ctx.Done():
								return ctx.Err()
							}
						}
					}
					go func() {
						defer close(r.done)
						_ = d.Run(ctx)
					}()
					return r, nil
				}
				res := scriptedcore.Play(ctx2, sc, scriptedcore.Config{Clock: dueAdvancer{fake}, ShiftVersion: true,
					Seed: fmt.Sprint(GinkgoRandomSeed()), Credential: credential}, launch)
				Expect(res.Verdict).To(Equal(scenarios.Pass), "%s", res)
			})
		}
	})
})

// viewDriver is the self-check's Core driver: the scripted Core acts on its own.
type viewDriver struct{ view scriptedcore.View }

func (viewDriver) Begin(context.Context, *scenarios.Scenario) error                    { return nil }
func (viewDriver) Trigger(context.Context, *scenarios.Step, *scenarios.Bindings) error { return nil }
func (viewDriver) Advance(time.Duration)                                               {}
func (viewDriver) Disconnect(context.Context, *scenarios.CloseSpec) error              { return nil }

func (d viewDriver) Check(ctx context.Context, c *scenarios.Check, _ *scenarios.Bindings) error {
	if c.Capabilities == nil {
		return fmt.Errorf("the scripted Core keeps no Turn records: %w", scriptedruntime.ErrNotApplicable)
	}
	for {
		changed := d.view.Changed()
		if got := d.view.Declared(c.Capabilities.Kind); got == c.Capabilities.Declared {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("capabilities of kind %q are not %s", c.Capabilities.Kind, c.Capabilities.Declared)
		}
	}
}

// onlyTurnCheckNotApplicable: the scripted Core keeps no Turn records, so the scripted Runtime
// cannot answer a Turn check in the self-check; every wire step around it was still played.
func onlyTurnCheckNotApplicable(sc *scenarios.Scenario, r *scenarios.Result) bool {
	if r.Verdict != scenarios.NotApplicable || r.Failure == nil {
		return false
	}
	for _, st := range sc.Steps {
		if st.Index == r.Failure.Step {
			return st.Kind == scenarios.StepCheck && st.Check != nil && st.Check.Turn != nil
		}
	}
	return false
}

// dueAdvancer advances the virtual clock only once the daemon waits on a timer due in that span.
type dueAdvancer struct{ *clock.Fake }

func (a dueAdvancer) Advance(d time.Duration) { a.Fake.AdvanceWhenDue(d, time.Second) }
