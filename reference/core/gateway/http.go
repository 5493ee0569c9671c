package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
)

// writeError answers with the shared error body of §1.2. detail never carries a credential.
func writeError(w http.ResponseWriter, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(proto.HTTPStatusFor(code))
	_ = json.NewEncoder(w).Encode(proto.HTTPError{Error: code, Detail: detail})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// bearer extracts the Bearer credential of the Authorization header.
func bearer(r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	token = strings.TrimSpace(token)
	return token, ok && token != ""
}

// credentialInURL reports a credential carried in the URL: a credential is never accepted there,
// even beside a valid header.
func credentialInURL(r *http.Request, credential string) bool {
	for key, vals := range r.URL.Query() {
		switch strings.ToLower(key) {
		case "token", "credential", "access_token", "bearer", "authorization":
			return true
		}
		for _, v := range vals {
			if credential != "" && v == credential {
				return true
			}
		}
	}
	return false
}

// authenticate applies the credential rules and answers the error itself when they fail.
func (g *Gateway) authenticate(w http.ResponseWriter, r *http.Request, deviceID string) (string, bool) {
	cred, ok := bearer(r)
	if credentialInURL(r, cred) {
		writeError(w, proto.HTTPBadCredential, "a credential must never appear in the URL")
		return "", false
	}
	if !ok {
		writeError(w, proto.HTTPMissingBearer, "Authorization: Bearer <credential> is required")
		return "", false
	}
	ws, err := g.cfg.Auth.Authenticate(deviceID, cred)
	switch {
	case err == nil:
		return ws, true
	case errors.Is(err, ErrUnknownDevice):
		writeError(w, proto.HTTPUnknownDevice, "unknown device")
	case errors.Is(err, ErrBadCredential):
		writeError(w, proto.HTTPBadCredential, "the credential does not match the device")
	case errors.Is(err, ErrWrongRuntime):
		writeError(w, proto.HTTPWrongRuntimeType, "the credential is not an agent-daemon runtime credential")
	default:
		g.log.Error("authentication failed", "device_id", deviceID, "error", err)
		writeError(w, proto.HTTPInternal, "internal error")
	}
	return "", false
}

func (g *Gateway) bootstrap(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		writeError(w, proto.HTTPMethodNotAllowed, "bootstrap is POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	var req proto.BootstrapRequest
	if err != nil || json.Unmarshal(body, &req) != nil {
		writeError(w, proto.HTTPBadJSON, `the body must be {"device_id": "..."}`)
		return
	}
	if strings.TrimSpace(req.DeviceID) == "" {
		writeError(w, proto.HTTPMissingDeviceID, "device_id is required")
		return
	}
	workspace, ok := g.authenticate(w, r, req.DeviceID)
	if !ok {
		return
	}
	writeJSON(w, proto.BootstrapResponse{DeviceID: req.DeviceID, WorkspaceID: workspace, WSURL: g.wsURL,
		HeartbeatSeconds: g.cfg.HeartbeatSeconds, ProtocolVersion: proto.Version})
}

func (g *Gateway) deviceStatus(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeError(w, proto.HTTPMethodNotAllowed, "device-status is GET")
		return
	}
	id := r.URL.Query().Get(proto.QueryDeviceID)
	if strings.TrimSpace(id) == "" {
		writeError(w, proto.HTTPMissingDeviceID, "device_id is required")
		return
	}
	if _, ok := g.authenticate(w, r, id); !ok {
		return
	}
	writeJSON(w, proto.DeviceStatusResponse{DeviceID: id, Online: g.Session(id) != nil})
}

func (g *Gateway) websocket(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	deviceID := q.Get(proto.QueryDeviceID)
	if deviceID == "" || !q.Has(proto.QueryVersion) || r.Header.Get("Authorization") == "" {
		writeError(w, proto.HTTPMissingParams, "device_id, version and the Bearer header are required")
		return
	}
	// The version is checked before authentication and before anything is registered.
	if !proto.VersionCompatible(q.Get(proto.QueryVersion)) {
		writeError(w, proto.HTTPIncompatibleVersion, "this Core speaks wire version "+proto.Version+" only")
		return
	}
	if _, ok := g.authenticate(w, r, deviceID); !ok {
		return
	}
	// The liveness timer starts before the upgrade completes, so no virtual time can pass unseen
	// between the daemon's dial returning and the timer existing.
	live := g.cfg.Clock.NewTimer(proto.LivenessTimeout)
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		live.Stop()
		g.log.Warn("websocket upgrade failed", "device_id", deviceID, "error", err)
		return
	}
	g.accept(ws, deviceID, live)
}
