package core_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

var (
	seedDir   string
	seedFiles = map[string]string{}
)

// TestMain removes the seed files benchmarks share across their runs, and fails the package if
// a test left a goroutine behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if seedDir != "" {
		_ = os.RemoveAll(seedDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines left running:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// seed writes n Turns into a store file once per process: inflight of them left running, the
// rest finished.
func seed(b *testing.B, n, inflight int) string {
	b.Helper()
	key := fmt.Sprintf("%d-%d", n, inflight)
	if path, ok := seedFiles[key]; ok {
		return path
	}
	if seedDir == "" {
		dir, err := os.MkdirTemp("", "wirecheck-core-bench-")
		if err != nil {
			b.Fatal(err)
		}
		seedDir = dir
	}
	path := filepath.Join(seedDir, key+".db")
	seedFiles[key] = path
	st, err := store.Open(path, store.Options{Clock: clock.NewFake(), NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	cfg := proto.PromptRequestPayload{AgentKind: "contract", AgentStateKey: "agents-api-s", StrictResume: true, DisableExecutionEnvironment: true}
	for i := range n {
		id := fmt.Sprintf("turn-%06d", i)
		sess := &store.Session{ID: "session-" + id, DeviceID: "dev", EnvironmentType: store.EnvironmentNone, Configuration: cfg}
		t := &store.Turn{ID: id, SessionID: sess.ID, DeviceID: "dev", AgentKind: "contract", RunID: "run-" + id, Input: proto.TextInput("hello")}
		if err := st.CreateTurn(sess, t); err != nil {
			b.Fatal(err)
		}
		if _, err := st.Commit(id, func(t *store.Turn) error { t.Phase = store.PhaseRunning; return nil }); err != nil {
			b.Fatal(err)
		}
		for j := range 3 {
			if _, err := st.Append(id, store.Event{Kind: store.EventReceived, Type: proto.TypeDelta, ID: t.RunID, Payload: []byte(fmt.Sprintf(`{"delta":"x","sequence":%d}`, j+1))}); err != nil {
				b.Fatal(err)
			}
		}
		if i >= inflight {
			if _, err := st.Finish(id, &store.Outcome{Status: proto.TurnCompleted, Content: "xxx"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

func copyFile(b *testing.B, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCheckpointRestore is a Core restart on a file of 10,000 Turns: open the store, settle
// every Turn found in flight (reconcile) and be ready to serve. Spec target: < 200 ms.
func BenchmarkCheckpointRestore(b *testing.B) {
	for _, tc := range []struct {
		name     string
		inflight int
	}{{"10000-turns-all-in-flight", 10000}, {"10000-turns-none-in-flight", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			src := seed(b, 10000, tc.inflight)
			dir := b.TempDir()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				path := filepath.Join(dir, fmt.Sprintf("core-%d.db", i))
				copyFile(b, src, path)
				b.StartTimer()
				c, err := core.Open(core.Config{DataFile: path, PublicURL: "http://127.0.0.1:1", Clock: clock.NewFake()})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if len(c.Reconciled) != tc.inflight {
					b.Fatalf("reconciled %d, want %d", len(c.Reconciled), tc.inflight)
				}
				_ = c.Close()
				_ = os.Remove(path)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkEventEmission is one Run frame from the Runtime's WebSocket write to Core's in-process
// observers: read by the gateway, routed to the Run subscription, journalled in a committed
// (fsynced) bbolt transaction, then delivered. Spec target: < 2 ms.
func BenchmarkEventEmission(b *testing.B) {
	events := make(chan store.Event, 1)
	c, base := serve(b, core.Config{OnEvent: func(_ string, ev store.Event) {
		if ev.Type == proto.TypeDelta {
			events <- ev
		}
	}})
	if err := c.AddDevice("dev", "credential"); err != nil {
		b.Fatal(err)
	}
	d := dial(b, base, "dev", "credential", "preparation", "environment_none")
	waitCapabilities(b, c, "dev", "preparation")
	t, err := c.StartTurn(execution.StartRequest{DeviceID: "dev", Environment: "none",
		Configuration: proto.PromptRequestPayload{AgentKind: "contract"}, Input: proto.TextInput("hello")})
	if err != nil {
		b.Fatal(err)
	}
	d.toStarted(t)
	payload := &proto.DeltaPayload{Delta: "some streamed text of an ordinary size", Sequence: 0}
	b.ResetTimer()
	for i := range b.N {
		payload.Sequence = uint64(i + 1)
		d.send(proto.TypeDelta, t.RunID, payload)
		<-events
	}
}
