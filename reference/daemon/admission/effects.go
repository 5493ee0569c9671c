package admission

import (
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// Effect is something the daemon must carry out after a transition. Effects come in the order
// they must happen: Publish and Reject queue a frame, and queued frames keep their order on the
// wire; BeginSetup, StartTurn and CloseExecutor are native work, which runs outside the receive
// loop once the step's status frames were written.
type Effect interface {
	String() string
	effect()
}

// ArmExpiry arms (or re-arms) the admission's expiry timer to fire at an instant.
type ArmExpiry struct{ At time.Time }

// StopExpiry stops the expiry timer: the admission left its admitted window.
type StopExpiry struct{}

// BeginSetup runs native setup of the fresh Executor.
type BeginSetup struct{}

// CancelSetup cancels native setup still running; when it returns, the late Executor is closed.
type CancelSetup struct{}

// HoldExecutor makes the ready admission the holder of its Executor (a reused one stops idling).
type HoldExecutor struct{}

// IdleExecutor hands the healthy held Executor back to its Session's idle pool; it is not closed.
type IdleExecutor struct{}

// CloseExecutor closes the admission's Executor. ReportFailure: a failed close must come back as
// SetupCleanupFailed.
type CloseExecutor struct{ ReportFailure bool }

// OpenRun registers the Run that takes the admission, with a consumer for its output, and hands
// it the Executor. It precedes the starting status: output may race started.
type OpenRun struct{ RunID string }

// StartTurn starts the native Turn of the opened Run with the start's input.
type StartTurn struct {
	RunID string
	Input proto.MessageInput
}

// Publish sends the record's preparation_status; a failed write comes back as StatusDeliveryFailed.
type Publish struct {
	Status proto.PreparationStatusPayload
}

// Reject answers one control operation with a rejected preparation_status (revision 0).
type Reject struct {
	Status proto.PreparationStatusPayload
}

// Forget drops the retired record: its request ID allocates a fresh handle.
type Forget struct{}

func (e ArmExpiry) String() string {
	return "arm-expiry at=" + e.At.UTC().Format("2006-01-02T15:04:05.000Z")
}
func (StopExpiry) String() string   { return "stop-expiry" }
func (BeginSetup) String() string   { return "begin-setup" }
func (CancelSetup) String() string  { return "cancel-setup" }
func (HoldExecutor) String() string { return "hold-executor" }
func (IdleExecutor) String() string { return "idle-executor" }
func (e CloseExecutor) String() string {
	if e.ReportFailure {
		return "close-executor report-failure"
	}
	return "close-executor"
}
func (e OpenRun) String() string   { return "open-run run=" + e.RunID }
func (e StartTurn) String() string { return "start-turn run=" + e.RunID }
func (e Publish) String() string   { return "publish " + statusJSON(e.Status) }
func (e Reject) String() string    { return "reject " + statusJSON(e.Status) }
func (Forget) String() string      { return "forget" }

// statusJSON is the payload as it goes on the wire: member presence is part of the protocol.
func statusJSON(s proto.PreparationStatusPayload) string {
	b, err := json.Marshal(s)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func (ArmExpiry) effect()     {}
func (StopExpiry) effect()    {}
func (BeginSetup) effect()    {}
func (CancelSetup) effect()   {}
func (HoldExecutor) effect()  {}
func (IdleExecutor) effect()  {}
func (CloseExecutor) effect() {}
func (OpenRun) effect()       {}
func (StartTurn) effect()     {}
func (Publish) effect()       {}
func (Reject) effect()        {}
func (Forget) effect()        {}
