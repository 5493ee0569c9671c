package scriptedcore_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// slowClose is a daemon's connection whose first close frame is written closeDelay late: a daemon
// that takes that long to read the 4 MiB a frame over its limit brings before it refuses it, as a
// daemon in another process does on a loaded machine.
type slowClose struct {
	net.Conn
	slowed *atomic.Bool // once one close was slowed
}

const closeDelay = time.Second

func (c slowClose) Write(b []byte) (int, error) {
	if len(b) > 0 && b[0] == 0x88 && c.slowed.CompareAndSwap(false, true) { // FIN + close opcode: the daemon's close frame
		t := time.NewTimer(closeDelay)
		<-t.C
	}
	return c.Conn.Write(b)
}

// referenceDaemon launches the reference daemon in process on the wall clock, as a daemon in
// another process runs, each connection it dials wrapped by wrap.
func referenceDaemon(wrap func(net.Conn) net.Conn) scriptedcore.Launch {
	return func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		dialer := &net.Dialer{}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableKeepAlives = true
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wrap(conn), nil
		}
		d, err := daemon.New(daemon.Config{HTTPClient: &http.Client{Transport: tr}, ServerURL: c.ServerURL, DeviceID: c.DeviceID,
			Credential: c.Credential, Harnesses: []harness.Harness{contract.New(clock.Real(), daemon.ContractCapabilities())}})
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		r := &daemonRun{done: make(chan struct{}), cancel: cancel}
		go func() {
			defer close(r.done)
			_ = d.Run(ctx)
		}()
		return r, nil
	}
}

type daemonRun struct {
	done   chan struct{}
	cancel context.CancelFunc
}

func (d *daemonRun) Done() <-chan struct{} { return d.done }
func (d *daemonRun) Stop(context.Context) error {
	d.cancel()
	<-d.done
	return nil
}

// A Runtime refuses a frame over 4 MiB only once it has read 4 MiB of it: the close Core awaits
// then is bounded like a step that has the Runtime read megabytes (the start-up bound, as
// await_stall is), not like one frame's wait. Here the reference daemon's close comes a second
// after Core wrote the frame, five times the step bound, and the scenario passes.
func TestCloseAfterAnOversizeFrameIsBoundedLikeReadingMegabytes(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := cat.Get("runtime/stall/frame-over-4-mib-costs-the-connection")
	if !ok {
		t.Fatal("the scenario is missing")
	}
	var slowed atomic.Bool
	launch := referenceDaemon(func(c net.Conn) net.Conn { return slowClose{c, &slowed} })
	r := scriptedcore.Play(context.Background(), sc, scriptedcore.Config{Timeout: closeDelay / 5, StartTimeout: 10 * closeDelay, Seed: "oversize"}, launch)
	if r.Verdict != scenarios.Pass {
		t.Fatalf("a daemon slow to refuse a frame over 4 MiB failed:\n%s", r)
	}
}

// slowFrames is a daemon's connection whose every text frame is written frameDelay late: a daemon
// on a loaded machine, slow between deciding and writing.
type slowFrames struct{ net.Conn }

const frameDelay = 300 * time.Millisecond

func (c slowFrames) Write(b []byte) (int, error) {
	if len(b) > 0 && b[0] == 0x81 { // FIN + text opcode: a frame of the daemon
		t := time.NewTimer(frameDelay)
		<-t.C
	}
	return c.Conn.Write(b)
}

// Against a daemon in another process the scenarios run in real time, and a daemon on a loaded
// machine is late with every frame. A scenario must not make that a failure: here
// input/runtime/done-waits-for-the-input-in-flight, whose steer must reach the daemon before its
// Turn settles, is played against the reference daemon whose every frame is 300 ms late. With the
// Turn settling 100 ms after its start, its started status came after it had settled and done was
// on its way before the steer: a correct daemon failed. (The scenario gives it a second now.)
func TestRealTimeScenarioToleratesALateDaemon(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := cat.Get("input/runtime/done-waits-for-the-input-in-flight")
	if !ok {
		t.Fatal("the scenario is missing")
	}
	launch := referenceDaemon(func(c net.Conn) net.Conn { return slowFrames{c} })
	r := scriptedcore.Play(context.Background(), sc, scriptedcore.Config{Seed: "late"}, launch)
	if r.Verdict != scenarios.Pass {
		t.Fatalf("a daemon late with every frame failed:\n%s", r)
	}
}
