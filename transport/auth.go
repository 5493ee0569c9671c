package transport

import (
	"crypto/subtle"
	"errors"

	"github.com/wirecheck/wirecheck/proto"
)

// Authentication errors an Authenticator returns; each maps to one error code of §1.2. Any other
// error is answered 500 internal.
var (
	ErrUnknownDevice = errors.New(proto.HTTPUnknownDevice)
	ErrBadCredential = errors.New(proto.HTTPBadCredential)
	ErrWrongRuntime  = errors.New(proto.HTTPWrongRuntimeType)
)

// Authenticator checks a Bearer credential for a device and returns its workspace. It must compare
// in constant time and must never log the credential.
type Authenticator interface {
	Authenticate(deviceID, credential string) (workspaceID string, err error)
}

// CredentialRecognizer is implemented by an Authenticator that can tell a live credential when it
// sees one, so that Rules catch a credential in the URL even when the Bearer header is missing or
// carries another one.
type CredentialRecognizer interface {
	IsCredential(value string) bool
}

// OneDevice knows a single device and its credential: the scripted Core's view of the world.
type OneDevice struct {
	DeviceID, Credential, WorkspaceID string
}

// NonDaemonDeviceID is a device every Core of the gate knows under the same credential as its
// Runtime's device, but whose credential is not of an agent-daemon runtime: a bootstrap naming it
// is refused 403 wrong_runtime_type (CN-11).
const NonDaemonDeviceID = "not-an-agent-daemon"

func (o OneDevice) Authenticate(deviceID, credential string) (string, error) {
	if deviceID == NonDaemonDeviceID && o.Credential != "" && equal(credential, o.Credential) {
		return "", ErrWrongRuntime
	}
	if deviceID != o.DeviceID {
		return "", ErrUnknownDevice
	}
	if !equal(credential, o.Credential) {
		return "", ErrBadCredential
	}
	return o.WorkspaceID, nil
}

func (o OneDevice) IsCredential(value string) bool {
	return o.Credential != "" && equal(value, o.Credential)
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
