package agentruntime

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Typed errors below match them with errors.Is where it makes sense.
var (
	// ErrNotFound: no unit with that ID was provisioned (or adopted) by this adapter.
	ErrNotFound = errors.New("agentruntime: unit not found")
	// ErrAlreadyRunning: Start on a unit that is alive.
	ErrAlreadyRunning = errors.New("agentruntime: unit already running")
	// ErrNotRunning: an operation that needs a live unit (Kill, Pause, Wait on a never-started unit).
	ErrNotRunning = errors.New("agentruntime: unit not running")
	// ErrUnsupported: the backend cannot do this at all. See [UnsupportedError].
	ErrUnsupported = errors.New("agentruntime: unsupported")
	// ErrClosed: the adapter was closed.
	ErrClosed = errors.New("agentruntime: adapter closed")
)

// unitError attaches the unit ID to a sentinel while keeping errors.Is working.
type unitError struct {
	id  UnitID
	err error
}

func (e *unitError) Error() string { return fmt.Sprintf("%v: %q", e.err, e.id) }
func (e *unitError) Unwrap() error { return e.err }

func notFound(id UnitID) error       { return &unitError{id, ErrNotFound} }
func alreadyRunning(id UnitID) error { return &unitError{id, ErrAlreadyRunning} }
func notRunning(id UnitID) error     { return &unitError{id, ErrNotRunning} }

// UnsupportedError says the backend cannot perform Op at all (as opposed to trying and failing),
// and what would have to change for it to work. errors.Is(err, ErrUnsupported) holds.
type UnsupportedError struct {
	Op      string // e.g. "pause", "provision image"
	Backend string // e.g. "local", "podman"
	Need    string // what would have to change
	// Detail is the backend's own words, when it had any (e.g. the engine's stderr).
	Detail string
}

func (e *UnsupportedError) Error() string {
	s := fmt.Sprintf("agentruntime: %s is unsupported by the %s backend: %s", e.Op, e.Backend, e.Need)
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrUnsupported) true.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// SpecError says a UnitSpec is invalid: which field, and which rule it broke.
type SpecError struct {
	ID     UnitID
	Field  string
	Reason string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("agentruntime: unit %q: invalid %s: %s", e.ID, e.Field, e.Reason)
}

// DisallowedEnvError names the environment variables a spec references that the allowlist does not
// allow — only those, sorted.
type DisallowedEnvError struct {
	Names []string
}

func (e *DisallowedEnvError) Error() string {
	return fmt.Sprintf("agentruntime: environment variables not on the allowlist: %s "+
		"(allow them explicitly with AllowEnv)", strings.Join(e.Names, ", "))
}

// SpawnError says the daemon process, its log file or its state file could not be created.
type SpawnError struct {
	ID  UnitID
	Op  string // what failed: "start", "open log", "write state"
	Err error
}

func (e *SpawnError) Error() string {
	return fmt.Sprintf("agentruntime: unit %q: %s: %v", e.ID, e.Op, e.Err)
}

func (e *SpawnError) Unwrap() error { return e.Err }

// EngineError is a container engine command that failed: its argv (secret values never appear in
// it), its stderr and its exit code (-1 if it did not run, e.g. the binary is missing).
type EngineError struct {
	Args     []string
	Stderr   string
	ExitCode int
	Err      error
}

func (e *EngineError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("agentruntime: %s failed (exit %d): %s", strings.Join(e.Args, " "), e.ExitCode, msg)
}

func (e *EngineError) Unwrap() error { return e.Err }
