package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/script"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

// SelfCheck plays sc with scriptedcore against scriptedruntime over a real WebSocket on loopback
// and returns both peers' results. Of o, only Seed, Faults and RelayLog apply.
func SelfCheck(ctx context.Context, sc *scenarios.Scenario, o Options) (core, runtime *scenarios.Result) {
	seed := o.Seed
	var rtResult *scenarios.Result
	gate := script.NewGate()
	launch := func(ctx context.Context, c scriptedcore.Connect, view scriptedcore.View) (scriptedcore.Runtime, error) {
		ctx, cancel := context.WithCancel(ctx)
		r := &scriptedRuntime{done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(r.done)
			rtResult = scriptedruntime.Play(ctx, sc, scriptedruntime.Config{
				ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential,
				Driver: &viewDriver{view: view}, Seed: seed, Linger: InProcessBound, Gate: gate, Timeout: InProcessBound,
				Faults: scriptedruntime.NoFaults{}, // the scripted Core arms them
			})
		}()
		return r, nil
	}
	// The scripted Runtime keeps no timers: advance steps move a virtual clock that only the fault
	// relay (when the scenario arms faults) reads.
	// Both scripts run in this process: their bounds are safety nets (InProcessBound).
	cfg := scriptedcore.Config{Seed: seed, Clock: clock.NewFake(), Gate: gate, Timeout: InProcessBound, StartTimeout: InProcessBound}
	core = playScriptedCore(ctx, sc, cfg, launch, o)
	return core, rtResult
}

// scriptedRuntime is scriptedruntime.Play running in a goroutine, as a launched Runtime.
type scriptedRuntime struct {
	done   chan struct{}
	cancel context.CancelFunc
	once   sync.Once
}

func (r *scriptedRuntime) Done() <-chan struct{} { return r.done }

// Stop lets the scripted Runtime finish its own steps first (it ends when the scenario does), and
// cancels it only if it overstays.
func (r *scriptedRuntime) Stop(ctx context.Context) error {
	select {
	case <-r.done:
	case <-ctx.Done():
		r.cancel()
		<-r.done
	}
	r.once.Do(r.cancel)
	return nil
}

// viewDriver is the CoreDriver of the self-check: the scripted Core sends its frames on its own,
// so triggering is a no-op, and checks read the scripted Core's state.
type viewDriver struct{ view scriptedcore.View }

func (d *viewDriver) Begin(context.Context, *scenarios.Scenario) error                    { return nil }
func (d *viewDriver) Trigger(context.Context, *scenarios.Step, *scenarios.Bindings) error { return nil }
func (d *viewDriver) Advance(time.Duration)                                               {}
func (d *viewDriver) Disconnect(context.Context, *scenarios.CloseSpec) error              { return nil }

// Restart: the scripted Core plays a restart on its own, as the transport's end a Runtime sees.
func (d *viewDriver) Restart(context.Context) error { return nil }

func (d *viewDriver) Check(ctx context.Context, c *scenarios.Check, _ *scenarios.Bindings) error {
	if c.Capabilities == nil {
		return fmt.Errorf("the scripted Core keeps no Turn records: %w", scriptedruntime.ErrNotApplicable)
	}
	for {
		changed := d.view.Changed()
		k, _ := d.view.Capabilities(c.Capabilities.Kind)
		ok, got := c.Capabilities.Judge(k)
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s does not hold: %s", c, got)
		}
	}
}

// OnlyTurnChecksNotApplicable reports whether a scripted Runtime's NotApplicable verdict comes from
// Turn, preparation, workspace, suspension, admission or caller (cancel, input) checks alone: the
// scripted Core keeps no Turn or preparation records and serves no API, so such a check cannot be answered in the self-check, while
// every wire step around it was still played (scriptedruntime goes on after a check it cannot
// answer).
func OnlyTurnChecksNotApplicable(sc *scenarios.Scenario, r *scenarios.Result) bool {
	if r == nil || r.Verdict != scenarios.NotApplicable || r.Failure == nil {
		return false
	}
	for _, st := range sc.Steps {
		if st.Index == r.Failure.Step {
			return st.Kind == scenarios.StepCheck && st.Check != nil && (st.Check.Turn != nil || st.Check.Preparation != nil || st.Check.Workspace != nil || st.Check.Suspension != nil || st.Check.Interaction != nil || st.Check.Interactions != nil || st.Check.Decision != nil || st.Check.Start != nil || st.Check.Admission != nil || st.Check.Cancel != nil || st.Check.Input != nil)
		}
	}
	return false
}
