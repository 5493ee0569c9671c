package runner

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/sockwatch"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/scenarios"
)

// ReferenceRuntime launches the reference Runtime daemon in process, each on its own virtual clock:
// what the gate certifies, in seconds.
type ReferenceRuntime struct {
	// Without lists capabilities its contract kind leaves undeclared, beside those the reference
	// never declares: the reference composed with a narrower Harness.
	Without []string
	// DueWait bounds how long an `advance` waits for the daemon to arm a timer that falls due in
	// the span it moves (default 1 s), and it is what an advance with nothing due costs. The
	// timers the frames Core sent start are armed before that wait begins (the scripted Core
	// first waits until the daemon has read and handled them, SocketWatched): DueWait is left
	// for timers the daemon's native work arms in goroutines of their own. It is counted as
	// clock.Fake.WaitDue counts it, in real time and turns of the waiting goroutine, so a machine
	// that starves the process of CPU stretches it as it stretches the daemon's way to its timer.
	DueWait time.Duration
	// SmallSendBuffer gives the daemon's sockets a small fixed send buffer (a scenario with
	// await_stall: a write to a Core that stopped reading must block).
	SmallSendBuffer bool
}

// ForScenario is the reference for one scenario: a scenario that `excludes` capabilities the
// reference declares (it tests what a Runtime without them answers) gets the reference whose
// contract kind declares neither, so the gate plays it instead of finding it not applicable.
func (r ReferenceRuntime) ForScenario(sc *scenarios.Scenario) Target {
	for _, st := range sc.Steps {
		r.SmallSendBuffer = r.SmallSendBuffer || st.Kind == scenarios.StepAwaitStall
	}
	declared := daemon.ContractCapabilities()
	for _, name := range sc.Excludes {
		if v, ok := declared.Get(name); ok && v.Supported() {
			r.Without = append(r.Without, name)
		}
	}
	return r
}

func (r ReferenceRuntime) capabilities() proto.AgentKindCapabilities {
	caps := daemon.ContractCapabilities()
	for _, name := range r.Without {
		caps.Set(name, proto.Unsupported)
	}
	return caps
}

func (ReferenceRuntime) Describe() string { return "reference Runtime (in process, virtual clock)" }
func (ReferenceRuntime) Remote() bool     { return false }

func (r ReferenceRuntime) Launch(ctx context.Context, c Connect) (Runtime, error) {
	fake, transport := clock.NewFake(), clock.NewFake()
	sockets := sockwatch.New()
	d, err := daemon.New(daemon.Config{HTTPClient: daemonClient(sockets, r.SmallSendBuffer),
		ServerURL: c.ServerURL, DeviceID: c.DeviceID, Credential: c.Credential, Clock: fake, TransportClock: transport,
		Harnesses: []harness.Harness{contract.New(fake, r.capabilities()), contract.NewUnavailable(fake)},
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	dr := &inProcessDaemon{done: make(chan struct{}), cancel: cancel, clock: fake, transport: transport, dueWait: r.DueWait, sockets: sockets}
	if dr.dueWait <= 0 {
		dr.dueWait = time.Second
	}
	go func() {
		defer close(dr.done)
		dr.err = d.Run(ctx)
	}()
	return dr, nil
}

// inProcessDaemon is a reference daemon running in a goroutine on a virtual clock.
type inProcessDaemon struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
	clock  *clock.Fake
	// transport runs the per-frame write deadline; the scripted Core moves it only while it has
	// stopped reading (scriptedcore.TransportClocked).
	transport *clock.Fake
	dueWait   time.Duration
	// sockets watches the daemon's connections in the kernel (scriptedcore.SocketWatched).
	sockets *sockwatch.Watcher
	once    sync.Once
}

// daemonClient is the daemon's HTTP client (bootstrap and upgrade): every connection it dials is
// watched, and with smallSendBuffer it gets a fixed small send buffer (a scenario with
// await_stall: a write to a Core that stopped reading must block).
func daemonClient(w *sockwatch.Watcher, smallSendBuffer bool) *http.Client {
	d := &net.Dialer{}
	if smallSendBuffer {
		d.Control = smallSendBufferControl
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = w.DialContext(d)
	// Bootstrap is one request per connection attempt, as in the daemon's default client.
	t.DisableKeepAlives = true
	return &http.Client{Transport: t}
}

// AwaitBlockedWrite returns once a write of the daemon is blocked in the kernel (await_stall).
func (d *inProcessDaemon) AwaitBlockedWrite(ctx context.Context) error {
	return d.sockets.AwaitBlockedWrite(ctx)
}

// AwaitReadAll returns once every socket of the daemon has a read waiting on an empty receive
// queue: its receive loop has dispatched every frame that arrived, and since the daemon decides
// in that loop, armed every timer they start (advance).
func (d *inProcessDaemon) AwaitReadAll(ctx context.Context) error {
	return d.sockets.AwaitReadAll(ctx)
}

func (d *inProcessDaemon) Done() <-chan struct{} { return d.done }

// Clock is the daemon's virtual clock; advance steps move it once the daemon waits on a timer due
// in that span.
func (d *inProcessDaemon) Clock() clock.Advancer { return dueAdvancer{d.clock, d.dueWait} }

// TransportClock is the daemon's virtual transport clock.
func (d *inProcessDaemon) TransportClock() clock.Advancer { return dueAdvancer{d.transport, d.dueWait} }

func (d *inProcessDaemon) ExitReason() string {
	select {
	case <-d.done:
		if d.err != nil {
			return d.err.Error()
		}
		return "stopped"
	default:
		return ""
	}
}

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
			d.transport.Advance(time.Second) // a write blocked on a reader that stopped gives up
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

type dueAdvancer struct {
	*clock.Fake
	wait time.Duration
}

func (a dueAdvancer) Advance(d time.Duration) { _ = a.AdvanceContext(context.Background(), d) }

// AdvanceContext waits for a timer due within d (as Advance does) before it advances; without it
// the embedded Fake's AdvanceContext would advance at once.
func (a dueAdvancer) AdvanceContext(ctx context.Context, d time.Duration) error {
	a.Fake.WaitDue(d, a.wait)
	return a.Fake.AdvanceContext(ctx, d)
}
