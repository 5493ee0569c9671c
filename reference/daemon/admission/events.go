package admission

import (
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// EventKind names what happened to an admission; the table is keyed by it.
type EventKind string

const (
	KindPrepareAccepted      EventKind = "prepare-accepted"
	KindPrepareRepeated      EventKind = "prepare-repeated"
	KindSetupSucceeded       EventKind = "setup-succeeded"
	KindSetupFailed          EventKind = "setup-failed"
	KindSetupCleanupFailed   EventKind = "setup-cleanup-failed"
	KindStartRequested       EventKind = "start-requested"
	KindTurnStarted          EventKind = "turn-started"
	KindNativeStartFailed    EventKind = "native-start-failed"
	KindStartAborted         EventKind = "start-aborted"
	KindReleaseRequested     EventKind = "release-requested"
	KindExpiryFired          EventKind = "expiry-fired"
	KindStatusDeliveryFailed EventKind = "status-delivery-failed"
	KindDeviceShutdown       EventKind = "device-shutdown"
	KindConnectionClosed     EventKind = "connection-closed"
)

// kinds lists every event kind.
var kinds = []EventKind{KindPrepareAccepted, KindPrepareRepeated, KindSetupSucceeded, KindSetupFailed,
	KindSetupCleanupFailed, KindStartRequested, KindTurnStarted, KindNativeStartFailed, KindStartAborted, KindReleaseRequested,
	KindExpiryFired, KindStatusDeliveryFailed, KindDeviceShutdown, KindConnectionClosed}

// Event is one thing that happened to an admission.
type Event interface{ Kind() EventKind }

// PrepareAccepted: an execution_prepare passed every admission rule; it creates the record. The
// daemon chose the handle and the Executor: a fresh one to set up, or a healthy idle one it reuses.
type PrepareAccepted struct {
	Now        time.Time
	Expiry     time.Duration // the admission deadline after Now: at most proto.AdmissionExpiry
	Handle     string
	ExecutorID string // empty for a read-only preparation
	Reused     bool
	ReadOnly   bool
	Hash       string // of the canonical execution_prepare payload
}

// PrepareRepeated: an execution_prepare arrived under the request ID of this record.
type PrepareRepeated struct {
	Hash string
}

// SetupSucceeded: native Executor setup returned an Executor.
type SetupSucceeded struct{}

// SetupFailed: native Executor setup failed.
type SetupFailed struct{}

// SetupCleanupFailed: closing the Executor after a failed setup failed too: cleanup is unconfirmed.
type SetupCleanupFailed struct{}

// StartRequested: a decodable execution_start named this record's handle under its request ID.
type StartRequested struct {
	Now        time.Time
	ExecutorID string
	RunID      string
	Hash       string // of the canonical execution_start payload
	RunActive  bool   // a Run with this ID is already active on the connection
	Input      proto.MessageInput
}

// TurnStarted: the native start returned a Turn.
type TurnStarted struct{}

// NativeStartFailed: the native start returned no Turn, so no input was submitted. Cancelled: a
// cancellation interrupted it (the Executor is kept); otherwise the daemon closed the Executor,
// and CleanupFailed reports that the close failed.
type NativeStartFailed struct {
	Cancelled     bool
	CleanupFailed bool
}

// StartAborted: a cancellation aborted the start after the native Turn existed (protocol-facts
// §4.3: "a start aborted by cancellation after a Turn exists ends failed start_cancelled").
type StartAborted struct{}

// ReleaseRequested: a decodable execution_release named this record's handle under its request ID.
type ReleaseRequested struct{}

// ExpiryFired: the expiry timer fired.
type ExpiryFired struct {
	Now time.Time
}

// StatusDeliveryFailed: a preparation_status of this record could not be written.
type StatusDeliveryFailed struct{}

// DeviceShutdown: Core sent device_shutdown; the connection goes on.
type DeviceShutdown struct{}

// ConnectionClosed: the connection that owns the record ended.
type ConnectionClosed struct{}

func (PrepareAccepted) Kind() EventKind      { return KindPrepareAccepted }
func (PrepareRepeated) Kind() EventKind      { return KindPrepareRepeated }
func (SetupSucceeded) Kind() EventKind       { return KindSetupSucceeded }
func (SetupFailed) Kind() EventKind          { return KindSetupFailed }
func (SetupCleanupFailed) Kind() EventKind   { return KindSetupCleanupFailed }
func (StartRequested) Kind() EventKind       { return KindStartRequested }
func (TurnStarted) Kind() EventKind          { return KindTurnStarted }
func (NativeStartFailed) Kind() EventKind    { return KindNativeStartFailed }
func (StartAborted) Kind() EventKind         { return KindStartAborted }
func (ReleaseRequested) Kind() EventKind     { return KindReleaseRequested }
func (ExpiryFired) Kind() EventKind          { return KindExpiryFired }
func (StatusDeliveryFailed) Kind() EventKind { return KindStatusDeliveryFailed }
func (DeviceShutdown) Kind() EventKind       { return KindDeviceShutdown }
func (ConnectionClosed) Kind() EventKind     { return KindConnectionClosed }
