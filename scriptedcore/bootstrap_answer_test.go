package scriptedcore_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
	"github.com/wirecheck/wirecheck/transport"
)

// afterUnusable is what a fake daemon does once it got its first (unusable) bootstrap answer.
type afterUnusable int

const (
	exits       afterUnusable = iota // returns: the process ends
	staysQuiet                       // runs on and makes no further request
	dialsAnyway                      // upgrades with the answer it got
	retriesNow                       // bootstraps again at once, with no backoff
)

// fakeDaemon bootstraps once and then does what `then` says. With a virtual clock it reports it
// (Clocked) and never arms a timer on it: a retry it makes comes before any clock move.
type fakeDaemon struct {
	done   chan struct{}
	cancel context.CancelFunc
	clk    *clock.Fake
}

func (d *fakeDaemon) Done() <-chan struct{} { return d.done }
func (d *fakeDaemon) Stop(context.Context) error {
	d.cancel()
	<-d.done
	return nil
}

type clockedFake struct{ *fakeDaemon }

func (d clockedFake) Clock() clock.Advancer { return d.clk }

func launchFake(then afterUnusable, virtual bool) scriptedcore.Launch {
	return func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		d := &fakeDaemon{done: make(chan struct{}), cancel: cancel}
		id := transport.Identity{DeviceID: c.DeviceID, Credential: c.Credential, Version: proto.Version}
		cl := transport.Client{HTTP: &http.Client{Timeout: 5 * time.Second}}
		go func() {
			defer close(d.done)
			_, _ = cl.Bootstrap(ctx, c.ServerURL, id) // unusable: an error whatever it says
			switch then {
			case exits:
			case staysQuiet:
				<-ctx.Done()
			case dialsAnyway:
				ws := "ws" + strings.TrimPrefix(c.ServerURL, "http") + strings.TrimPrefix(proto.RouteWebSocket, proto.APIPrefix)
				if conn, err := cl.Dial(ctx, ws, id); err == nil {
					_ = conn.CloseNow()
				}
				<-ctx.Done()
			case retriesNow:
				_, _ = cl.Bootstrap(ctx, c.ServerURL, id)
				<-ctx.Done()
			}
		}()
		if virtual {
			d.clk = clock.NewFake()
			return clockedFake{d}, nil
		}
		return d, nil
	}
}

// After an unusable bootstrap answer the spec lets a daemon retry after a backoff or stop
// (docs/spec-readings.md, bootstrap-error-retry-or-stop): one that exits or stays quiet passes
// each of the three scenarios; one that dials with the answer fails naming the clause of that
// answer, and one that bootstraps again before its clock moves fails CN-18.4.
func TestUnusableBootstrapAnswerAllowsAStopAndFailsADialOrARetryAtOnce(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "connection/runtime-bootstrap/"
	for _, c := range []struct {
		scenario string
		then     afterUnusable
		virtual  bool
		fails    string // "": passes
	}{
		{"transient-statuses-are-retried-with-backoff", exits, false, ""},
		{"empty-device-id-is-an-error", exits, false, ""},
		{"answer-over-64-kib-is-an-error", exits, true, ""},
		{"transient-statuses-are-retried-with-backoff", staysQuiet, false, ""},
		{"transient-statuses-are-retried-with-backoff", dialsAnyway, false, "(status 503) the Runtime's next request was a dial; a non-2xx bootstrap answer is an error and is never dialled with (CN-44.3)"},
		{"empty-device-id-is-an-error", dialsAnyway, false, `(device_id "") the Runtime's next request was a dial; an answer with an empty device_id is an error and is never dialled with (CN-44.4)`},
		{"answer-over-64-kib-is-an-error", dialsAnyway, true, "(a body over 64 KiB) the Runtime's next request was a dial; at most 64 KiB of the answer is read, so it does not decode and is never dialled with (CN-44.2)"},
		{"empty-device-id-is-an-error", retriesNow, true, "bootstrapped again at once, before its clock moved; a retry waits a backoff (CN-18.4)"},
	} {
		sc, ok := cat.Get(prefix + c.scenario)
		if !ok {
			t.Fatalf("no scenario %s", prefix+c.scenario)
		}
		cfg := scriptedcore.Config{Timeout: time.Second, StartTimeout: 5 * time.Second, RetryBound: 300 * time.Millisecond, Seed: "1"}
		res := scriptedcore.Play(context.Background(), sc, cfg, launchFake(c.then, c.virtual))
		switch {
		case c.fails == "" && res.Verdict != scenarios.Pass:
			t.Errorf("%s, daemon %d: %s, want pass:\n%s", c.scenario, c.then, res.Verdict, res)
		case c.fails != "" && (res.Verdict != scenarios.Fail || res.Failure == nil || !strings.Contains(res.Failure.Message, c.fails)):
			t.Errorf("%s, daemon %d: want a failure saying %q, got:\n%s", c.scenario, c.then, c.fails, res)
		}
		if c.fails == "" && !transcriptSays(res, "stopped", "bootstrap-error-retry-or-stop") {
			t.Errorf("%s, daemon %d: the transcript does not say the daemon stopped, as the reading allows:\n%v", c.scenario, c.then, res.Transcript)
		}
	}
}

func transcriptSays(res *scenarios.Result, typ, note string) bool {
	for _, e := range res.Transcript {
		if e.Type == typ && strings.Contains(e.Note, note) {
			return true
		}
	}
	return false
}
