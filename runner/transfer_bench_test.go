package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// transferSeed seeds the bodies; every run moves the same bytes.
const transferSeed = 20261202

// BenchmarkTransfer moves bulk bytes from Core to a Runtime and back through the reference pair (the
// reference Core and daemon in process, on the wall clock, a real WebSocket on loopback, a real
// bbolt file and a real Environment directory), side by side with the same bytes copied over a
// plain coder/websocket connection on loopback. docs/performance.md has the baseline; compare the
// pair's MB/s with raw-copy's from the same run.
//
//	raw-copy            50 MiB as 64 KiB binary messages, written back to back (the socket library's ceiling)
//	raw-acked           the same, each message awaiting a one-byte answer (the floor of any stop-and-wait protocol)
//	prepare-floor       the same as runtime_prepare chunk frames (encoded beforehand), each decoded and hashed before its answer: a Runtime's floor
//	runtime_prepare     a 50 MiB file prepared on a fresh connection: begin, 800 chunks each awaiting received, commit, apply
//	workspace-write     a 5 MiB write (the API's inline bound) into a finished Turn's workspace
//	workspace-export    the export of that workspace (the 50 MiB file and the 5 MiB one) pulled to the end
func BenchmarkTransfer(b *testing.B) {
	big := seededBytes(50<<20, 1)
	small := seededBytes(5<<20, 2)
	b.Run("raw-copy", func(b *testing.B) { defer cpuPerOp(b)(); benchRawWebSocket(b, big, rawCopy) })
	b.Run("raw-acked", func(b *testing.B) { defer cpuPerOp(b)(); benchRawWebSocket(b, big, rawAcked) })
	b.Run("prepare-floor", func(b *testing.B) { defer cpuPerOp(b)(); benchRawWebSocket(b, big, rawFloor) })

	p := startTransferPair(b, big)
	b.Run("runtime_prepare", func(b *testing.B) {
		defer cpuPerOp(b)()
		b.SetBytes(int64(len(big)))
		for b.Loop() {
			p.connect(b).stop()
		}
	})
	d := p.connect(b)
	defer d.stop()
	turnID := p.finishedTurn(b)
	b.Run("workspace-write", func(b *testing.B) {
		defer cpuPerOp(b)()
		b.SetBytes(int64(len(small)))
		for b.Loop() {
			p.workspace(b, execution.WorkspaceRequest{TurnID: turnID, Key: p.key(), Kind: "write", Path: "small.bin", Content: small})
		}
	})
	b.Run("workspace-export", func(b *testing.B) {
		defer cpuPerOp(b)()
		b.SetBytes(int64(len(big) + len(small)))
		for b.Loop() {
			op := p.workspace(b, execution.WorkspaceRequest{TurnID: turnID, Key: p.key(), Kind: "export"})
			if op.DataBytes < int64(len(big)+len(small)) {
				b.Fatalf("the export holds %d bytes, fewer than the workspace's %d", op.DataBytes, len(big)+len(small))
			}
		}
	})
}

// cpuPerOp reports the process's CPU time (user and system) per iteration: both sides of the pair
// and the socket. On a loaded machine wall time waits for a core at every hand-off between
// goroutines (a stop-and-wait transfer has several per chunk); CPU time is the cost the load does
// not inflate, so the ratios hold between runs on a busy machine.
func cpuPerOp(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func seededBytes(n int, stream uint64) []byte {
	r := rand.New(rand.NewPCG(transferSeed, stream))
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	return out
}

// rawMode is what a raw benchmark's receiver does per message.
type rawMode int

const (
	rawCopy  rawMode = iota // read it
	rawAcked                // read it, answer one byte
	rawFloor                // read a canonical chunk frame, base64-decode and hash its data, answer one byte
)

// benchRawWebSocket copies body over one loopback coder/websocket connection per iteration, in
// chunks of the protocol's 64 KiB. In rawFloor mode the chunks travel as the runtime_prepare chunk
// frames Core sends, encoded before the timer starts, and the receiver does what any Runtime must
// before its received: find the data, decode the base64, hash the bytes. That is the floor of a
// conforming Runtime on this socket library with a sender that costs nothing.
func benchRawWebSocket(b *testing.B, body []byte, mode rawMode) {
	const chunk = proto.TransferChunkBytes
	var messages [][]byte
	for off := 0; off < len(body); off += chunk {
		m := body[off:min(off+chunk, len(body))]
		if mode == rawFloor {
			raw, err := proto.MustEnvelope(proto.TypeRuntimePrepare, "3f1c1e0a-6b1d-4c55-9a43-0e1f2d3c4b5a",
				&proto.RuntimePreparePayload{Step: proto.StepChunk, Offset: int64(off), Data: m}).Encode()
			if err != nil {
				b.Fatal(err)
			}
			m = raw
		}
		messages = append(messages, m)
	}
	got := make(chan int, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(proto.MaxFrameBytes)
		ctx := context.Background()
		digest, decoded := sha256.New(), make([]byte, chunk)
		n := 0
		for n < len(body) {
			_, data, err := c.Read(ctx)
			if err != nil {
				break
			}
			if mode == rawFloor {
				_, text, _ := bytes.Cut(data, []byte(`"data":"`))
				text, _, _ = bytes.Cut(text, []byte(`"`))
				k, err := base64.StdEncoding.Decode(decoded, text)
				if err != nil {
					break
				}
				digest.Write(decoded[:k])
				data = decoded[:k]
			}
			n += len(data)
			if mode != rawCopy && c.Write(ctx, websocket.MessageBinary, []byte{1}) != nil {
				break
			}
		}
		got <- n
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "ws://" + ln.Addr().String()
	typ := websocket.MessageBinary
	if mode == rawFloor {
		typ = websocket.MessageText
	}
	b.SetBytes(int64(len(body)))
	ctx := context.Background()
	for b.Loop() {
		c, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, m := range messages {
			if err := c.Write(ctx, typ, m); err != nil {
				b.Fatal(err)
			}
			if mode != rawCopy {
				if _, _, err := c.Read(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		if n := <-got; n != len(body) {
			b.Fatalf("the server read %d of %d bytes", n, len(body))
		}
		c.CloseNow()
	}
}

// transferPair is a reference Core with one device whose Environment preparation is a big file.
type transferPair struct {
	core *core.Core
	url  string
	env  string
	keys int // operations asked so far: every request gets a fresh key, across -count runs too
}

func (p *transferPair) key() string { p.keys++; return fmt.Sprint("op-", p.keys) }

const (
	transferDevice     = "bench"
	transferCredential = "bench-credential"
)

func startTransferPair(b *testing.B, body []byte) *transferPair {
	dir := b.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	c, err := core.Open(core.Config{DataFile: filepath.Join(dir, "core.db"), PublicURL: base, Clock: clock.Real()})
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: c.Handler()}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { _ = c.Close(); _ = srv.Close() })
	p := &transferPair{core: c, url: base + proto.APIPrefix, env: "7f1c2a52-8b0e-4c3e-9a51-3d2f6e8b9c10"}
	if err := c.AddDevice(transferDevice, transferCredential); err != nil {
		b.Fatal(err)
	}
	prep := &store.Preparation{EnvironmentID: p.env, SessionID: "3b2d8a40-1f6c-4e9b-8c27-5a4e0d9f1b63",
		Operations: []store.PreparationOperation{{Action: "file", File: &proto.PreparedFile{Path: "/workspace/big.bin"}, Content: body}}}
	if err := c.SetPreparation(transferDevice, prep); err != nil {
		b.Fatal(err)
	}
	return p
}

// runningDaemon is a reference daemon in process on the wall clock, with its own Environment.
type runningDaemon struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (d runningDaemon) stop() { d.cancel(); <-d.done }

// connect starts a daemon and returns once Core has run the connection's preparation to completed.
func (p *transferPair) connect(b *testing.B) runningDaemon {
	before := p.lastRun(b)
	root, err := os.MkdirTemp("", "wirecheck-bench-env-")
	if err != nil {
		b.Fatal(err)
	}
	real := clock.Real()
	dm, err := daemon.New(daemon.Config{ServerURL: p.url, DeviceID: transferDevice, Credential: transferCredential, Clock: real,
		EnvironmentRoot: root, Harnesses: []harness.Harness{contract.New(real, daemon.ContractCapabilities())}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := runningDaemon{cancel: cancel, done: make(chan struct{})}
	go func() { defer close(d.done); defer os.RemoveAll(root); _ = dm.Run(ctx) }()
	deadline := time.After(2 * time.Minute)
	for {
		changed := p.core.Changed()
		// the results alone: the preparation itself holds the 50 MiB body
		// A new run is one the latest result names that was not the latest before: Core keeps only
		// its PreparationResultsKept latest, so counting them stops at 16.
		if rs, err := p.core.Store().PreparationResults(transferDevice); err == nil && len(rs) > 0 && rs[len(rs)-1].RunID != before &&
			rs[len(rs)-1].State != store.PreparationRunning {
			if last := rs[len(rs)-1]; last.State != store.PreparationCompleted {
				d.stop()
				b.Fatalf("the preparation ended %s: %+v", last.State, last)
			}
			return d
		}
		select {
		case <-changed:
		case <-deadline:
			d.stop()
			b.Fatal("the preparation did not complete within 2 minutes")
		}
	}
}

// lastRun is the run ID of the device's latest preparation result ("" before any).
func (p *transferPair) lastRun(b *testing.B) string {
	rs, err := p.core.Store().PreparationResults(transferDevice)
	if err != nil {
		b.Fatal(err)
	}
	if len(rs) == 0 {
		return ""
	}
	return rs[len(rs)-1].RunID
}

// finishedTurn runs one self-hosted Turn on the Environment to its end: its workspace is what
// writes and exports address.
func (p *transferPair) finishedTurn(b *testing.B) string {
	t, err := p.core.StartTurn(execution.StartRequest{DeviceID: transferDevice, Environment: store.EnvironmentSelfHosted,
		Configuration: proto.PromptRequestPayload{AgentKind: "contract",
			// not kept idle: an idle Executor would hold the workspace against writes
			AgentOptions:     json.RawMessage(`{"contract":{"reusable":false}}`),
			LocalEnvironment: &proto.LocalEnvironment{ID: p.env, WorkspaceDirectory: "/workspace"}},
		Input: proto.TextInput("hi")})
	if err != nil {
		b.Fatal(err)
	}
	p.await(b, func() bool {
		tr, err := p.core.Turn(t.ID)
		return err == nil && tr.Outcome != nil
	})
	tr, _ := p.core.Turn(t.ID)
	if tr.Outcome.Status != "completed" {
		b.Fatalf("the Turn ended %+v", *tr.Outcome)
	}
	return t.ID
}

// workspace runs one workspace operation through Core's API to its end.
func (p *transferPair) workspace(b *testing.B, req execution.WorkspaceRequest) *store.WorkspaceOp {
	op, err := p.core.Workspace(req)
	if err != nil {
		b.Fatal(err)
	}
	var done *store.WorkspaceOp
	p.await(b, func() bool {
		// The listing leaves the data out: reading an export's archive back on every change
		// would be the benchmark's own cost.
		ops, err := p.core.WorkspaceOps(req.TurnID)
		for _, o := range ops {
			if err == nil && o.ID == op.ID && o.State != store.WorkspacePending {
				done = o
			}
		}
		return done != nil
	})
	if done.State != "completed" {
		b.Fatalf("the %s ended %s %s %s", req.Kind, done.State, done.ErrorCode, done.Detail)
	}
	return done
}

// await waits, on Core's change notifications, until cond holds.
func (p *transferPair) await(b *testing.B, cond func() bool) {
	deadline := time.After(2 * time.Minute)
	for {
		changed := p.core.Changed()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			b.Fatal("gave up after 2 minutes")
		}
	}
}
