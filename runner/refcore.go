package runner

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/internal/sockwatch"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedruntime"
	"github.com/wirecheck/wirecheck/transport"
)

// referenceCoreDevice is the device the in-process reference Core knows the scripted Runtime as.
const referenceCoreDevice = "runtime"

// PlayReferenceCore plays sc with the scripted Runtime against a fresh reference Core in process:
// a new bbolt file, a virtual clock, one registered device, served on loopback. Core steps are
// cued through the Core's own API (see refCoreDriver); a scenario that arms faults gets a relay
// between the scripted Runtime and Core, on Core's clock.
func PlayReferenceCore(ctx context.Context, sc *scenarios.Scenario, seed string) *scenarios.Result {
	return PlayReferenceCoreWith(ctx, sc, Options{Seed: seed})
}

// PlayReferenceCoreWatched is PlayReferenceCore, every read bounded by step, with a relay between the scripted Runtime and
// Core whose every connection and frame tap sees (a monitor.Monitor), faults or not.
func PlayReferenceCoreWatched(ctx context.Context, sc *scenarios.Scenario, seed string, step time.Duration, tap fault.Tap) *scenarios.Result {
	o := Options{Seed: seed, Step: step}
	if tap != nil {
		o.Tap = func(*scenarios.Scenario) fault.Tap { return tap }
	}
	return PlayReferenceCoreWith(ctx, sc, o)
}

// PlayReferenceCoreWith plays sc against a fresh reference Core in process with the options that
// apply to one Core-side play: Seed, Step (0: InProcessBound, a safety net), Tap and Decided. It runs in a scenario span
// whose status is the verdict.
func PlayReferenceCoreWith(ctx context.Context, sc *scenarios.Scenario, o Options) *scenarios.Result {
	ctx, span := startScenario(ctx, sc, scenarios.SideCore, "scripted Runtime vs reference Core")
	r := playReferenceCore(ctx, sc, o)
	endScenario(span, sc, r)
	return r
}

func playReferenceCore(ctx context.Context, sc *scenarios.Scenario, o Options) *scenarios.Result {
	seed := o.Seed
	var tap fault.Tap
	if o.Tap != nil {
		tap = o.Tap(sc)
	}
	rc, err := startReferenceCore(runtimeStopsReading(sc))
	if err != nil {
		return harnessError(sc, scenarios.SideRuntime, seed, "starting the reference Core: "+err.Error())
	}
	defer rc.close()
	cfg := scriptedruntime.Config{ServerURL: rc.url, Seed: seed, Timeout: cmp.Or(o.Step, InProcessBound),
		Driver: &refCoreDriver{Core: rc.live.Load(), Clock: rc.clock, Transport: rc.transport, Sockets: rc.sockets, DeviceID: referenceCoreDevice, restart: rc.restart}}
	if o.Decided != nil {
		cfg.Decided = func() { o.Decided(sc) }
	}
	if sc.HasFaults() || tap != nil {
		relay := &Relay{Seed: seed, Tap: tap}
		defer relay.Close()
		base, err := relay.Start(ctx, rc.url)
		if err != nil {
			return harnessError(sc, scenarios.SideRuntime, seed, "starting the fault relay: "+err.Error())
		}
		relay.Follow(rc.clock)
		cfg.ServerURL, cfg.Faults = base, relay
	}
	return scriptedruntime.Play(ctx, sc, cfg)
}

// referenceCore is one in-process reference Core served on loopback.
type referenceCore struct {
	// live is the Core serving now: a restart replaces it with a new one over the same data file,
	// behind the same listener (nil once it could not start again).
	live  atomic.Pointer[core.Core]
	cfg   core.Config // what each start opens
	clock *clock.Fake
	// transport runs Core's per-frame write deadline; the scripted Runtime moves it only while it
	// has stopped reading (scriptedruntime.TransportClocked).
	transport *clock.Fake
	// sockets watches the connections Core accepts: await_stall asks its kernel whether Core's
	// write is blocked (scriptedruntime.SocketWatched).
	sockets *sockwatch.Watcher
	url     string // the API base
	dir     string
	srv     *http.Server
	done    chan struct{}
}

// startReferenceCore starts it; smallSendBuffer bounds its sockets' send buffer (a scenario whose
// Runtime stops reading: Core's writes must block).
func startReferenceCore(smallSendBuffer bool) (*referenceCore, error) {
	dir, err := os.MkdirTemp("", "wirecheck-core-")
	if err != nil {
		return nil, err
	}
	var lc net.ListenConfig
	if smallSendBuffer {
		// Inherited by the connections it accepts: a frame of a few hundred KiB to a Runtime that
		// stopped reading blocks in Core's write instead of vanishing into an autotuned buffer.
		lc.Control = smallSendBufferControl
	}
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	rc := &referenceCore{clock: clock.NewFake(), transport: clock.NewFake(), sockets: sockwatch.New(), dir: dir, done: make(chan struct{})}
	base := "http://" + ln.Addr().String()
	rc.cfg = core.Config{DataFile: filepath.Join(dir, "core.db"), PublicURL: base, Clock: rc.clock, TransportClock: rc.transport}
	c, err := core.Open(rc.cfg)
	if err == nil {
		err = c.AddDevice(referenceCoreDevice, "synthetic-contract-credential")
	}
	if err == nil {
		// The same credential under a device of another runtime type (CN-11).
		err = c.AddDeviceOfType(transport.NonDaemonDeviceID, "synthetic-contract-credential", "api-key")
	}
	if err != nil {
		ln.Close()
		if c != nil {
			c.Close()
		}
		os.RemoveAll(dir)
		return nil, err
	}
	rc.live.Store(c)
	rc.url = base + proto.APIPrefix
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve)}
	go func() { defer close(rc.done); _ = rc.srv.Serve(rc.sockets.Listen(ln)) }()
	return rc, nil
}

// serve hands a request to the Core serving now.
func (rc *referenceCore) serve(w http.ResponseWriter, r *http.Request) {
	c := rc.live.Load()
	if c == nil {
		http.Error(w, "the reference Core did not start again", http.StatusServiceUnavailable)
		return
	}
	c.Handler().ServeHTTP(w, r)
}

// restart stops the Core as a process exit leaves it (core.Close: its runners stop, its
// connections close, its records stay as committed) and opens a new one over the same data file,
// with the same clocks, behind the same listener: Open reconciles what the stopped one left in
// flight (Turns, workspace operations, suspensions).
func (rc *referenceCore) restart() (*core.Core, error) {
	if old := rc.live.Swap(nil); old != nil {
		rc.stop(old)
	}
	c, err := core.Open(rc.cfg)
	if err != nil {
		return nil, err
	}
	rc.live.Store(c)
	return c, nil
}

func (rc *referenceCore) close() {
	if c := rc.live.Swap(nil); c != nil {
		rc.stop(c)
	}
	_ = rc.srv.Close()
	<-rc.done
	_ = os.RemoveAll(rc.dir)
}

// stop closes c.
func (rc *referenceCore) stop(c *core.Core) {
	// A write still blocked on a Runtime that stopped reading gives up: Close waits for the writer.
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				rc.transport.Advance(proto.WriteTimeout)
			}
		}
	}()
	_ = c.Close()
	close(stop)
}

// harnessError is the result of a scenario the harness could not play.
func harnessError(sc *scenarios.Scenario, played scenarios.Side, seed, why string) *scenarios.Result {
	return &scenarios.Result{Scenario: sc.ID, Title: sc.Title, Spec: sc.Spec, Labels: sc.Labels, Played: played,
		Verdict: scenarios.HarnessError, Seed: seed, Failure: &scenarios.Failure{Message: fmt.Sprintf("harness error: %s", why)}}
}

// runtimeStopsReading reports whether a scenario has the scripted Runtime stop reading its socket.
func runtimeStopsReading(sc *scenarios.Scenario) bool {
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepStopReading && st.From == proto.Runtime {
			return true
		}
	}
	return false
}
