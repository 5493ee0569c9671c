package core_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// serve runs an in-process Core on loopback.
func serve(tb testing.TB, cfg core.Config) (*core.Core, string) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	if cfg.DataFile == "" {
		cfg.DataFile = filepath.Join(tb.TempDir(), "core.db")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.NewFake()
	}
	cfg.PublicURL = base
	c, err := core.Open(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: c.Handler()}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	tb.Cleanup(func() {
		_ = c.Close()
		_ = srv.Close()
		<-done
	})
	return c, base
}

// daemon is a minimal Runtime connection for tests and benchmarks.
type daemon struct {
	tb testing.TB
	ws *websocket.Conn
}

func dial(tb testing.TB, base, deviceID, credential string, supported ...string) *daemon {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net, not a wait
	defer cancel()
	url := "ws" + base[len("http"):] + proto.RouteWebSocket + "?device_id=" + deviceID + "&version=" + proto.Version
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + credential}}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ws.CloseNow() })
	d := &daemon{tb: tb, ws: ws}
	caps := proto.MustDeclareCapabilities(supported...)
	d.send(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: 1, SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: &caps}}})
	return d
}

func (d *daemon) send(typ, id string, payload any) {
	raw, err := proto.MustEnvelope(typ, id, payload).Encode()
	if err != nil {
		d.tb.Fatal(err)
	}
	if err := d.ws.Write(context.Background(), websocket.MessageText, raw); err != nil {
		d.tb.Fatal(err)
	}
}

func (d *daemon) read() proto.Envelope {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net, not a wait
	defer cancel()
	_, raw, err := d.ws.Read(ctx)
	if err != nil {
		d.tb.Fatal(err)
	}
	var env proto.Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		d.tb.Fatal(err)
	}
	return env
}

// waitCapabilities waits until the Core's snapshot of the device declares every named capability.
func waitCapabilities(tb testing.TB, c *core.Core, deviceID string, supported ...string) {
	tb.Helper()
	deadline := time.After(5 * time.Second)
	for {
		ch := c.Changed()
		if hb, known := c.Capabilities(deviceID); known && declares(hb, supported) {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			tb.Fatal("no capability snapshot")
		}
	}
}

// toStarted plays prepare → ready → start → started for a Turn.
func (d *daemon) toStarted(t *store.Turn) {
	prep := d.read()
	st := func(rev uint64, state, run string) *proto.PreparationStatusPayload {
		return &proto.PreparationStatusPayload{ExecutorID: "e", Handle: "h", Revision: rev, State: state, RunID: run, ExpiresAt: 1800000000000}
	}
	d.send(proto.TypePreparationStatus, prep.ID, st(1, proto.StateReady, ""))
	if start := d.read(); start.Type != proto.TypeExecutionStart {
		d.tb.Fatalf("expected execution_start, got %s", start.Type)
	}
	d.send(proto.TypePreparationStatus, prep.ID, st(2, proto.StateStarted, t.RunID))
}

func declares(hb *proto.HeartbeatPayload, supported []string) bool {
	k := hb.Kind("contract")
	if k == nil {
		return false
	}
	for _, name := range supported {
		if v, _ := k.Capabilities.Get(name); !v.Supported() {
			return false
		}
	}
	return true
}
