package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/transport"
)

// The CN mutants of the daemon's own connection rules (scenarios/rules/clauses/CN.tsv). Every
// body is guarded by mutation.On, a constant false outside the wirecheck_mutants build.

// cnBootstrapOn reports whether a CN-44 mutant reads the bootstrap answer its own way.
func cnBootstrapOn() bool {
	return mutation.On(mutation.CNRtAnswerReadWhole) || mutation.On(mutation.CNRtNon2xxAnswerUsed) ||
		mutation.On(mutation.CNRtEmptyDeviceIDAnswerUsed)
}

// cnBootstrap is the bootstrap as a CN-44 mutant makes it: the request of transport.Client, its
// answer read and judged with one rule left out.
func (d *Daemon) cnBootstrap(ctx context.Context) (*proto.BootstrapResponse, error) {
	body, _ := json.Marshal(proto.BootstrapRequest{DeviceID: d.cfg.DeviceID})
	target := strings.TrimSuffix(d.cfg.ServerURL, "/") + strings.TrimPrefix(proto.RouteBootstrap, proto.APIPrefix)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+d.cfg.Credential)
	client := d.cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	limit := int64(proto.BootstrapResponseMaxBytes)
	if mutation.On(mutation.CNRtAnswerReadWhole) {
		limit = 1 << 30
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		var a proto.BootstrapResponse
		if mutation.On(mutation.CNRtNon2xxAnswerUsed) && json.Unmarshal(data, &a) == nil && a.WSURL != "" {
			return &a, nil
		}
		return nil, transport.DecodeRefusal(transport.StageBootstrap, resp.StatusCode, data)
	}
	if mutation.On(mutation.CNRtEmptyDeviceIDAnswerUsed) {
		var a proto.BootstrapResponse
		if json.Unmarshal(data, &a) == nil && a.DeviceID == "" && a.WSURL != "" {
			a.DeviceID = d.cfg.DeviceID
			return &a, nil
		}
	}
	return transport.DecodeBootstrapAnswer(data)
}

// cnNonJSONCloses: the CN-22.4 mutant closes the connection for a frame that is not JSON.
func cnNonJSONCloses(data []byte) bool {
	return mutation.On(mutation.CNRtNonJSONFrameCloses) && !json.Valid(data)
}

// cnHeartbeatInterval: the CN-24 mutants of the interval. ok false: none applies.
func cnHeartbeatInterval(boot *proto.BootstrapResponse) (time.Duration, bool) {
	switch {
	case mutation.On(mutation.CNRtNegativeHeartbeatAbsolute) && boot.HeartbeatSeconds < 0:
		return time.Duration(-boot.HeartbeatSeconds) * time.Second, true
	case mutation.On(mutation.CNRtNegativeHeartbeatNoRepeat) && boot.HeartbeatSeconds < 0:
		return 24 * time.Hour, true
	case mutation.On(mutation.CNRtZeroHeartbeat10s) && boot.HeartbeatSeconds == 0:
		return 10 * time.Second, true
	case mutation.On(mutation.CNRtHeartbeatSecondEarly) && boot.HeartbeatSeconds > 1:
		return time.Duration(boot.HeartbeatSeconds-1) * time.Second, true
	}
	return 0, false
}

// cnFrameFatal: the CN-22.5 and CN-22.6 mutants close the connection for a JSON value that is not
// an object, or for an envelope of a type the daemon does not know.
func cnFrameFatal(data []byte, env *proto.Envelope) bool {
	if env == nil {
		t := bytes.TrimSpace(data)
		return mutation.On(mutation.CNRtNonObjectFrameCloses) && json.Valid(t) && len(t) > 0 && t[0] != '{'
	}
	_, known := proto.Lookup(env.Type)
	return mutation.On(mutation.CNRtUnknownTypeCloses) && !known
}

// cnHandles holds, per daemon, the handles of its earlier connections (CN-34.1 mutant).
var cnHandles sync.Map

func cnRememberHandle(d *Daemon, conn uint64, handle string) {
	if mutation.On(mutation.CNRtEarlierHandleRemembered) {
		cnHandles.Store([2]any{d, handle}, conn)
	}
}

// cnHandleRemembered: handle was granted on a connection before conn.
func cnHandleRemembered(d *Daemon, conn uint64, handle string) bool {
	if !mutation.On(mutation.CNRtEarlierHandleRemembered) {
		return false
	}
	was, ok := cnHandles.Load([2]any{d, handle})
	return ok && was.(uint64) < conn
}

// cnOldRuns holds, per daemon, the Runs its latest lost connection had active (CN-52.4 mutant).
var cnOldRuns sync.Map

func cnKeepOldRuns(d *Daemon, n int) {
	if mutation.On(mutation.CNRtOldRunsCounted) {
		cnOldRuns.Store(d, n)
	}
}

func cnOldRunsActive(d *Daemon) int {
	if !mutation.On(mutation.CNRtOldRunsCounted) {
		return 0
	}
	n, _ := cnOldRuns.Load(d)
	i, _ := n.(int)
	return i
}

// cnReconnectHeartbeat bends the first heartbeat of a connection after a reconnect (CN-40.11).
func cnReconnectHeartbeat(conn uint64, first bool, p *proto.HeartbeatPayload) {
	if first && conn > 1 && mutation.On(mutation.CNRtReconnectHeartbeatKindless) {
		p.SupportedAgentKinds = nil
	}
}

// cnHeartbeatLate: after a reconnect, the first heartbeat waits a whole interval (CN-23.4).
func cnHeartbeatLate(conn uint64) bool {
	return conn > 1 && mutation.On(mutation.CNRtReconnectHeartbeatLate)
}
