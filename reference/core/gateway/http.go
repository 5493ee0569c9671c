package gateway

import (
	"net/http"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/transport"
)

// reject answers a request that failed one of transport.Rules; an Authenticator failure is logged
// here, since the answer says only "internal".
func (g *Gateway) reject(w http.ResponseWriter, rej *transport.Rejection) {
	if rej.Err != nil {
		g.log.Error("authentication failed", "check", rej.Check, "error", rej.Err)
	}
	rej.Write(w)
}

func (g *Gateway) bootstrap(w http.ResponseWriter, r *http.Request) {
	dev, rej := g.rules.CheckBootstrap(r)
	if rej != nil {
		g.reject(w, rej)
		return
	}
	transport.WriteJSON(w, proto.BootstrapResponse{DeviceID: dev.ID, WorkspaceID: dev.WorkspaceID, WSURL: g.wsURL,
		HeartbeatSeconds: g.cfg.HeartbeatSeconds, ProtocolVersion: proto.Version})
}

func (g *Gateway) deviceStatus(w http.ResponseWriter, r *http.Request) {
	dev, rej := g.rules.CheckDeviceStatus(r)
	if rej != nil {
		g.reject(w, rej)
		return
	}
	transport.WriteJSON(w, proto.DeviceStatusResponse{DeviceID: dev.ID, Online: g.Session(dev.ID) != nil})
}

func (g *Gateway) websocket(w http.ResponseWriter, r *http.Request) {
	dev, rej := g.rules.CheckUpgrade(r)
	if rej != nil {
		g.reject(w, rej)
		return
	}
	// The liveness timer starts before the upgrade completes, so no virtual time can pass unseen
	// between the daemon's dial returning and the timer existing.
	live := g.cfg.Clock.NewTimer(proto.LivenessTimeout)
	ws, err := transport.Accept(w, r)
	if err != nil {
		live.Stop()
		g.log.Warn("websocket upgrade failed", "device_id", dev.ID, "error", err)
		return
	}
	g.accept(ws, dev.ID, live)
}
