// Command misbehave is a Runtime daemon that breaks the protocol on purpose, one way per --mode,
// so tests can show that `wirecheck certify` fails it with a clear reason, within a bounded time,
// and leaves no process behind.
//
//	exit              exits at once with code 7
//	silent            never connects; waits to be killed
//	hang-after-ready  connects and heartbeats, answers execution_prepare with preparing and ready,
//	                  then never answers again
//	garbage           connects and heartbeats, then answers every request with invalid JSON
//	flood             connects and heartbeats, then floods unsolicited delta frames
//	old-version       dials with wire version 0.10.0 and keeps retrying
//	no-contract       connects and heartbeats, but advertises only a kind of its own, never contract
//	half-capabilities connects and sends a heartbeat whose contract declaration omits every other
//	                  capability member
//	exit-in-handshake bootstraps, then exits with code 9 before the WebSocket upgrade
//	exit-mid-run      behaves as hang-after-ready, then exits with code 5 on execution_start
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

func main() {
	mode := flag.String("mode", "", "how to misbehave")
	server := flag.String("server", "", "Core base URL (ends in /api/v1)")
	device := flag.String("device", "", "device ID")
	flag.Parse()
	cred := os.Getenv("WIRECHECK_CREDENTIAL")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, *mode, *server, *device, cred); err != nil {
		fmt.Fprintln(os.Stderr, "misbehave:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, mode, server, device, cred string) error {
	switch mode {
	case "exit":
		os.Exit(7)
	case "silent":
		<-ctx.Done()
		return nil
	case "old-version":
		for ctx.Err() == nil {
			_, _ = connect(ctx, server, device, cred, "0.10.0")
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		return nil
	case "exit-in-handshake":
		var c transport.Client
		if _, err := c.Bootstrap(ctx, server, transport.Identity{DeviceID: device, Credential: cred, Version: proto.Version}); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "misbehave: giving up after bootstrap")
		os.Exit(9)
	case "half-capabilities":
		ws, err := connect(ctx, server, device, cred, proto.Version)
		if err != nil {
			return err
		}
		defer ws.CloseNow()
		return halfDeclared(ctx, ws)
	case "hang-after-ready", "garbage", "flood", "no-contract", "exit-mid-run":
		ws, err := connect(ctx, server, device, cred, proto.Version)
		if err != nil {
			return err
		}
		defer ws.CloseNow()
		return serve(ctx, ws, mode)
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// connect bootstraps and dials as every Runtime does; only the version it presents may be wrong.
func connect(ctx context.Context, server, device, cred, version string) (*websocket.Conn, error) {
	var c transport.Client
	id := transport.Identity{DeviceID: device, Credential: cred, Version: version}
	boot, err := c.Bootstrap(ctx, server, id)
	if err != nil {
		return nil, err
	}
	return c.Dial(ctx, boot.WSURL, id)
}

func send(ctx context.Context, ws *websocket.Conn, env proto.Envelope) error {
	data, _ := env.Encode()
	return ws.Write(ctx, websocket.MessageText, data)
}

func serve(ctx context.Context, ws *websocket.Conn, mode string) error {
	caps := proto.MustDeclareCapabilities("preparation", "environment_none", "streaming", "usage", "tool_observations", "execution_controls")
	kind := "contract"
	if mode == "no-contract" {
		kind = "misbehave-native"
	}
	hb := proto.MustEnvelope(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: time.Now().Unix(), DaemonVersion: "misbehave-" + mode,
		SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: kind, Available: true, Capabilities: &caps}}})
	if err := send(ctx, ws, hb); err != nil {
		return err
	}
	if mode == "flood" {
		for seq := uint64(1); ctx.Err() == nil; seq++ {
			if err := send(ctx, ws, proto.MustEnvelope(proto.TypeDelta, "flood", &proto.DeltaPayload{Delta: "x", Sequence: seq})); err != nil {
				return nil
			}
		}
		return nil
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return nil
		}
		env, err := proto.DecodeEnvelope(data)
		if err != nil {
			continue
		}
		switch {
		case mode == "exit-mid-run" && env.Type == proto.TypeExecutionStart:
			fmt.Fprintln(os.Stderr, "misbehave: crashing on execution_start")
			os.Exit(5)
		case mode == "garbage":
			_ = ws.Write(ctx, websocket.MessageText, []byte(`{"type":"preparation_status", "id": oops`))
		case env.Type == proto.TypeExecutionPrepare:
			expires := time.Now().Add(5 * time.Minute).UnixMilli() // fixed at grant: it is the one thing this mode gets right
			for rev, state := range []string{proto.StatePreparing, proto.StateReady} {
				_ = send(ctx, ws, proto.MustEnvelope(proto.TypePreparationStatus, env.ID, &proto.PreparationStatusPayload{
					ExecutorID: "executor-hang", Handle: "handle-hang", Revision: uint64(rev + 1), State: state, ExpiresAt: expires}))
			}
		}
		// hang-after-ready: every other request goes unanswered.
	}
}

// halfDeclared sends a heartbeat whose contract declaration has every other capability member
// left out, then waits: the whole list of what is missing must come back in one failure.
func halfDeclared(ctx context.Context, ws *websocket.Conn) error {
	caps := map[string]bool{}
	for i, name := range proto.CapabilityNames() {
		if i%2 == 0 {
			caps[name] = false
		}
	}
	payload, _ := json.Marshal(map[string]any{"ts": time.Now().Unix(), "active_requests": 0, "daemon_version": "misbehave-half",
		"supported_agent_kinds": []any{map[string]any{"kind": "contract", "available": true, "capabilities": caps}}})
	frame, _ := json.Marshal(map[string]any{"type": proto.TypeHeartbeat, "payload": json.RawMessage(payload)})
	if err := ws.Write(ctx, websocket.MessageText, frame); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
