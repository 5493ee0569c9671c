package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
)

// maxBootstrapBody bounds the bootstrap body a Core reads; a longer one is not JSON it accepts.
const maxBootstrapBody = 64 << 10

// Rules are the checks a Core applies to the three daemon routes before it answers, in this order
// (protocol-facts.md §1.2–§1.4); the first that fails is the answer:
//
//	bootstrap      method POST · body is JSON · device_id not blank · authentication
//	device-status  method GET · device_id not blank · authentication
//	upgrade        device_id, version and Authorization present (one 400 missing_params) ·
//	               version byte for byte Rules.Version (426, before authentication) · authentication
//
// Authentication is: no credential in the URL · a Bearer credential · the Authenticator's verdict
// (unknown device, wrong credential, wrong runtime type, or 500 internal for any other error).
type Rules struct {
	// Version is the only wire version the upgrade accepts; default proto.Version. The scripted
	// Core requires another one to reproduce a mismatch with a Runtime that presents proto.Version.
	Version string
	Auth    Authenticator
}

// Device is who a request that passed every check comes from.
type Device struct {
	ID          string
	WorkspaceID string
}

func (rules Rules) version() string {
	if rules.Version == "" {
		return proto.Version
	}
	return rules.Version
}

// compatible is the exact-match rule: proto.VersionCompatible, or equality with a shifted Version.
func (rules Rules) compatible(v string) bool {
	if rules.Version == "" {
		return proto.VersionCompatible(v)
	}
	return v == rules.Version
}

// CheckBootstrap applies the rules of POST /agent-daemon/bootstrap.
func (rules Rules) CheckBootstrap(r *http.Request) (Device, *Rejection) {
	if r.Method != http.MethodPost {
		return Device{}, Reject(CheckMethod, proto.HTTPMethodNotAllowed, "bootstrap is POST")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBootstrapBody))
	var req proto.BootstrapRequest
	if err != nil || json.Unmarshal(body, &req) != nil {
		return Device{}, Reject(CheckBody, proto.HTTPBadJSON, `the body must be {"device_id": "..."}`)
	}
	// Blank is missing: proto.BootstrapRequest.Validate says device_id must not be blank.
	if blank(req.DeviceID) {
		return Device{}, Reject(CheckDeviceID, proto.HTTPMissingDeviceID, "device_id is required")
	}
	return rules.authenticate(r, req.DeviceID)
}

// CheckDeviceStatus applies the rules of GET /agent-daemon/device-status.
func (rules Rules) CheckDeviceStatus(r *http.Request) (Device, *Rejection) {
	if r.Method != http.MethodGet {
		return Device{}, Reject(CheckMethod, proto.HTTPMethodNotAllowed, "device-status is GET")
	}
	id := r.URL.Query().Get(proto.QueryDeviceID)
	if blank(id) {
		return Device{}, Reject(CheckDeviceID, proto.HTTPMissingDeviceID, "device_id is required")
	}
	return rules.authenticate(r, id)
}

// CheckUpgrade applies the rules of the WebSocket upgrade at /agent-daemon/ws. A version that is
// present but empty is a mismatch (426), not a missing parameter.
func (rules Rules) CheckUpgrade(r *http.Request) (Device, *Rejection) {
	q := r.URL.Query()
	deviceID := q.Get(proto.QueryDeviceID)
	const missing = "device_id, version and the Bearer header are required"
	switch {
	case deviceID == "":
		return Device{}, Reject(CheckDeviceID, proto.HTTPMissingParams, missing)
	case !q.Has(proto.QueryVersion):
		return Device{}, Reject(CheckVersion, proto.HTTPMissingParams, missing)
	case r.Header.Get("Authorization") == "":
		return Device{}, Reject(CheckBearer, proto.HTTPMissingParams, missing)
	}
	// Before authentication and before anything is registered (protocol-facts.md §1.4).
	if !rules.compatible(q.Get(proto.QueryVersion)) {
		return Device{}, Reject(CheckVersionMatch, proto.HTTPIncompatibleVersion, "this Core speaks wire version "+rules.version()+" only")
	}
	return rules.authenticate(r, deviceID)
}

func (rules Rules) authenticate(r *http.Request, deviceID string) (Device, *Rejection) {
	cred, ok := Bearer(r.Header)
	if rules.credentialInURL(r, cred) {
		return Device{}, Reject(CheckCredentialInURL, proto.HTTPBadCredential, "a credential must never appear in the URL")
	}
	if !ok {
		return Device{}, Reject(CheckBearer, proto.HTTPMissingBearer, "Authorization: Bearer <credential> is required")
	}
	if rules.Auth == nil {
		return Device{}, internal(errors.New("transport: Rules without an Authenticator"))
	}
	workspace, err := rules.Auth.Authenticate(deviceID, cred)
	switch {
	case err == nil:
		return Device{ID: deviceID, WorkspaceID: workspace}, nil
	case errors.Is(err, ErrUnknownDevice):
		return Device{}, Reject(CheckDevice, proto.HTTPUnknownDevice, "unknown device").about(deviceID)
	case errors.Is(err, ErrBadCredential):
		return Device{}, Reject(CheckCredential, proto.HTTPBadCredential, "the credential does not match the device").about(deviceID)
	case errors.Is(err, ErrWrongRuntime):
		return Device{}, Reject(CheckRuntimeType, proto.HTTPWrongRuntimeType, "the credential is not an agent-daemon runtime credential")
	}
	return Device{}, internal(fmt.Errorf("authenticating device %q: %w", deviceID, err))
}

func internal(err error) *Rejection {
	rej := Reject(CheckInternal, proto.HTTPInternal, "internal error")
	rej.Err = err
	return rej
}

// credentialQueryKeys are query parameters that can only mean a credential.
var credentialQueryKeys = map[string]bool{
	"token": true, "credential": true, "access_token": true, "bearer": true, "authorization": true,
}

// credentialInURL: a credential is never accepted in the URL, even beside a valid header
// (runtime-protocol.md, "Ownership and connection", step 3). It is recognised by the parameter's
// name, or by a name or value equal to the presented Bearer credential or that the Authenticator
// recognises.
func (rules Rules) credentialInURL(r *http.Request, presented string) bool {
	_, found := rules.credentialParam(r, presented)
	return found
}

// credentialParam names the URL query parameter that carries a credential: its name, or, when the
// name itself is the credential, a description that does not repeat it. Never its value.
func (rules Rules) credentialParam(r *http.Request, presented string) (string, bool) {
	known, _ := rules.Auth.(CredentialRecognizer)
	isCredential := func(s string) bool {
		return (presented != "" && s == presented) || (known != nil && known.IsCredential(s))
	}
	for key, vals := range r.URL.Query() {
		if isCredential(key) {
			return "a parameter whose name is the credential", true
		}
		if credentialQueryKeys[strings.ToLower(key)] {
			return fmt.Sprintf("%q", key), true
		}
		for _, v := range vals {
			if isCredential(v) {
				return fmt.Sprintf("%q", key), true
			}
		}
	}
	return "", false
}

// Bearer returns the credential of an "Authorization: Bearer <credential>" header. Whitespace
// around the credential is not part of it (RFC 6750 §2.1: the token contains none), so a header
// of only "Bearer " carries no credential.
func Bearer(h http.Header) (string, bool) {
	token, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	if token = strings.TrimSpace(token); !ok || token == "" {
		return "", false
	}
	return token, true
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
