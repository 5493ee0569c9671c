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
package main

import (
	"context"
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
	case "hang-after-ready", "garbage", "flood":
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
	hb := proto.MustEnvelope(proto.TypeHeartbeat, "", &proto.HeartbeatPayload{TS: time.Now().Unix(), DaemonVersion: "misbehave-" + mode,
		SupportedAgentKinds: []proto.SupportedAgentKind{{Kind: "contract", Available: true, Capabilities: &caps}}})
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
