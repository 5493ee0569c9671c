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
//	legacy            an older daemon of this protocol family: its credential as token= in the URLs
//	                  and no Authorization header, wire version 0.2.0, a declaration of 4 capability
//	                  members; it exits on any answer it cannot use (code 3 on 426, 2 on another
//	                  refusal, 1 on an unusable bootstrap answer), and once connected behaves as
//	                  hang-after-ready. --fix bearer,url,version,capabilities repairs those one at a
//	                  time, the way its authors would, to show the next cause each time.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
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
	fix := flag.String("fix", "", "legacy: what is repaired (bearer, url, version, capabilities; comma-separated)")
	flag.Parse()
	fixes = map[string]bool{}
	for f := range strings.SplitSeq(*fix, ",") {
		if f = strings.TrimSpace(f); f != "" {
			fixes[f] = true
		}
	}
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
	case "legacy":
		ws, err := legacyConnect(ctx, server, device, cred)
		if err != nil {
			return err
		}
		defer ws.CloseNow()
		return serve(ctx, ws, mode)
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
	if mode == "legacy" && !fixes["capabilities"] {
		if err := legacyHeartbeat(ctx, ws); err != nil {
			return err
		}
		return answer(ctx, ws, mode)
	}
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
	return answer(ctx, ws, mode)
}

// answer reads Core's requests and answers as the mode does: an execution_prepare with preparing
// and ready, nothing else.
func answer(ctx context.Context, ws *websocket.Conn, mode string) error {
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

// fixes are what --fix repaired of the legacy daemon.
var fixes map[string]bool

// legacyVersion is the wire version the legacy daemon speaks.
const legacyVersion = "0.2.0"

// legacyConnect bootstraps and upgrades as the older daemon does, minus what --fix repaired. An
// answer it cannot use ends the process, as that daemon's authors made it.
func legacyConnect(ctx context.Context, server, device, cred string) (*websocket.Conn, error) {
	header := http.Header{}
	if fixes["bearer"] {
		header.Set("Authorization", "Bearer "+cred)
	}
	withToken := func(raw string) (string, error) {
		u, err := url.Parse(raw)
		if err != nil || fixes["url"] {
			return raw, err
		}
		q := u.Query()
		q.Set("token", cred)
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	target, err := withToken(strings.TrimSuffix(server, "/") + strings.TrimPrefix(proto.RouteBootstrap, proto.APIPrefix))
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: device})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	var boot proto.BootstrapResponse
	if resp.StatusCode/100 != 2 || json.Unmarshal(data, &boot) != nil || boot.WSURL == "" {
		fmt.Fprintf(os.Stderr, "misbehave: bootstrap answered %d %s; giving up\n", resp.StatusCode, bytes.TrimSpace(data))
		os.Exit(1)
	}
	version := legacyVersion
	if fixes["version"] {
		version = proto.Version
	}
	u, err := url.Parse(boot.WSURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set(proto.QueryDeviceID, device)
	q.Set(proto.QueryVersion, version)
	u.RawQuery = q.Encode()
	wsURL, err := withToken(u.String())
	if err != nil {
		return nil, err
	}
	ws, resp, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		fmt.Fprintf(os.Stderr, "misbehave: upgrade refused (%d): %v; giving up\n", status, err)
		if status == http.StatusUpgradeRequired {
			os.Exit(3)
		}
		if status != 0 {
			os.Exit(2)
		}
		return nil, errors.Join(errors.New("upgrade"), err)
	}
	return ws, nil
}

// legacyHeartbeat is the older daemon's heartbeat: its declaration has the 4 capability members
// that version of the protocol knew.
func legacyHeartbeat(ctx context.Context, ws *websocket.Conn) error {
	payload, _ := json.Marshal(map[string]any{"ts": time.Now().Unix(), "active_requests": 0, "daemon_version": "misbehave-legacy",
		"supported_agent_kinds": []any{map[string]any{"kind": "contract", "available": true,
			"capabilities": map[string]bool{"preparation": true, "environment_none": true, "streaming": true, "usage": true}}}})
	frame, _ := json.Marshal(map[string]any{"type": proto.TypeHeartbeat, "payload": json.RawMessage(payload)})
	return ws.Write(ctx, websocket.MessageText, frame)
}
