package agentruntime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ContainerOptions configure a [Container] adapter.
type ContainerOptions struct {
	// Engine is the docker or podman binary (a name on PATH or a path). Empty: [DetectEngine].
	Engine string
	// RunID is stamped on every container (label io.wirecheck.run). When set, Recover adopts only
	// containers of this run and skips others as foreign; when empty it adopts every managed one.
	RunID string
	// Allowlist bounds which suite variables a spec may read. Zero value: deny all.
	Allowlist EnvAllowlist
	// LookupEnv reads the suite's environment; os.LookupEnv by default.
	LookupEnv LookupFunc
	// Readiness tells Starting from Connected. Nil: a running container is always Starting.
	Readiness Readiness
	// Logger receives every engine command at debug level (argv only: secret values are never in
	// it) and Recover's warnings. slog.Default() if nil.
	Logger *slog.Logger
}

// Container runs each unit as a container through the docker or podman CLI.
//
// Provision creates the container (`create`, after removing any stale one of the same name), Start
// starts it; labels on the container are the durable record, so a new adapter adopts what the
// engine still holds. Containers are hardened ([DefaultHardening] unless the spec says otherwise)
// and use the host network. Secrets are passed as value-less `-e NAME`: the engine CLI copies
// the value from its own environment, which the adapter sets for that one command. Note that the
// engine keeps the value in the container's configuration (visible to `inspect` on this host).
type Container struct {
	engine  string
	backend string
	opts    ContainerOptions
	lookup  LookupFunc
	log     *slog.Logger
	owner   string // Self as LabelOwner's value; empty if it cannot be told

	mu     sync.Mutex
	units  map[UnitID]*containerUnit
	closed bool
}

type containerUnit struct {
	name string
	// stopped: the suite asked the current run to stop, so its end reads Stopped, not Exited.
	// Kept in memory only: after Recover, an ended container reads Exited.
	stopped bool
	redact  redactor
}

var _ Runtime = (*Container)(nil)

// NewContainer returns a container adapter. It fails when no engine is found.
func NewContainer(ctx context.Context, opts ContainerOptions) (*Container, error) {
	engine := opts.Engine
	var err error
	if engine == "" {
		engine, err = DetectEngine(ctx)
	} else {
		engine, err = exec.LookPath(engine)
	}
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &Container{
		engine:  engine,
		backend: engineName(engine),
		opts:    opts,
		lookup:  lookupOrDefault(opts.LookupEnv),
		log:     log.With("adapter", "container", "engine", engineName(engine)),
		units:   map[UnitID]*containerUnit{},
	}
	if self, err := Self(); err == nil {
		c.owner = self.String()
	} else {
		c.log.Warn("containers will carry no owner label: a killed supervisor's cannot be reaped", "error", err)
	}
	return c, nil
}

// Engine is the path of the engine binary in use.
func (c *Container) Engine() string { return c.engine }

// run executes one engine command. extraEnv (NAME=value) is added to the engine's environment.
func (c *Container) run(ctx context.Context, extraEnv []string, args ...string) (stdout, stderr string, err error) {
	c.log.Debug("engine command", "argv", append([]string{c.backend}, args...))
	cmd := exec.CommandContext(ctx, c.engine, args...)
	cmd.Env = engineEnv(extraEnv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		code := -1
		var xe *exec.ExitError
		if errors.As(err, &xe) {
			code = xe.ExitCode()
		}
		if ctx.Err() != nil {
			err = ctx.Err()
		}
		return out.String(), errb.String(), &EngineError{Args: append([]string{c.backend}, args...),
			Stderr: errb.String(), ExitCode: code, Err: err}
	}
	return out.String(), errb.String(), nil
}

// Provision validates spec, removes any stale container of the same name and creates the unit's
// container (not started). A failure leaves no state behind.
func (c *Container) Provision(ctx context.Context, spec UnitSpec) (UnitID, error) {
	if spec.Image == "" {
		return "", &SpecError{ID: spec.ID, Field: "Image", Reason: "the container adapter needs an image"}
	}
	if err := validateSpec(spec, c.opts.Allowlist); err != nil {
		return "", err
	}
	ln, err := prepareLaunch(spec, c.lookup)
	if err != nil {
		return "", err
	}
	if err := c.checkOpen(); err != nil {
		return "", err
	}
	if _, err := c.unit(spec.ID); err == nil {
		if st, err := c.state(ctx, spec.ID); err == nil && isLive(st) {
			return "", alreadyRunning(spec.ID)
		}
	}
	name := ContainerName(spec.ID)
	if _, _, err := c.run(ctx, nil, "rm", "-f", name); err != nil && !isNoSuchContainer(err) {
		return "", err
	}
	if _, _, err := c.run(ctx, ln.secrets, createArgs(spec, ln, c.opts.RunID, c.owner)...); err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.units[spec.ID] = &containerUnit{name: name, redact: ln.redact}
	return spec.ID, nil
}

func (c *Container) checkOpen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	return nil
}

func (c *Container) unit(id UnitID) (*containerUnit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	u, ok := c.units[id]
	if !ok {
		return nil, notFound(id)
	}
	return u, nil
}

func (c *Container) setStopped(u *containerUnit, v bool) {
	c.mu.Lock()
	u.stopped = v
	c.mu.Unlock()
}

// state inspects the unit's container.
func (c *Container) state(ctx context.Context, id UnitID) (engineState, error) {
	u, err := c.unit(id)
	if err != nil {
		return engineState{}, err
	}
	out, _, err := c.run(ctx, nil, "inspect", "--format", "{{json .State}}", u.name)
	if err != nil {
		return engineState{}, err
	}
	return parseEngineState(out)
}

func isLive(st engineState) bool {
	return st.Status == "running" || st.Status == "paused" || st.Status == "restarting"
}

// Start starts the unit's container.
func (c *Container) Start(ctx context.Context, id UnitID) error {
	st, err := c.state(ctx, id)
	if err != nil {
		return err
	}
	if isLive(st) {
		return alreadyRunning(id)
	}
	u, err := c.unit(id)
	if err != nil {
		return err
	}
	c.setStopped(u, false)
	_, _, err = c.run(ctx, nil, "start", u.name)
	return err
}

// Stop runs `stop -t <grace, in whole seconds rounded up>`: SIGTERM, then SIGKILL after the grace.
// A paused container is unpaused first (engines refuse to stop a paused one).
func (c *Container) Stop(ctx context.Context, id UnitID, grace time.Duration) error {
	st, err := c.state(ctx, id)
	if err != nil {
		return err
	}
	if !isLive(st) {
		return nil
	}
	u, err := c.unit(id)
	if err != nil {
		return err
	}
	c.setStopped(u, true)
	if st.Status == "paused" {
		if _, _, err := c.run(ctx, nil, "unpause", u.name); err != nil {
			return err
		}
	}
	_, _, err = c.run(ctx, nil, "stop", "-t", stopSeconds(grace), u.name)
	return err
}

// Kill runs `kill --signal <number>`.
func (c *Container) Kill(ctx context.Context, id UnitID, sig syscall.Signal) error {
	if sig == syscall.SIGSTOP || sig == syscall.SIGCONT {
		return &UnsupportedError{Op: "kill with " + sig.String(), Backend: c.backend,
			Need: "use Pause and Resume, which keep the unit's health in step"}
	}
	st, err := c.state(ctx, id)
	if err != nil {
		return err
	}
	if !isLive(st) {
		return notRunning(id)
	}
	u, err := c.unit(id)
	if err != nil {
		return err
	}
	_, _, err = c.run(ctx, nil, "kill", "--signal", strconv.Itoa(int(sig)), u.name)
	return err
}

// Restart stops the container (if running) within grace and starts it again.
func (c *Container) Restart(ctx context.Context, id UnitID, grace time.Duration) error {
	if err := c.Stop(ctx, id, grace); err != nil {
		return err
	}
	return c.Start(ctx, id)
}

// Pause runs `pause` (the engine's cgroup freezer). An engine that cannot freeze yields an
// [*UnsupportedError] saying what would have to change.
func (c *Container) Pause(ctx context.Context, id UnitID) error {
	st, err := c.state(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case st.Status == "paused":
		return nil
	case !isLive(st):
		return notRunning(id)
	}
	u, err := c.unit(id)
	if err != nil {
		return err
	}
	_, _, err = c.run(ctx, nil, "pause", u.name)
	return pauseUnsupported(c.backend, err)
}

// Resume runs `unpause`.
func (c *Container) Resume(ctx context.Context, id UnitID) error {
	st, err := c.state(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case !isLive(st):
		return notRunning(id)
	case st.Status != "paused":
		return nil
	}
	u, err := c.unit(id)
	if err != nil {
		return err
	}
	_, _, err = c.run(ctx, nil, "unpause", u.name)
	return err
}

// Health reads the container's state from the engine.
func (c *Container) Health(ctx context.Context, id UnitID) (Status, error) {
	st, err := c.state(ctx, id)
	if err != nil {
		return Status{}, err
	}
	u, err := c.unit(id)
	if err != nil {
		return Status{}, err
	}
	c.mu.Lock()
	stopped := u.stopped
	c.mu.Unlock()
	h, ex, err := st.health(stopped)
	if err != nil {
		return Status{}, err
	}
	out := Status{ID: id, Health: h, Exit: ex}
	if h.Alive() {
		out.PID = st.Pid
	}
	if h == Starting && c.opts.Readiness != nil && c.opts.Readiness(ctx, id) {
		out.Health = Connected
	}
	return out, nil
}

// Wait runs `wait` and then reads the exit from the engine.
func (c *Container) Wait(ctx context.Context, id UnitID) (Exit, error) {
	st, err := c.state(ctx, id)
	if err != nil {
		return Exit{}, err
	}
	if h, _, _ := st.health(false); h == Provisioned {
		return Exit{}, notRunning(id)
	}
	u, err := c.unit(id)
	if err != nil {
		return Exit{}, err
	}
	if _, _, err := c.run(ctx, nil, "wait", u.name); err != nil {
		return Exit{}, err
	}
	st, err = c.state(ctx, id)
	if err != nil {
		return Exit{}, err
	}
	_, ex, err := st.health(false)
	if err != nil {
		return Exit{}, err
	}
	if ex == nil {
		return Exit{}, fmt.Errorf("agentruntime: unit %q: wait returned but the container is %s", id, st.Status)
	}
	return *ex, nil
}

// List reports every unit the adapter manages, sorted by ID.
func (c *Container) List(ctx context.Context) ([]Status, error) {
	return listUnits(ctx, &c.mu, c.units, c.Health)
}

// Logs runs `logs --timestamps [--tail N]`, merges stdout and stderr in time order, and redacts
// secret values. The engine keeps logs after the container exits, and across restarts.
func (c *Container) Logs(ctx context.Context, id UnitID, tail int) ([]string, error) {
	u, err := c.unit(id)
	if err != nil {
		return nil, err
	}
	if tail == 0 {
		return []string{}, nil
	}
	args := []string{"logs", "--timestamps"}
	if tail > 0 {
		args = append(args, "--tail", strconv.Itoa(tail))
	}
	stdout, stderr, err := c.run(ctx, nil, append(args, u.name)...)
	if err != nil {
		return nil, err
	}
	lines := mergeLogStreams(stdout, stderr)
	for i, l := range lines {
		lines[i] = u.redact.apply(l)
	}
	return tailLines(lines, tail), nil
}

// Recover adopts every container carrying the managed label (`ps -a`: stopped ones too, so they
// can still be stopped, restarted, read and removed). Containers with malformed labels, or of
// another run when RunID is set, are skipped with a warning. The answer is always [Adopted].
func (c *Container) Recover(ctx context.Context) (Recovered, error) {
	if err := c.checkOpen(); err != nil {
		return nil, err
	}
	out, _, err := c.run(ctx, nil, "ps", "-a", "--filter", "label="+LabelManaged+"=true", "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	var res Adopted
	for _, name := range splitLines(out) {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		reason := ""
		var rc recoveredContainer
		lo, _, err := c.run(ctx, nil, "inspect", "--format", "{{json .Config.Labels}}", name)
		var labels map[string]string
		switch {
		case isNoSuchContainer(err):
			reason = "vanished during recover"
		case err != nil:
			return nil, err
		case json.Unmarshal([]byte(strings.TrimSpace(lo)), &labels) != nil:
			reason = fmt.Sprintf("malformed: unreadable labels %q", strings.TrimSpace(lo))
		default:
			rc, reason = readLabels(name, labels, c.opts.RunID)
		}
		if reason != "" {
			c.log.Warn("container not adopted", "container", name, "reason", reason)
			res.Skipped = append(res.Skipped, Skipped{Name: name, Reason: reason})
			continue
		}
		c.mu.Lock()
		if u, ok := c.units[rc.id]; ok {
			u.name = ContainerName(rc.id) // already known: adoption is idempotent
		} else {
			c.units[rc.id] = &containerUnit{name: ContainerName(rc.id),
				redact: newRedactor(secretValues(rc.secrets, c.lookup))}
		}
		c.mu.Unlock()
		res.IDs = append(res.IDs, rc.id)
	}
	slices.Sort(res.IDs)
	return res, nil
}

// Remove deletes the unit's container (`rm -f`, which kills it if live) and forgets the unit.
// A container already gone is not an error.
func (c *Container) Remove(ctx context.Context, id UnitID) error {
	u, err := c.unit(id)
	if err != nil {
		return err
	}
	if _, _, err := c.run(ctx, nil, "rm", "-f", u.name); err != nil && !isNoSuchContainer(err) {
		return err
	}
	c.mu.Lock()
	if c.units[id] == u {
		delete(c.units, id)
	}
	c.mu.Unlock()
	return nil
}

// Close marks the adapter closed. It starts no goroutines, so there is nothing to stop; the
// containers are left to the engine on purpose (they outlive the supervisor, and Recover adopts
// them). Remove units to delete them.
func (c *Container) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}
