package store

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// RuntimeTypeAgentDaemon is the only runtime type whose credentials open the daemon connection.
const RuntimeTypeAgentDaemon = "agent-daemon"

// Device is a registered Runtime machine. Its credential is kept only as a SHA-256 digest.
type Device struct {
	ID               string    `json:"device_id"`
	WorkspaceID      string    `json:"workspace_id"`
	RuntimeType      string    `json:"runtime_type"`
	CredentialSHA256 string    `json:"credential_sha256"`
	Retired          bool      `json:"retired,omitempty"`
	CreatedAt        time.Time `json:"created_at"`
}

// NewCredential returns a fresh random daemon credential.
func NewCredential() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return "wcd_" + base64.RawURLEncoding.EncodeToString(b[:])
}

func digest(credential string) string {
	sum := sha256.Sum256([]byte(credential))
	return hex.EncodeToString(sum[:])
}

// CreateDevice registers a device with a new credential and returns the credential. It is the
// only time the credential exists in the clear on Core's side.
func (s *Store) CreateDevice(id, workspaceID string) (string, error) {
	cred := NewCredential()
	return cred, s.AddDevice(Device{ID: id, WorkspaceID: workspaceID, RuntimeType: RuntimeTypeAgentDaemon}, cred)
}

// AddDevice registers a device with a credential the caller chose (tests, fixtures). d's digest
// is computed here.
func (s *Store) AddDevice(d Device, credential string) error {
	if strings.TrimSpace(d.ID) == "" {
		return fmt.Errorf("device ID must not be blank")
	}
	if credential == "" {
		return fmt.Errorf("device %s: the credential must not be empty", d.ID)
	}
	if d.RuntimeType == "" {
		d.RuntimeType = RuntimeTypeAgentDaemon
	}
	if d.WorkspaceID == "" {
		d.WorkspaceID = "default"
	}
	d.CredentialSHA256 = digest(credential)
	d.CreatedAt = s.clk.Now().UTC()
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bDevices)
		if b.Get([]byte(d.ID)) != nil {
			return fmt.Errorf("device %s: %w", d.ID, ErrExists)
		}
		return put(b, d.ID, d)
	})
}

// Device returns a registered device.
func (s *Store) Device(id string) (*Device, error) {
	var d Device
	err := s.db.View(func(tx *bolt.Tx) error { return get(tx.Bucket(bDevices), id, &d) })
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// Authenticate checks a daemon credential against the device's digest in constant time. The
// credential is never logged or stored.
func (s *Store) Authenticate(deviceID, credential string) (*Device, error) {
	d, err := s.Device(deviceID)
	if err != nil {
		return nil, ErrUnknownDevice
	}
	want, err := hex.DecodeString(d.CredentialSHA256)
	if err != nil {
		return nil, ErrBadCredential
	}
	got := sha256.Sum256([]byte(credential))
	if subtle.ConstantTimeCompare(want, got[:]) != 1 {
		return nil, ErrBadCredential
	}
	if d.RuntimeType != RuntimeTypeAgentDaemon && !mutation.On(mutation.RuntimeTypeUnchecked) {
		return nil, ErrWrongRuntime
	}
	if d.Retired {
		return nil, ErrDeviceRetired
	}
	return d, nil
}

// RetireDevice marks a device retired: its credential no longer connects.
func (s *Store) RetireDevice(id string) error {
	return s.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bDevices)
		var d Device
		if err := get(b, id, &d); err != nil {
			return err
		}
		d.Retired = true
		return put(b, id, d)
	})
}
