package conformance

import (
	"context"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/reference/runtime"
	"github.com/wirecheck/wirecheck/reference/runtime/contract"
	"github.com/wirecheck/wirecheck/reference/runtime/harness"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// ReferenceRuntime plays sc with scriptedcore against the reference Runtime daemon running in
// process on a virtual clock, over a real WebSocket on loopback.
func ReferenceRuntime(ctx context.Context, sc *scenarios.Scenario, seed string) *scenarios.Result {
	fake := clock.NewFake()
	launch := func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		d, err := runtime.New(runtime.Config{
			ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Clock: fake,
			Harnesses: []harness.Harness{contract.New(fake, runtime.ContractCapabilities())},
		})
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(ctx)
		dr := &inProcessDaemon{done: make(chan struct{}), cancel: cancel, clock: fake}
		go func() {
			defer close(dr.done)
			dr.err = d.Run(ctx)
		}()
		return dr, nil
	}
	return scriptedcore.Play(ctx, sc, scriptedcore.Config{Clock: dueAdvancer{fake}, ShiftVersion: true, Seed: seed}, launch)
}

// dueAdvancer advances the virtual clock only once the daemon waits on a timer due in that span.
type dueAdvancer struct{ *clock.Fake }

func (a dueAdvancer) Advance(d time.Duration) { a.Fake.AdvanceWhenDue(d, time.Second) }

// inProcessDaemon is a reference daemon running in a goroutine.
type inProcessDaemon struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
	clock  *clock.Fake
	once   sync.Once
}

func (d *inProcessDaemon) Done() <-chan struct{} { return d.done }

// Stop cancels the daemon and drives its virtual clock until it has settled: the daemon keeps
// waiting for native settlement on shutdown, as the protocol requires.
func (d *inProcessDaemon) Stop(ctx context.Context) error {
	d.once.Do(d.cancel)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-d.done:
			return nil
		case <-tick.C:
			d.clock.Advance(time.Second)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
