package gateway

import (
	"net/http"
	"net/url"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/transport"
)

// reject answers a request that failed one of transport.Rules; an Authenticator failure is logged
// here, since the answer says only "internal".
func (g *Gateway) reject(w http.ResponseWriter, rej *transport.Rejection) {
	if mutation.On(mutation.UnknownDeviceAsBadCredential) && rej.Code == proto.HTTPUnknownDevice {
		rej = transport.Reject(transport.CheckCredential, proto.HTTPBadCredential, "the credential does not match the device")
	}
	if rej.Err != nil {
		g.log.Error("authentication failed", "check", rej.Check, "error", rej.Err)
	}
	rej.Write(w)
}

func (g *Gateway) bootstrap(w http.ResponseWriter, r *http.Request) {
	dev, rej := g.rules.CheckBootstrap(r)
	if rej != nil {
		rej, dev = mutateBootstrap(g, r, rej, dev)
	}
	if rej != nil {
		if cnRefusal(w, rej, mutation.CNBootstrapRefusalCodeMember) {
			return
		}
		g.reject(w, rej)
		return
	}
	answer := proto.BootstrapResponse{DeviceID: dev.ID, WorkspaceID: dev.WorkspaceID, WSURL: g.wsURL,
		HeartbeatSeconds: g.cfg.HeartbeatSeconds, ProtocolVersion: proto.Version}
	if mutation.On(mutation.BootstrapAnswerWithoutWorkspace) {
		answer.WorkspaceID = ""
	}
	if cnBootstrapAnswer(w, answer) {
		return
	}
	transport.WriteJSON(w, answer)
}

func (g *Gateway) deviceStatus(w http.ResponseWriter, r *http.Request) {
	dev, rej := g.rules.CheckDeviceStatus(r)
	if rej != nil {
		g.reject(w, rej)
		return
	}
	s := g.Session(dev.ID)
	online := s != nil || mutation.On(mutation.DeviceStatusAlwaysOnline)
	transport.WriteJSON(w, cnDeviceStatus(s, proto.DeviceStatusResponse{DeviceID: dev.ID, Online: online}))
}

func (g *Gateway) websocket(w http.ResponseWriter, r *http.Request) {
	dev, rej := g.rules.CheckUpgrade(r)
	if rej != nil {
		rej, dev = mutateUpgrade(g, r, rej, dev)
	}
	if rej != nil {
		if cnRefusal(w, rej, mutation.CNUpgradeRefusalCodeMember) {
			return
		}
		g.reject(w, rej)
		return
	}
	// The liveness timer starts before the upgrade completes, so no virtual time can pass unseen
	// between the daemon's dial returning and the timer existing.
	live := g.cfg.Clock.NewTimer(livenessTimeout())
	ws, err := transport.Accept(w, r)
	if err != nil {
		live.Stop()
		g.log.Warn("websocket upgrade failed", "device_id", dev.ID, "error", err)
		return
	}
	g.accept(ws, dev.ID, live)
}

// mutateBootstrap is where the Core mutants of the bootstrap's own checks (CN) answer differently;
// outside the mutants build it returns the refusal as it is. (r's body is read by then: a re-check
// sees an empty one.)
func mutateBootstrap(g *Gateway, r *http.Request, rej *transport.Rejection, dev transport.Device) (*transport.Rejection, transport.Device) {
	switch {
	case mutation.On(mutation.BootstrapAnyMethod) && rej.Check == transport.CheckMethod:
		r2 := r.Clone(r.Context())
		r2.Method = http.MethodPost
		d, rj := g.rules.CheckBootstrap(r2)
		return rj, d
	case mutation.On(mutation.BadJSONAsMissingDevice) && rej.Check == transport.CheckBody:
		return transport.Reject(transport.CheckDeviceID, proto.HTTPMissingDeviceID, "device_id is required"), dev
	case mutation.On(mutation.BlankDeviceIDAuthenticated) && rej.Check == transport.CheckDeviceID:
		d, rj := g.rules.CheckDeviceStatus(withQuery(r, url.Values{proto.QueryDeviceID: {"-"}}))
		return rj, d
	}
	return cnMutateBootstrap(rej), dev
}

// withQuery is r as a GET with query q, for a mutant that re-judges a request as another route.
func withQuery(r *http.Request, q url.Values) *http.Request {
	r2 := r.Clone(r.Context())
	r2.Method = http.MethodGet
	r2.URL.RawQuery = q.Encode()
	return r2
}

// mutateUpgrade is where the Core mutants of the upgrade's checks (CN) answer differently; outside
// the mutants build it returns the refusal as it is.
func mutateUpgrade(g *Gateway, r *http.Request, rej *transport.Rejection, dev transport.Device) (*transport.Rejection, transport.Device) {
	if rj, d, ok := cnMutateUpgrade(g, r, rej); ok {
		return rj, d
	}
	switch {
	case mutation.On(mutation.IncompatibleVersionAccepted) && rej.Code == proto.HTTPIncompatibleVersion:
		q := r.URL.Query()
		q.Set(proto.QueryVersion, proto.Version)
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = q.Encode()
		d, rj := g.rules.CheckUpgrade(r2)
		return rj, d
	case mutation.On(mutation.VersionAfterAuthentication) && rej.Check == transport.CheckVersionMatch:
		q := r.URL.Query()
		q.Set(proto.QueryVersion, proto.Version)
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = q.Encode()
		if _, authRej := g.rules.CheckUpgrade(r2); authRej != nil {
			return authRej, dev
		}
		return rej, dev
	case mutation.On(mutation.MissingParamsAsMissingBearer) && rej.Code == proto.HTTPMissingParams && r.Header.Get("Authorization") == "":
		return transport.Reject(transport.CheckBearer, proto.HTTPMissingBearer, "Authorization: Bearer <credential> is required"), dev
	case mutation.On(mutation.CredentialInURLAccepted) && rej.Check == transport.CheckCredentialInURL:
		q := r.URL.Query()
		keep := url.Values{proto.QueryDeviceID: q[proto.QueryDeviceID], proto.QueryVersion: q[proto.QueryVersion]}
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = keep.Encode()
		d, rj := g.rules.CheckUpgrade(r2)
		return rj, d
	}
	return rej, dev
}
