package daemon_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// stubWait bounds every wait of the stub Core.
const stubWait = 10 * time.Second

// coreStub is a minimal Core: it serves bootstrap and the WebSocket on loopback, accepts one daemon
// and hands the test its frames (heartbeats filtered), each stamped with the time it was read.
type coreStub struct {
	tb     testing.TB
	ws     *websocket.Conn
	frames chan stubFrame
}

type stubFrame struct {
	env proto.Envelope
	at  time.Time
}

// startDaemon runs the reference daemon with the contract Harness on the wall clock against a
// fresh coreStub, and stops both when the test ends.
func startDaemon(tb testing.TB) *coreStub {
	tb.Helper()
	c := clock.Real()
	return startDaemonWith(tb, c, contract.New(c, daemon.ContractCapabilities()), 15)
}

// startDaemonWith runs the reference daemon with one Harness on clock c against a fresh coreStub
// that asks for a heartbeat every heartbeatSeconds.
func startDaemonWith(tb testing.TB, c clock.Clock, h harness.Harness, heartbeatSeconds int) *coreStub {
	tb.Helper()
	conns := make(chan *websocket.Conn, 1)
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc(proto.RouteBootstrap, func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(proto.BootstrapResponse{DeviceID: "bench", WorkspaceID: "w",
			WSURL: "ws" + strings.TrimPrefix(srv.URL, "http") + proto.RouteWebSocket, HeartbeatSeconds: heartbeatSeconds, ProtocolVersion: proto.Version})
	})
	mux.HandleFunc(proto.RouteWebSocket, func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err == nil {
			conns <- ws
		}
	})
	srv = httptest.NewServer(mux)

	d, err := daemon.New(daemon.Config{ServerURL: srv.URL + proto.APIPrefix, DeviceID: "bench", Credential: "bench-credential",
		Clock: c, Harnesses: []harness.Harness{h}})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = d.Run(ctx)
	}()

	s := &coreStub{tb: tb, frames: make(chan stubFrame, 1024)}
	select {
	case s.ws = <-conns:
	case <-time.After(stubWait):
		tb.Fatal("the daemon did not connect")
	}
	read := make(chan struct{})
	go s.read(read)
	tb.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(stubWait):
			buf := make([]byte, 1<<20)
			tb.Fatalf("the daemon did not stop within %v of its context ending; goroutines:\n%s", stubWait, buf[:goruntime.Stack(buf, true)])
		}
		_ = s.ws.CloseNow()
		<-read
		srv.Close()
	})
	return s
}

func (s *coreStub) read(done chan struct{}) {
	defer close(done)
	defer close(s.frames)
	for {
		_, data, err := s.ws.Read(context.Background())
		if err != nil {
			return
		}
		at := time.Now()
		env, err := proto.DecodeEnvelope(data)
		if err != nil || env.Type == proto.TypeHeartbeat {
			continue
		}
		s.frames <- stubFrame{env: env, at: at}
	}
}

func (s *coreStub) send(typ, id string, payload any) {
	env, err := proto.NewEnvelope(typ, id, payload)
	if err != nil {
		s.tb.Fatal(err)
	}
	data, _ := env.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), stubWait)
	defer cancel()
	if err := s.ws.Write(ctx, websocket.MessageText, data); err != nil {
		s.tb.Fatalf("writing %s: %v", typ, err)
	}
}

func (s *coreStub) next() stubFrame {
	select {
	case f, ok := <-s.frames:
		if !ok {
			s.tb.Fatal("the daemon closed the transport")
		}
		return f
	case <-time.After(stubWait):
		s.tb.Fatalf("nothing arrived within %v", stubWait)
	}
	return stubFrame{}
}

// status reads up to the next preparation_status of request id; frames of earlier requests and Runs
// (a started status may follow its Run's done: output races started) are skipped.
func (s *coreStub) status(id string) proto.PreparationStatusPayload {
	f := s.until("preparation_status of "+id, func(env proto.Envelope) bool {
		return env.Type == proto.TypePreparationStatus && env.ID == id
	})
	var p proto.PreparationStatusPayload
	if err := json.Unmarshal(f.env.Payload, &p); err != nil {
		s.tb.Fatalf("preparation_status %s: %v", f.env.Payload, err)
	}
	return p
}

// until reads frames up to and including the first one that satisfies ok.
func (s *coreStub) until(what string, ok func(proto.Envelope) bool) stubFrame {
	for range 64 {
		if f := s.next(); ok(f.env) {
			return f
		}
	}
	s.tb.Fatalf("no %s within 64 frames", what)
	return stubFrame{}
}

// prepare sends execution_prepare for session and waits for ready, retrying while the Session's
// Executor is still busy finishing the previous Turn. It returns the ready status.
func (s *coreStub) prepare(seq *int, session string, script map[string]any) proto.PreparationStatusPayload {
	cfg := map[string]any{
		"agent_kind": "contract", "agent_state_key": "agents-api-" + session, "strict_resume": true,
		"disable_execution_environment": true, "agent_options": map[string]any{"contract": script},
	}
	for range 1000 {
		*seq++
		id := fmt.Sprintf("prepare-%d", *seq)
		s.send(proto.TypeExecutionPrepare, id, map[string]any{"session_id": session, "configuration": cfg})
		st := s.status(id)
		if st.State == proto.StatePreparing {
			st = s.status(id)
		}
		switch {
		case st.State == proto.StateReady:
			return st
		case st.State == proto.StateRejected && st.ErrorCode == proto.CodeResourceUnavailable:
			continue // the previous Turn's done is out, its Executor is not idle yet
		}
		s.tb.Fatalf("execution_prepare answered %+v", st)
	}
	s.tb.Fatal("the Executor never became idle")
	return proto.PreparationStatusPayload{}
}

func isStatus(state string) func(proto.Envelope) bool {
	return func(env proto.Envelope) bool {
		var p proto.PreparationStatusPayload
		return env.Type == proto.TypePreparationStatus && json.Unmarshal(env.Payload, &p) == nil && p.State == state
	}
}

func isType(typ string) func(proto.Envelope) bool {
	return func(env proto.Envelope) bool { return env.Type == typ }
}

var helloInput = []any{map[string]any{"content": []any{map[string]any{"type": "input_text", "text": "hello"}}}}
