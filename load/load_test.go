package load_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/load"
	"github.com/wirecheck/wirecheck/reference/core"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// referenceCore serves the reference Core in process on a loopback port with a temporary bbolt
// file.
func referenceCore(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	c, err := core.Open(core.Config{DataFile: filepath.Join(t.TempDir(), "core.db"), PublicURL: base})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = c.Close()
		_ = srv.Close()
		<-served
	})
	return base
}

func run(t *testing.T, cfg load.Config) *load.Report {
	t.Helper()
	var log bytes.Buffer
	cfg.Log = &log
	rep, err := load.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("load run: %v\n%s", err, log.String())
	}
	var table bytes.Buffer
	rep.WriteTable(&table)
	t.Logf("\n%s%s", log.String(), table.String())
	if !strings.Contains(log.String(), "seed 42") {
		t.Errorf("the seed is not printed: %q", log.String())
	}
	for _, c := range rep.Checks {
		if !c.OK {
			t.Errorf("check failed: %s: %v", c.Name, c.Examples)
		}
	}
	return rep
}

func TestSmallRun(t *testing.T) {
	base := referenceCore(t)
	rep := run(t, load.Config{CoreURL: base, Runtimes: 50, Rate: 200, Turns: 100, Duration: time.Minute,
		Cancel: 0.1, Seed: 42, Register: load.APIRegistrar(base, http.DefaultClient)})
	if rep.Connected != 50 || rep.Accepted != 100 {
		t.Errorf("connected %d of 50, accepted %d of 100 Turns", rep.Connected, rep.Accepted)
	}
	if rep.Outcomes["completed"]+rep.Outcomes["cancelled"] != 100 || rep.Outcomes["cancelled"] == 0 {
		t.Errorf("outcomes %v: want 100 completed or cancelled, some cancelled", rep.Outcomes)
	}
	for _, k := range []string{"dispatch_core", "dispatch_runtime", "event_emission", "completion", "api_start_turn"} {
		d := rep.Latency[k]
		if d.N == 0 || d.P50 < 0 || d.P50 > d.P99 || d.P99 > d.Max || d.Max > 60_000 {
			t.Errorf("latency %s is not sane: %+v", k, d)
		}
	}
	if m := rep.Memory.SimBytesPerRuntime; m == 0 || m > 1<<20 {
		t.Errorf("simulator memory per Runtime %d bytes is not sane", m)
	}
}

// TestShortSoak is the soak in small: 100 Runtimes for 20 s under a reconnect storm of 10 % a
// minute and withheld cancellation receipts; every check on the Core's records must hold.
func TestShortSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("20 s of real time")
	}
	base := referenceCore(t)
	rep := run(t, load.Config{CoreURL: base, Runtimes: 100, Rate: 20, Turns: 1 << 20, Duration: 20 * time.Second,
		Storm: 10, Cancel: 0.2, LostReceipts: 0.5, Seed: 42, Register: load.APIRegistrar(base, http.DefaultClient)})
	if rep.Kicked == 0 || rep.Withheld == 0 {
		t.Errorf("the faults did not happen: %d storm drops, %d receipts withheld", rep.Kicked, rep.Withheld)
	}
	if rep.Accepted < 300 {
		t.Errorf("only %d Turns accepted in 20 s at 20/s", rep.Accepted)
	}
	if c := rep.Flat(); !c.OK {
		t.Errorf("%s: %v", c.Name, c.Examples)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	for _, u := range []string{"http://10.0.0.1:8080", "http://example.com", "http://[2001:db8::1]:80", "ftp://127.0.0.1"} {
		_, err := load.Run(context.Background(), load.Config{CoreURL: u, Runtimes: 1, Duration: time.Second,
			Register: func(context.Context, int) (load.Device, error) {
				t.Fatal("registered against " + u)
				return load.Device{}, nil
			}})
		if err == nil {
			t.Errorf("%s was not refused", u)
		}
	}
}
