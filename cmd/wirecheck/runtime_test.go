package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// wait bounds every wait of these tests; nothing sleeps.
const wait = 10 * time.Second

// fakeCore serves bootstrap and the WebSocket for one device, refusing where a test says so.
type fakeCore struct {
	credential string
	bootRefuse string // an HTTP error code bootstrap answers with; "" accepts
	dialRefuse string // an HTTP error code the upgrade answers with; "" accepts
	srv        *httptest.Server
	boots      atomic.Int32
	dials      atomic.Int32
	conns      chan *websocket.Conn
}

func newFakeCore(t *testing.T, credential string) *fakeCore {
	c := &fakeCore{credential: credential, conns: make(chan *websocket.Conn, 4)}
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, c.bootstrap)
	mux.HandleFunc(proto.RouteWebSocket, c.websocket)
	c.srv = httptest.NewServer(mux)
	t.Cleanup(c.srv.Close)
	return c
}

func (c *fakeCore) url() string { return c.srv.URL + proto.APIPrefix }

func refuse(w http.ResponseWriter, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(proto.HTTPStatusFor(code))
	_ = json.NewEncoder(w).Encode(proto.HTTPError{Error: code, Detail: detail})
}

func (c *fakeCore) authorized(r *http.Request) bool {
	return r.Header.Get("Authorization") == "Bearer "+c.credential
}

func (c *fakeCore) bootstrap(w http.ResponseWriter, r *http.Request) {
	c.boots.Add(1)
	switch {
	case c.bootRefuse != "":
		refuse(w, c.bootRefuse, "refused by the test")
	case !c.authorized(r):
		refuse(w, proto.HTTPBadCredential, "the credential does not match")
	default:
		_ = json.NewEncoder(w).Encode(proto.BootstrapResponse{DeviceID: "device-1", WorkspaceID: "w",
			WSURL: "ws" + strings.TrimPrefix(c.srv.URL, "http") + proto.RouteWebSocket, HeartbeatSeconds: 15, ProtocolVersion: proto.Version})
	}
}

func (c *fakeCore) websocket(w http.ResponseWriter, r *http.Request) {
	c.dials.Add(1)
	switch {
	case c.dialRefuse != "":
		refuse(w, c.dialRefuse, "this Core speaks wire version 9.9.9\nand says so on two lines")
		return
	case !c.authorized(r) || r.URL.Query().Get(proto.QueryVersion) != proto.Version:
		refuse(w, proto.HTTPBadCredential, "refused")
		return
	}
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	c.conns <- ws
}

// child is `wirecheck` running as its own process (this test binary re-executing main).
type child struct {
	cmd      *exec.Cmd
	out      lockedBuffer // stdout and stderr, interleaved
	stdout   lockedBuffer
	done     chan struct{}
	exitCode int
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startChild runs `wirecheck args...` with exactly env (plus the re-exec marker), in its own process
// group; the test's cleanup kills the group if the child is still running.
func startChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	c := &child{done: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], args...)
	c.cmd.Env = append([]string{reexecMain + "=1"}, env...)
	c.cmd.Stdout = &multi{&c.out, &c.stdout}
	c.cmd.Stderr = &c.out
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.done)
		_ = c.cmd.Wait()
		c.exitCode = c.cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			<-c.done
		}
	})
	return c
}

type multi struct{ a, b *lockedBuffer }

func (m *multi) Write(p []byte) (int, error) { _, _ = m.a.Write(p); return m.b.Write(p) }

// exit waits for the child to exit and returns its exit code.
func (c *child) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-c.done:
		return c.exitCode
	case <-time.After(wait):
		t.Fatalf("wirecheck runtime did not exit within %v; output:\n%s", wait, c.out.String())
		return -1
	}
}

// lastLine is the last non-empty line of the child's output.
func (c *child) lastLine() string {
	lines := strings.Split(strings.TrimSpace(c.out.String()), "\n")
	return lines[len(lines)-1]
}

func secret(t *testing.T) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "wc-credential-" + hex.EncodeToString(b)
}

// noCredential fails the test if any credential value appears in the child's stdout or stderr.
func noCredential(t *testing.T, c *child, values ...string) {
	t.Helper()
	out := c.out.String()
	for _, v := range values {
		if v != "" && strings.Contains(out, v) {
			t.Errorf("the credential %q appears in the process's output:\n%s", v, out)
		}
	}
}

func runtimeArgs(core *fakeCore, extra ...string) []string {
	return append([]string{"runtime", "--server", core.url(), "--device", "device-1"}, extra...)
}

func TestRuntimeExitCodesOnPermanentRefusals(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		bootRefuse, dialRefuse string
		wrongCredential        bool
		code                   int
		reason                 string
		boots, dials           int32
	}{
		{name: "426 incompatible_version", dialRefuse: proto.HTTPIncompatibleVersion, code: exitIncompatible,
			reason: "wirecheck: dial refused: 426 incompatible_version (this Core speaks wire version 9.9.9 and says so on two lines)", boots: 1, dials: 1},
		{name: "401 bad_credential", wrongCredential: true, code: exitRefused,
			reason: "wirecheck: bootstrap refused: 401 bad_credential (the credential does not match)", boots: 1},
		{name: "403 wrong_runtime_type", bootRefuse: proto.HTTPWrongRuntimeType, code: exitRefused,
			reason: "wirecheck: bootstrap refused: 403 wrong_runtime_type (refused by the test)", boots: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cred := secret(t)
			core := newFakeCore(t, cred)
			core.bootRefuse, core.dialRefuse = tc.bootRefuse, tc.dialRefuse
			presented := cred
			if tc.wrongCredential {
				presented = secret(t)
			}
			c := startChild(t, []string{"WIRECHECK_CREDENTIAL=" + presented}, runtimeArgs(core, "--log-level", "debug")...)
			if got := c.exit(t); got != tc.code {
				t.Fatalf("exit code %d, want %d; output:\n%s", got, tc.code, c.out.String())
			}
			if got := c.lastLine(); got != tc.reason {
				t.Errorf("last line of stderr:\n  %s\nwant\n  %s", got, tc.reason)
			}
			if got := core.boots.Load(); got != tc.boots {
				t.Errorf("%d bootstrap attempts, want %d: a permanent refusal stops after exactly one attempt", got, tc.boots)
			}
			if got := core.dials.Load(); got != tc.dials {
				t.Errorf("%d dial attempts, want %d", got, tc.dials)
			}
			if c.stdout.String() != "" {
				t.Errorf("stdout is not empty:\n%s", c.stdout.String())
			}
			noCredential(t, c, cred, presented)
		})
	}
}

func TestRuntimeExitsTwoWhenRetiredBy4001(t *testing.T) {
	cred := secret(t)
	core := newFakeCore(t, cred)
	c := startChild(t, []string{"WIRECHECK_CREDENTIAL=" + cred}, runtimeArgs(core)...)
	ws := accept(t, core, c)
	firstHeartbeat(t, ws)
	_ = ws.Close(websocket.StatusCode(proto.CloseRuntimeDeleted), "runtime retired")
	if got := c.exit(t); got != exitRefused {
		t.Fatalf("exit code %d, want %d; output:\n%s", got, exitRefused, c.out.String())
	}
	if got, want := c.lastLine(), "wirecheck: core retired this runtime (4001): runtime retired"; got != want {
		t.Errorf("last line %q, want %q", got, want)
	}
	if got := core.dials.Load(); got != 1 {
		t.Errorf("%d dial attempts after a 4001 close, want 1", got)
	}
	noCredential(t, c, cred)
}

func TestRuntimeCredentialComesOnlyFromTheEnvironment(t *testing.T) {
	core := newFakeCore(t, "unused")
	t.Run("empty variable", func(t *testing.T) {
		c := startChild(t, nil, runtimeArgs(core)...)
		if got := c.exit(t); got != 1 {
			t.Fatalf("exit code %d, want 1; output:\n%s", got, c.out.String())
		}
		if !strings.Contains(c.lastLine(), "$WIRECHECK_CREDENTIAL") {
			t.Errorf("the reason does not name the variable: %q", c.lastLine())
		}
		if core.boots.Load() != 0 {
			t.Error("the daemon tried to connect without a credential")
		}
	})
	t.Run("no flag takes a credential value", func(t *testing.T) {
		c := startChild(t, []string{"WIRECHECK_CREDENTIAL=x"}, runtimeArgs(core, "--credential", "x")...)
		if got := c.exit(t); got != 1 {
			t.Fatalf("exit code %d, want 1 (unknown flag); output:\n%s", got, c.out.String())
		}
	})
}

// TestRuntimeSIGTERMSettlesNativeWork: a Turn is running when SIGTERM arrives; the daemon closes the
// transport, lets the Turn's native cancellation settle (300 ms on the wall clock), closes its
// Executor and exits 0. The credential comes from a renamed variable and never reaches the output,
// even at debug level.
func TestRuntimeSIGTERMSettlesNativeWork(t *testing.T) {
	cred := secret(t)
	core := newFakeCore(t, cred)
	c := startChild(t, []string{"MY_DAEMON_CREDENTIAL=" + cred},
		runtimeArgs(core, "--credential-env", "MY_DAEMON_CREDENTIAL", "--log-level", "debug")...)
	ws := accept(t, core, c)
	hb := firstHeartbeat(t, ws)
	if k := hb.Kind("contract"); k == nil || !k.Available || k.Capabilities == nil {
		t.Fatalf("the first heartbeat does not advertise an available contract kind: %+v", hb)
	}
	frames := reader(t, ws)

	const settle = 300 * time.Millisecond
	send(t, ws, proto.TypeExecutionPrepare, "prepare-1", map[string]any{
		"session_id": "s1",
		"configuration": map[string]any{
			"agent_kind": "contract", "agent_state_key": "agents-api-s1", "strict_resume": true, "disable_execution_environment": true,
			"agent_options": map[string]any{"contract": map[string]any{
				"turn":   map[string]any{"events": []any{map[string]any{"delta": "hi"}}, "wait_for_cancel": true},
				"cancel": map[string]any{"settle_ms": settle.Milliseconds(), "outcome": map[string]any{"content": "partial"}},
			}},
		},
	})
	preparing := expectStatus(t, frames, proto.StatePreparing)
	expectStatus(t, frames, proto.StateReady)
	send(t, ws, proto.TypeExecutionStart, "prepare-1", map[string]any{
		"executor_id": preparing.ExecutorID, "handle": preparing.Handle, "run_id": "run-1",
		"input": []any{map[string]any{"content": []any{map[string]any{"type": "input_text", "text": "hello"}}}},
	})
	for seen := map[string]bool{}; !seen[proto.TypeDelta] || !seen[proto.StateStarted]; {
		env := next(t, frames)
		seen[env.Type] = true
		if env.Type == proto.TypePreparationStatus {
			var s proto.PreparationStatusPayload
			_ = json.Unmarshal(env.Payload, &s)
			seen[s.State] = true
		}
	}

	signalled := time.Now()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The transport closes normally; nothing is invented for the running Turn.
	for {
		env, err := nextOrClose(t, frames)
		if err != nil {
			if got := websocket.CloseStatus(err); got != websocket.StatusNormalClosure {
				t.Fatalf("the transport ended with %v, want a normal close", err)
			}
			break
		}
		if env.Type != proto.TypeHeartbeat {
			t.Fatalf("after SIGTERM the daemon sent %s; it may only close the transport", env.Type)
		}
	}
	if got := c.exit(t); got != 0 {
		t.Fatalf("exit code %d after SIGTERM, want 0; output:\n%s", got, c.out.String())
	}
	if took := time.Since(signalled); took < settle {
		t.Errorf("the daemon exited %v after SIGTERM, before the Turn's native cancellation (%v) could settle", took, settle)
	}
	if !strings.Contains(c.out.String(), "native work settled and every Executor closed") {
		t.Errorf("no settlement line in the log:\n%s", c.out.String())
	}
	if c.stdout.String() != "" {
		t.Errorf("stdout is not empty (logs go to stderr):\n%s", c.stdout.String())
	}
	noCredential(t, c, cred)
}

func accept(t *testing.T, core *fakeCore, c *child) *websocket.Conn {
	t.Helper()
	select {
	case ws := <-core.conns:
		t.Cleanup(func() { _ = ws.CloseNow() })
		return ws
	case <-c.done:
		t.Fatalf("wirecheck runtime exited (%d) before connecting:\n%s", c.exitCode, c.out.String())
	case <-time.After(wait):
		t.Fatalf("wirecheck runtime did not connect within %v:\n%s", wait, c.out.String())
	}
	return nil
}

func firstHeartbeat(t *testing.T, ws *websocket.Conn) *proto.HeartbeatPayload {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	_, data, err := ws.Read(ctx)
	if err != nil {
		t.Fatalf("no first frame: %v", err)
	}
	f, err := proto.ParseFrame(data)
	if err != nil || f.Type != proto.TypeHeartbeat {
		t.Fatalf("the first frame is not a valid heartbeat (%v): %s", err, data)
	}
	return f.Payload.(*proto.HeartbeatPayload)
}

type inbound struct {
	env proto.Envelope
	err error
}

// reader reads ws until it ends; the last item carries the error that ended it.
func reader(t *testing.T, ws *websocket.Conn) <-chan inbound {
	ch := make(chan inbound, 64)
	done := make(chan struct{})
	t.Cleanup(func() { _ = ws.CloseNow(); <-done })
	go func() {
		defer close(done)
		defer close(ch)
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				ch <- inbound{err: err}
				return
			}
			env, err := proto.DecodeEnvelope(data)
			if err != nil {
				ch <- inbound{err: err}
				return
			}
			ch <- inbound{env: env}
		}
	}()
	return ch
}

func nextOrClose(t *testing.T, frames <-chan inbound) (proto.Envelope, error) {
	t.Helper()
	select {
	case in, ok := <-frames:
		if !ok {
			return proto.Envelope{}, errors.New("the reader stopped")
		}
		return in.env, in.err
	case <-time.After(wait):
		t.Fatalf("nothing arrived within %v", wait)
	}
	return proto.Envelope{}, nil
}

// next returns the next frame that is not a heartbeat.
func next(t *testing.T, frames <-chan inbound) proto.Envelope {
	t.Helper()
	for {
		env, err := nextOrClose(t, frames)
		if err != nil {
			t.Fatalf("the transport ended: %v", err)
		}
		if env.Type != proto.TypeHeartbeat {
			return env
		}
	}
}

func expectStatus(t *testing.T, frames <-chan inbound, state string) proto.PreparationStatusPayload {
	t.Helper()
	env := next(t, frames)
	var s proto.PreparationStatusPayload
	if env.Type == proto.TypePreparationStatus {
		_ = json.Unmarshal(env.Payload, &s)
	}
	if s.State != state {
		t.Fatalf("got %s %s, want preparation_status %s", env.Type, env.Payload, state)
	}
	return s
}

func send(t *testing.T, ws *websocket.Conn, typ, id string, payload any) {
	t.Helper()
	env, err := proto.NewEnvelope(typ, id, payload)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := env.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, data); err != nil {
		t.Fatalf("writing %s: %v", typ, err)
	}
}
