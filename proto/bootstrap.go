package proto

import "net/http"

// HTTP routes, all under /api/v1.
const (
	APIPrefix         = "/api/v1"
	RouteBootstrap    = "/api/v1/agent-daemon/bootstrap"
	RouteDeviceStatus = "/api/v1/agent-daemon/device-status"
	RouteWebSocket    = "/api/v1/agent-daemon/ws"

	QueryDeviceID = "device_id"
	QueryVersion  = "version"
)

// Close codes.
const (
	CloseNormal         = 1000
	CloseGoingAway      = 1001
	CloseRuntimeDeleted = 4001 // Core retired the runtime; the daemon stops for good
)

// BootstrapRequest is the body of POST /agent-daemon/bootstrap.
type BootstrapRequest struct {
	DeviceID string `json:"device_id" wire:"req"`
}

func (r *BootstrapRequest) Validate() error { return nonBlank("device_id", r.DeviceID) }

// BootstrapResponse tells the daemon where and how to connect.
type BootstrapResponse struct {
	DeviceID         string `json:"device_id" wire:"req"`
	WorkspaceID      string `json:"workspace_id" wire:"req"`
	WSURL            string `json:"ws_url" wire:"req"`
	HeartbeatSeconds int    `json:"heartbeat_seconds" wire:"req"`
	ProtocolVersion  string `json:"protocol_version" wire:"req"`
}

func (r *BootstrapResponse) Validate() error {
	if r.DeviceID == "" {
		return violation("device_id", "must not be empty")
	}
	if len(r.WSURL) < 5 || (r.WSURL[:5] != "ws://" && (len(r.WSURL) < 6 || r.WSURL[:6] != "wss://")) {
		return violation("ws_url", "must be an absolute ws:// or wss:// URL")
	}
	return nil
}

// DeviceStatusResponse answers GET /agent-daemon/device-status.
type DeviceStatusResponse struct {
	DeviceID string `json:"device_id" wire:"req"`
	Online   bool   `json:"online" wire:"req"`
}

// HTTPError is the error body shared by bootstrap, device-status and the WebSocket upgrade.
type HTTPError struct {
	Error  string `json:"error" wire:"req"`
	Detail string `json:"detail" wire:"opt"`
}

// HTTP error codes.
const (
	HTTPMissingParams       = "missing_params"
	HTTPMissingDeviceID     = "missing_device_id"
	HTTPBadJSON             = "bad_json"
	HTTPMissingBearer       = "missing_bearer"
	HTTPUnknownDevice       = "unknown_device"
	HTTPBadCredential       = "bad_credential"
	HTTPWrongRuntimeType    = "wrong_runtime_type"
	HTTPMethodNotAllowed    = "method_not_allowed"
	HTTPIncompatibleVersion = "incompatible_version"
	HTTPInternal            = "internal"
)

var httpStatuses = map[string]int{
	HTTPMissingParams:       http.StatusBadRequest,
	HTTPMissingDeviceID:     http.StatusBadRequest,
	HTTPBadJSON:             http.StatusBadRequest,
	HTTPMissingBearer:       http.StatusUnauthorized,
	HTTPUnknownDevice:       http.StatusUnauthorized,
	HTTPBadCredential:       http.StatusUnauthorized,
	HTTPWrongRuntimeType:    http.StatusForbidden,
	HTTPMethodNotAllowed:    http.StatusMethodNotAllowed,
	HTTPIncompatibleVersion: http.StatusUpgradeRequired,
	HTTPInternal:            http.StatusInternalServerError,
}

// HTTPStatusFor returns the HTTP status of an error code, or 0 for an unlisted code.
func HTTPStatusFor(code string) int { return httpStatuses[code] }

// KnownHTTPError reports whether code is a listed HTTP error code.
func KnownHTTPError(code string) bool { _, ok := httpStatuses[code]; return ok }

// PermanentHTTPStatus reports whether a failed dial with this status must stop the daemon after
// exactly one attempt: 401, 403 and 426 need operator correction; anything else is transient.
func PermanentHTTPStatus(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusUpgradeRequired
}
