// Package harness is the adapter contract between the reference Runtime and a native agent
// Harness: how an Executor is set up for a Session configuration, how a Turn is started, streams its
// events and settles, and how it is cancelled. The Runtime owns ordering, receipts and ownership;
// an adapter only reports what its native engine did.
package harness

import (
	"context"
	"errors"

	"github.com/wirecheck/wirecheck/proto"
)

// Harness is one agent kind.
type Harness interface {
	Kind() string
	Version() string
	// Available reports whether the adapter can run now (e.g. its binary exists). The declaration
	// below is complete either way.
	Available() bool
	// Capabilities is the complete declaration of this composed Runtime and Harness.
	Capabilities() proto.AgentKindCapabilities
	// NewExecutor performs native setup for an immutable Session configuration. It may block; ctx
	// cancels it. On error the returned Executor, if not nil, still owns resources to close.
	NewExecutor(ctx context.Context, cfg *proto.PromptRequestPayload) (Executor, error)
}

// Executor is a native resource that can run Turns of one configuration, one at a time.
type Executor interface {
	// Start submits a Run's input and returns its native Turn. ctx may carry a virtual clock's
	// clock.Handoff: a Turn woken into its end by an advance (clock.SleepHeld) gives it the wake's
	// Hold, and the Runtime releases it once it has applied the end to the Run. ErrNoTurn means no Turn exists and
	// no input was submitted; the Executor is unusable. A Turn returned together with ctx's error
	// exists but its start was aborted by cancelling ctx: it has been cancelled and settles (its
	// Events close) without emitting anything.
	Start(ctx context.Context, runID string, input proto.MessageInput) (Turn, error)
	// Close releases native resources. An error means cleanup is unconfirmed: the resource stays
	// owned and counted.
	Close(ctx context.Context) error
	// NativeSessionID is the native session identity retained across Turns ("" if none).
	NativeSessionID() string
}

// ErrNoTurn is returned by Executor.Start when native start produced no Turn.
var ErrNoTurn = errors.New("native start produced no turn")

// Turn is one native execution.
type Turn interface {
	// Events yields the Turn's events in order and is closed once native work has settled.
	Events() <-chan Event
	// Result is the terminal snapshot; call it after Events is closed.
	Result() Result
	// Cancel requests native cancellation and returns after native settlement with the Turn's
	// continuity snapshot. A nil snapshot means the outcome is unavailable. ctx may carry a
	// virtual clock's Hold (clock.WithHold): Cancel calls clock.Armed(ctx) before it blocks,
	// once it has armed the timers its settlement waits on, so an advance does not pass them.
	Cancel(ctx context.Context) (*proto.DonePayload, error)
}

// Event is one Run event: a Run-event message type and its payload (delta, thinking,
// output_message, tool_call, usage, error).
type Event struct {
	Type    string
	Payload any
}

// Result is how a Turn ended.
type Result struct {
	// Done is the terminal frame the Turn produced; nil when it produced none (a cancelled Turn),
	// in which case the Runtime closes the stream with an empty done.
	Done *proto.DonePayload
	// Reusable: the Executor is healthy and may serve a later Turn of the same configuration.
	Reusable bool
}

// Steerable is a Turn that takes active input (prompt_steer). A Turn that does not implement it
// cannot take input: a Runtime that declares steering for it answers contract_violation.
type Steerable interface {
	// WriteInput writes one active input to the native Turn and returns once the native write
	// completed; ctx bounds the write (the Runtime's 10 s). It fails with ErrInputNotReady or
	// ErrInputRejected when nothing was written, ErrInputUnimplemented when the adapter has no
	// input path, and any other error when the write broke or timed out after it may have been
	// taken. On success the channel yields the adapter's verdict once: nil when native
	// consumption is confirmed, ErrInputRejected, or ErrInputNotConsumed when the Turn settled
	// without confirming it. Like Cancel, it calls clock.Armed(ctx) before it blocks.
	WriteInput(ctx context.Context, inputID string, input proto.MessageInput) (<-chan error, error)
}

// Active input errors of a Steerable Turn.
var (
	ErrInputNotReady      = errors.New("the native turn is not ready for input")
	ErrInputRejected      = errors.New("the adapter rejected the input")
	ErrInputUnimplemented = errors.New("the adapter does not implement active input")
	ErrInputNotConsumed   = errors.New("the turn settled without confirming the input")
)
