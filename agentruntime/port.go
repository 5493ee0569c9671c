package agentruntime

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// Runtime is the capability wirecheck needs to run a Runtime daemon under test as a managed unit.
//
// Every method that may block takes a context first. Errors are typed: match them with errors.Is
// against [ErrNotFound], [ErrAlreadyRunning], [ErrNotRunning] and [ErrUnsupported], or with
// errors.As against [*UnsupportedError], [*SpecError], [*DisallowedEnvError], [*SpawnError] and
// [*EngineError].
type Runtime interface {
	// Provision registers a unit without starting it. It validates the spec and checks every
	// environment reference against the adapter's [EnvAllowlist]; a rejected spec leaves no state.
	Provision(ctx context.Context, spec UnitSpec) (UnitID, error)
	// Start starts a provisioned, stopped or exited unit. ErrAlreadyRunning if it is live.
	Start(ctx context.Context, id UnitID) error
	// Stop asks the unit to stop (SIGTERM), waits up to grace, then kills it (SIGKILL). Stopping a
	// unit that is not running is not an error. The unit's health becomes Stopped.
	Stop(ctx context.Context, id UnitID, grace time.Duration) error
	// Kill delivers sig to the unit (to its whole process group for a local process) and returns
	// without waiting: whatever the daemon does with the signal is what [Runtime.Wait] and
	// [Runtime.Health] then observe. SIGSTOP and SIGCONT are refused: use Pause and Resume.
	Kill(ctx context.Context, id UnitID, sig syscall.Signal) error
	// Restart is Stop(grace) followed by Start; on a unit that is not running it is Start.
	Restart(ctx context.Context, id UnitID, grace time.Duration) error
	// Pause freezes a running unit with its connections still open: a hang, not a disconnect.
	// A backend that cannot freeze returns an [*UnsupportedError].
	Pause(ctx context.Context, id UnitID) error
	// Resume thaws a paused unit. Resuming a running unit that is not paused is not an error.
	Resume(ctx context.Context, id UnitID) error
	// Health reports the unit's current state (see [Health]).
	Health(ctx context.Context, id UnitID) (Status, error)
	// Wait blocks until the current run of the unit has ended and returns how it ended; for a unit
	// that already ended it returns the last exit at once. ErrNotRunning if it never started.
	Wait(ctx context.Context, id UnitID) (Exit, error)
	// List reports every unit the adapter manages, stopped and exited ones included, sorted by ID.
	List(ctx context.Context) ([]Status, error)
	// Logs returns captured output, oldest line first; tail >= 0 keeps only the last tail lines,
	// [AllLines] keeps everything captured. Secret values are replaced by [Redacted].
	Logs(ctx context.Context, id UnitID, tail int) ([]string, error)
	// Recover asks the backend what it is still running from an earlier supervisor. The answer is
	// [Adopted] (the backend outlives the supervisor; the list may be empty and then means "none")
	// or [Ephemeral] (it cannot; earlier units are gone or were reaped, never "none").
	// Call it once at startup; calling it again is harmless.
	Recover(ctx context.Context) (Recovered, error)
	// Remove kills the unit if it is live and forgets it (a container is deleted).
	Remove(ctx context.Context, id UnitID) error
	// Close stops everything the adapter started in this process: goroutines, and for the local
	// adapter the processes themselves. Containers are left to the engine (see [Container.Close]).
	Close() error
}

// AllLines asks [Runtime.Logs] for every captured line.
const AllLines = -1

// UnitID names a managed unit. It is also the container label and the state-file key, so it is
// restricted to lowercase letters, digits, '.', '_' and '-', starting with a letter or digit, at
// most 128 characters.
type UnitID string

// Environment variables every adapter hands to the daemon.
const (
	EnvCoreURL  = "WIRECHECK_CORE_URL"  // the scripted Core's base URL
	EnvDeviceID = "WIRECHECK_DEVICE_ID" // the device ID the daemon must present
)

// Placeholders replaced in Args and Env values before launch.
const (
	PlaceholderCoreURL  = "{core_url}"
	PlaceholderDeviceID = "{device_id}"
)

// UnitSpec is what to run and how it reaches the suite.
//
// Values in Command, Args and Env may reference the suite's environment as ${NAME} or
// ${NAME:-default}; every such NAME, and every SecretEnv name, must be allowed by the adapter's
// [EnvAllowlist]. References are expanded at launch. A secret name may not be referenced in
// Command or Args (it would land in argv).
type UnitSpec struct {
	ID UnitID
	// Command is the executable (local: a path, or a name looked up on the suite's PATH; container:
	// optional, the container's command instead of the image's CMD). Args follow it.
	Command string
	Args    []string
	// Image is the container image. The local adapter refuses a spec with an image.
	Image string
	// Env is plain, non-secret environment handed to the daemon. Its values may appear in argv
	// (the container engine's) and in logs.
	Env map[string]string
	// SecretEnv names variables whose values the adapter reads from the suite (its LookupEnv) and
	// hands to the daemon by environment only. Values never appear in argv; they are redacted from
	// captured logs. A listed name that is unset in the suite fails the launch.
	SecretEnv []string
	// CoreURL and DeviceID reach the daemon as WIRECHECK_CORE_URL / WIRECHECK_DEVICE_ID and through
	// the {core_url} / {device_id} placeholders.
	CoreURL  string
	DeviceID string
	// Labels are stamped on the container (keys under "io.wirecheck." are reserved). The local
	// adapter keeps them in its state file.
	Labels map[string]string
	// Hardening applies to containers; nil means [DefaultHardening]. The local adapter ignores it.
	Hardening *Hardening
	// Workspace is a writable host directory: the working directory of a local process, mounted
	// read-write at /workspace (and the working directory) in a container. Optional.
	Workspace string
	// LogPath is where the local adapter appends stdout and stderr (one file, both streams).
	// Optional: without it output is kept only in memory. Containers log through the engine.
	LogPath string
}

// Readiness tells whether the daemon of unit id is connected: the scripted Core has seen a valid
// heartbeat on a current connection from it. Adapters call it only while the unit is alive and
// not paused. It must be cheap and must not block beyond ctx.
type Readiness func(ctx context.Context, id UnitID) bool

// Health is a unit's state as seen by the suite.
type Health int

const (
	// Provisioned: known to the runtime, never started.
	Provisioned Health = iota + 1
	// Starting: the process or container is alive, and the daemon is not (or no longer) connected
	// according to the Readiness probe (or there is no probe).
	Starting
	// Connected: alive, and the Readiness probe says the scripted Core sees it connected.
	Connected
	// Paused: alive but frozen (SIGSTOP, or the engine's cgroup freezer).
	Paused
	// Exited: the run ended without the suite asking it to stop (on its own, or after Kill).
	// Status.Exit says how.
	Exited
	// Stopped: the run ended because the suite called Stop, Restart or Remove. Status.Exit says how.
	Stopped
)

var healthNames = [...]string{"unknown", "provisioned", "starting", "connected", "paused", "exited", "stopped"}

func (h Health) String() string {
	if h < 0 || int(h) >= len(healthNames) {
		return fmt.Sprintf("Health(%d)", int(h))
	}
	return healthNames[h]
}

// Alive reports whether a process (or container) exists: Starting, Connected or Paused.
func (h Health) Alive() bool { return h == Starting || h == Connected || h == Paused }

// Exit is how a run ended.
type Exit struct {
	// Code is the exit code; -1 when the process was killed by a signal.
	Code int
	// Signal is the signal that killed the process, 0 if it exited by itself. Container engines
	// report only a code (128+n by convention); the container adapter leaves Signal 0 rather than
	// guess.
	Signal syscall.Signal
	// At is when the exit was observed (local) or recorded by the engine (container).
	At time.Time
	// OOMKilled is set when the container engine reports an out-of-memory kill.
	OOMKilled bool
	// LeftBehind lists the processes of a local unit's group that were still alive when the daemon
	// exited; they were killed with it. A daemon should leave none.
	LeftBehind []int
}

func (e Exit) String() string {
	s := fmt.Sprintf("exit code %d", e.Code)
	if e.Signal != 0 {
		s = fmt.Sprintf("killed by signal %d (%v)", int(e.Signal), e.Signal)
	}
	if e.OOMKilled {
		s += " (out of memory)"
	}
	if len(e.LeftBehind) > 0 {
		if len(e.LeftBehind) == 1 {
			s += fmt.Sprintf("; a process of its group outlived it and was killed (pid %d)", e.LeftBehind[0])
		} else {
			s += fmt.Sprintf("; %d processes of its group outlived it and were killed (pids %v)", len(e.LeftBehind), e.LeftBehind)
		}
	}
	return s
}

// Status is one unit's health at the time of the call.
type Status struct {
	ID     UnitID
	Health Health
	// Exit is how the last run ended: set when Health is Exited or Stopped, nil otherwise.
	Exit *Exit
	// PID is the host process ID of the unit's main process while it is alive, 0 otherwise.
	PID int
}

// Recovered is the answer to [Runtime.Recover]: [Adopted] or [Ephemeral]. Switch on the type;
// the two are never interchangeable.
type Recovered interface{ recovered() }

// Adopted: the backend outlives the supervisor and still holds these units, which the adapter now
// manages (stopped ones included). An empty IDs is a trustworthy "nothing was left".
type Adopted struct {
	IDs []UnitID
	// Skipped lists what carried the suite's marker but was not adopted, and why (foreign run,
	// malformed labels). Each is also logged as a warning.
	Skipped []Skipped
}

// Skipped is a backend object Recover left alone.
type Skipped struct {
	Name   string
	Reason string
}

// Ephemeral: the backend cannot outlive the supervisor. What an earlier supervisor ran is gone or
// unmanageable; this is not "none". Reaped lists the orphans found through the state directory and
// killed.
type Ephemeral struct {
	Reaped []Orphan
}

// Orphan is a process group left by an earlier supervisor and killed by Recover.
type Orphan struct {
	ID    UnitID
	RunID string
	PGID  int
	// PIDs are the processes of the group that were still alive and were killed.
	PIDs []int
}

func (Adopted) recovered()   {}
func (Ephemeral) recovered() {}
