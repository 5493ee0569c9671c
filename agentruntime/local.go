//go:build linux

package agentruntime

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
)

// LocalOptions configure a [Local] adapter. The zero value is usable: deny-all allowlist, no
// readiness probe, no state directory.
type LocalOptions struct {
	// Allowlist bounds which suite variables a spec may read. Zero value: deny all.
	Allowlist EnvAllowlist
	// LookupEnv reads the suite's environment (for ${NAME} references and secrets); os.LookupEnv
	// by default.
	LookupEnv LookupFunc
	// Readiness tells Starting from Connected. Nil: a live unit is always Starting.
	Readiness Readiness
	// StateDir is where each live unit is recorded (pid, process group, start time, run ID) so
	// that Recover in a later supervisor can reap what an earlier one left. One supervisor at a time
	// per directory. Empty: no record, and Recover has nothing to reap.
	StateDir string
	// RunID is written into state files, to tell a human whose orphan was reaped.
	RunID string
	// LogLines bounds each unit's in-memory tail; DefaultLogLines if <= 0.
	LogLines int
	// DrainTimeout bounds how long, after the daemon exits, the adapter waits for its output pipe
	// to close (a descendant that left the process group may hold it). 2s if <= 0.
	DrainTimeout time.Duration
	// Logger receives warnings (e.g. a state file it could not read). slog.Default() if nil.
	Logger *slog.Logger
}

// Local runs each unit as a child process in its own process group.
//
// The daemon's environment is exactly WIRECHECK_CORE_URL, WIRECHECK_DEVICE_ID, the spec's Env and
// its SecretEnv: nothing of the suite's environment is inherited (not even PATH, unless the spec
// passes it, e.g. Env{"PATH": "${PATH}"} with PATH allowed). The daemon gets SIGKILL if the suite
// dies (Pdeathsig); its descendants do not, which is what the state directory and Recover are for.
// Stdout and stderr share one pipe, so their relative order is kept; each line is redacted, then
// appended to the spec's LogPath and to an in-memory tail that survives restarts of the unit.
type Local struct {
	opts   LocalOptions
	lookup LookupFunc
	log    *slog.Logger

	mu     sync.Mutex
	units  map[UnitID]*localUnit
	closed bool
	wg     sync.WaitGroup // one per goroutine started for a run
}

type localUnit struct {
	spec UnitSpec
	tail *logTail
	run  *localRun // the current or last run; nil if never started
}

// localRun is one start of a unit. Fields other than done are guarded by Local.mu.
type localRun struct {
	pid           int
	paused        bool
	stopRequested bool
	done          chan struct{} // closed once exit is recorded and output drained
	exit          Exit
}

func (r *localRun) ended() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

var _ Runtime = (*Local)(nil)

// NewLocal returns a local-process adapter.
func NewLocal(opts LocalOptions) *Local {
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 2 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Local{
		opts:   opts,
		lookup: lookupOrDefault(opts.LookupEnv),
		log:    log.With("adapter", "local"),
		units:  map[UnitID]*localUnit{},
	}
}

// Provision validates spec and records it. A spec with an Image is refused: running it as a local
// binary would yield something that answers but is not the daemon under test.
func (l *Local) Provision(ctx context.Context, spec UnitSpec) (UnitID, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if spec.Image != "" {
		return "", &UnsupportedError{Op: "provision image " + spec.Image, Backend: "local",
			Need: "run an image with the container adapter (NewContainer); the local adapter runs a binary"}
	}
	if spec.Command == "" {
		return "", &SpecError{ID: spec.ID, Field: "Command", Reason: "the local adapter needs an executable"}
	}
	if err := validateSpec(spec, l.opts.Allowlist); err != nil {
		return "", err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return "", ErrClosed
	}
	if u, ok := l.units[spec.ID]; ok {
		if u.run != nil && !u.run.ended() {
			return "", alreadyRunning(spec.ID)
		}
		u.spec = spec // re-provisioning a stopped unit replaces its spec and keeps its logs
		return spec.ID, nil
	}
	l.units[spec.ID] = &localUnit{spec: spec, tail: newLogTail(l.opts.LogLines)}
	return spec.ID, nil
}

// Start launches the unit. The lock is held across check-and-spawn, so two concurrent Starts
// cannot both pass.
func (l *Local) Start(ctx context.Context, id UnitID) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	u, err := l.unitLocked(id)
	if err != nil {
		return err
	}
	if u.run != nil && !u.run.ended() {
		return alreadyRunning(id)
	}
	return l.spawnLocked(u)
}

func (l *Local) spawnLocked(u *localUnit) error {
	id := u.spec.ID
	ln, err := prepareLaunch(u.spec, l.lookup)
	if err != nil {
		return err
	}
	var logFile *os.File
	if u.spec.LogPath != "" {
		if err := os.MkdirAll(filepath.Dir(u.spec.LogPath), 0o755); err != nil {
			return &SpawnError{ID: id, Op: "open log", Err: err}
		}
		logFile, err = os.OpenFile(u.spec.LogPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return &SpawnError{ID: id, Op: "open log", Err: err}
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		closeIfSet(logFile)
		return &SpawnError{ID: id, Op: "open output pipe", Err: err}
	}
	// Not CommandContext: the unit's life is managed by Stop/Kill/Remove/Close, not by the
	// context of the Start call.
	cmd := exec.Command(ln.command, ln.args...)
	cmd.Env = slices.Concat(ln.env, ln.secrets)
	cmd.Dir = u.spec.Workspace
	cmd.Stdout, cmd.Stderr = pw, pw // one pipe: stdout and stderr keep their relative order
	cmd.SysProcAttr = unitSysProcAttr()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		closeIfSet(logFile)
		return &SpawnError{ID: id, Op: "start", Err: err}
	}
	run := &localRun{pid: cmd.Process.Pid, done: make(chan struct{})}
	statePath, err := l.writeState(u.spec, run.pid, ln.command)
	if err != nil {
		_ = syscall.Kill(-run.pid, syscall.SIGKILL)
		_ = cmd.Wait()
		pr.Close()
		closeIfSet(logFile)
		return &SpawnError{ID: id, Op: "write state", Err: err}
	}
	u.run = run

	pumped := make(chan struct{})
	l.wg.Add(2)
	go func() { // owner: this run; ends at EOF of the output pipe, or when the waiter closes it
		defer l.wg.Done()
		defer close(pumped)
		defer closeIfSet(logFile)
		defer pr.Close()
		pumpLines(pr, ln.redact, func(line string) {
			if logFile != nil {
				_, _ = io.WriteString(logFile, line+"\n")
			}
			u.tail.Append(line)
		})
	}()
	go func() { // owner: this run; ends when the process has been reaped
		defer l.wg.Done()
		_ = cmd.Wait() // an *exec.ExitError says nothing that ProcessState does not
		at := time.Now()
		// The unit is its process group: whatever the daemon left in it goes with it, and is named.
		left, _ := groupMembers(run.pid)
		_ = syscall.Kill(-run.pid, syscall.SIGKILL)
		drain := time.NewTimer(l.opts.DrainTimeout)
		select {
		case <-pumped:
		case <-drain.C:
			l.log.Warn("output pipe still open after exit; closing it", "unit", id)
			pr.Close()
			<-pumped
		}
		drain.Stop()
		ex := exitOf(cmd.ProcessState, at)
		for _, p := range left {
			ex.LeftBehind = append(ex.LeftBehind, p.pid)
		}
		if statePath != "" {
			if err := os.Remove(statePath); err != nil && !errors.Is(err, os.ErrNotExist) {
				l.log.Warn("cannot remove state file", "unit", id, "path", statePath, "err", err)
			}
		}
		l.mu.Lock()
		run.exit = ex
		run.paused = false
		close(run.done)
		l.mu.Unlock()
	}()
	return nil
}

func exitOf(ps *os.ProcessState, at time.Time) Exit {
	ex := Exit{Code: -1, At: at}
	if ps == nil {
		return ex
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		ex.Signal = ws.Signal()
		return ex
	}
	ex.Code = ps.ExitCode()
	return ex
}

// Stop sends SIGTERM to the unit's process group (and SIGCONT, in case it is paused), waits up to
// grace for it to exit, then sends SIGKILL. It returns once the exit is recorded. If ctx ends
// first, the group is killed and ctx's error returned.
func (l *Local) Stop(ctx context.Context, id UnitID, grace time.Duration) error {
	l.mu.Lock()
	u, err := l.unitLocked(id)
	if err != nil {
		l.mu.Unlock()
		return err
	}
	run := u.run
	if run == nil || run.ended() {
		l.mu.Unlock()
		return nil
	}
	run.stopRequested = true
	_ = syscall.Kill(-run.pid, syscall.SIGTERM)
	if run.paused {
		_ = syscall.Kill(-run.pid, syscall.SIGCONT)
	}
	l.mu.Unlock()

	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-run.done:
		return nil
	case <-timer.C:
	case <-ctx.Done():
		_ = syscall.Kill(-run.pid, syscall.SIGKILL)
		return ctx.Err()
	}
	_ = syscall.Kill(-run.pid, syscall.SIGKILL)
	select {
	case <-run.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Kill delivers sig to the unit's process group and returns.
func (l *Local) Kill(ctx context.Context, id UnitID, sig syscall.Signal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if sig == syscall.SIGSTOP || sig == syscall.SIGCONT {
		return &UnsupportedError{Op: "kill with " + sig.String(), Backend: "local",
			Need: "use Pause and Resume, which keep the unit's health in step"}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	run, err := l.liveRunLocked(id)
	if err != nil {
		return err
	}
	if err := syscall.Kill(-run.pid, sig); err != nil {
		return &SpawnError{ID: id, Op: "signal " + sig.String(), Err: err}
	}
	return nil
}

// Restart stops the unit (if running) within grace, then starts it again.
func (l *Local) Restart(ctx context.Context, id UnitID, grace time.Duration) error {
	if err := l.Stop(ctx, id, grace); err != nil {
		return err
	}
	return l.Start(ctx, id)
}

// Pause stops the unit's process group with SIGSTOP and returns once the daemon is stopped.
// Its sockets stay open: the scripted Core sees a hang, not a disconnect.
func (l *Local) Pause(ctx context.Context, id UnitID) error {
	return l.freeze(ctx, id, true)
}

// Resume continues the unit's process group with SIGCONT.
func (l *Local) Resume(ctx context.Context, id UnitID) error {
	return l.freeze(ctx, id, false)
}

func (l *Local) freeze(ctx context.Context, id UnitID, pause bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	run, err := l.liveRunLocked(id)
	if err != nil {
		l.mu.Unlock()
		return err
	}
	if run.paused == pause {
		l.mu.Unlock()
		return nil
	}
	sig := syscall.SIGCONT
	if pause {
		sig = syscall.SIGSTOP
	}
	if err := syscall.Kill(-run.pid, sig); err != nil {
		l.mu.Unlock()
		return &SpawnError{ID: id, Op: "signal " + sig.String(), Err: err}
	}
	run.paused = pause
	pid, done := run.pid, run.done
	l.mu.Unlock()
	return awaitStopped(ctx, pid, pause, done)
}

// Health reports the unit's state; the Readiness probe is asked outside the lock.
func (l *Local) Health(ctx context.Context, id UnitID) (Status, error) {
	l.mu.Lock()
	u, err := l.unitLocked(id)
	if err != nil {
		l.mu.Unlock()
		return Status{}, err
	}
	st := Status{ID: id}
	run := u.run
	switch {
	case run == nil:
		st.Health = Provisioned
	case run.ended():
		st.Health = Exited
		if run.stopRequested {
			st.Health = Stopped
		}
		ex := run.exit
		st.Exit = &ex
	case run.paused:
		st.Health, st.PID = Paused, run.pid
	default:
		st.Health, st.PID = Starting, run.pid
	}
	l.mu.Unlock()
	if st.Health == Starting && l.opts.Readiness != nil && l.opts.Readiness(ctx, id) {
		st.Health = Connected
	}
	return st, nil
}

// Wait blocks until the current run ends and returns its exit.
func (l *Local) Wait(ctx context.Context, id UnitID) (Exit, error) {
	l.mu.Lock()
	u, err := l.unitLocked(id)
	if err != nil {
		l.mu.Unlock()
		return Exit{}, err
	}
	run := u.run
	l.mu.Unlock()
	if run == nil {
		return Exit{}, notRunning(id)
	}
	select {
	case <-run.done:
		l.mu.Lock()
		defer l.mu.Unlock()
		return run.exit, nil
	case <-ctx.Done():
		return Exit{}, ctx.Err()
	}
}

// List reports every provisioned unit, sorted by ID.
func (l *Local) List(ctx context.Context) ([]Status, error) {
	return listUnits(ctx, &l.mu, l.units, l.Health)
}

// Logs returns the unit's in-memory tail (kept across restarts, bounded by LogLines).
func (l *Local) Logs(ctx context.Context, id UnitID, tail int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	u, err := l.unitLocked(id)
	l.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return u.tail.Lines(tail), nil
}

// Remove kills the unit's process group if it is live, waits for the exit, and forgets the unit.
// Its log file stays.
func (l *Local) Remove(ctx context.Context, id UnitID) error {
	l.mu.Lock()
	u, err := l.unitLocked(id)
	if err != nil {
		l.mu.Unlock()
		return err
	}
	run := u.run
	if run != nil && !run.ended() {
		run.stopRequested = true
		_ = syscall.Kill(-run.pid, syscall.SIGKILL)
	}
	l.mu.Unlock()
	if run != nil {
		select {
		case <-run.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	l.mu.Lock()
	if l.units[id] == u {
		delete(l.units, id)
	}
	l.mu.Unlock()
	return nil
}

// Close kills every live unit's process group and waits for every goroutine the adapter started.
// Later calls fail with ErrClosed.
func (l *Local) Close() error {
	l.mu.Lock()
	l.closed = true
	for _, u := range l.units {
		if u.run != nil && !u.run.ended() {
			u.run.stopRequested = true
			_ = syscall.Kill(-u.run.pid, syscall.SIGKILL)
		}
	}
	l.mu.Unlock()
	l.wg.Wait()
	return nil
}

func (l *Local) unitLocked(id UnitID) (*localUnit, error) {
	if l.closed {
		return nil, ErrClosed
	}
	u, ok := l.units[id]
	if !ok {
		return nil, notFound(id)
	}
	return u, nil
}

func (l *Local) liveRunLocked(id UnitID) (*localRun, error) {
	u, err := l.unitLocked(id)
	if err != nil {
		return nil, err
	}
	if u.run == nil || u.run.ended() {
		return nil, notRunning(id)
	}
	return u.run, nil
}

func closeIfSet(f *os.File) {
	if f != nil {
		f.Close()
	}
}
