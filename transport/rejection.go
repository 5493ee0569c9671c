package transport

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/wirecheck/wirecheck/proto"
)

// Check names one rule a Core applies before it answers. Several checks share an error code
// (missing_params covers device_id, version and the Authorization header; bad_credential covers a
// wrong credential and one in the URL), so the check is what says which rule failed.
type Check string

const (
	CheckMethod          Check = "method"            // bootstrap is POST, device-status GET
	CheckBody            Check = "body"              // the bootstrap body is not JSON
	CheckDeviceID        Check = "device_id"         // device_id missing (blank, on bootstrap and device-status)
	CheckVersion         Check = "version"           // the upgrade has no version query parameter
	CheckBearer          Check = "bearer"            // no Authorization header, or not "Bearer <credential>"
	CheckVersionMatch    Check = "version_match"     // version is not byte for byte the one Core speaks
	CheckCredentialInURL Check = "credential_in_url" // a credential appears in the URL
	CheckDevice          Check = "device"            // the device is unknown
	CheckCredential      Check = "credential"        // the credential does not match the device
	CheckRuntimeType     Check = "runtime_type"      // the credential is not an agent-daemon credential
	CheckInternal        Check = "internal"          // the Authenticator failed
)

// Rejection is a Core's refusal of one request: the check that failed and the answer it gets.
type Rejection struct {
	Check  Check
	Status int
	Code   string // the error body's code (proto.HTTP…)
	Detail string // never carries a credential
	Err    error  // what the Authenticator returned, for CheckInternal; never sent
	// DeviceID is the device the refused request named, when the refusal is about that device.
	DeviceID string
}

func (r *Rejection) about(deviceID string) *Rejection {
	r.DeviceID = deviceID
	return r
}

// Reject is the rejection of check with code, at the code's status.
func Reject(check Check, code, detail string) *Rejection {
	return &Rejection{Check: check, Status: proto.HTTPStatusFor(code), Code: code, Detail: detail}
}

func (r *Rejection) Error() string {
	return fmt.Sprintf("%d %s (%s): %s", r.Status, r.Code, r.Check, r.Detail)
}

func (r *Rejection) Unwrap() error { return r.Err }

// Write answers the request with the rejection's status and the shared error body.
func (r *Rejection) Write(w http.ResponseWriter) { WriteError(w, r.Status, r.Code, r.Detail) }

// WriteError answers with status and the error body shared by bootstrap, device-status and the
// upgrade (protocol-facts.md §1.2).
func WriteError(w http.ResponseWriter, status int, code, detail string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(proto.HTTPError{Error: code, Detail: detail})
}

// WriteJSON answers 200 with v as JSON: a bootstrap or device-status answer.
func WriteJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
