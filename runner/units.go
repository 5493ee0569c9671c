package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wirecheck/wirecheck/agentruntime"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Units launches the Runtime under test through the AgentRuntime port: a local process
// (agentruntime.Local) or a container image (agentruntime.Container). The daemon gets the Core URL
// and its device ID as {core_url}/{device_id} in its arguments and as WIRECHECK_CORE_URL /
// WIRECHECK_DEVICE_ID, and its credential only in the environment variable CredentialEnv.
type Units struct {
	RT            agentruntime.Runtime
	Command       string            // local: the executable; container: optional command
	Args          []string          // may hold {core_url} and {device_id}
	Image         string            // container image; empty for a local process
	CredentialEnv string            // the variable the daemon reads its credential from
	Credential    string            // this run's credential; reaches the daemon through CredentialEnv only
	Env           map[string]string // set in the daemon's environment (DaemonOptions.Env)
	PassEnv       []string          // passed from the suite's environment (DaemonOptions.PassEnv)
	Grace         time.Duration
	What          string // Describe

	close func() error
}

// DaemonOptions say how Command and Image launch a daemon.
type DaemonOptions struct {
	// CredentialEnv is the variable the daemon reads its credential from; WIRECHECK_CREDENTIAL by
	// default.
	CredentialEnv string
	// Credential is the run's daemon credential (default: a fresh one). It reaches the daemon
	// through CredentialEnv only, never argv or a URL.
	Credential string
	Grace      time.Duration // how long a daemon has to stop after SIGTERM; 5 s by default
	RunID      string        // labels what this run started (containers, state files)
	Engine     string        // Image only: podman or docker; found on PATH by default
	// The daemon's environment holds nothing of the suite's but its credential, unless asked:
	// Env sets variables, PassEnv passes the suite's own (PATH and HOME are what an interpreter
	// installed by a version manager needs). Neither may name the credential's variable, nor
	// WIRECHECK_CORE_URL or WIRECHECK_DEVICE_ID, which the daemon is given.
	Env     map[string]string
	PassEnv []string
}

func (o *DaemonOptions) defaults() {
	if o.CredentialEnv == "" {
		o.CredentialEnv = "WIRECHECK_CREDENTIAL"
	}
	if o.Credential == "" {
		o.Credential = NewCredential()
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
}

// checkEnv refuses an environment that would carry a credential or override what the daemon is
// given, and a passed variable the suite does not have.
func (o *DaemonOptions) checkEnv() error {
	seen := map[string]bool{}
	for _, n := range slices.Concat(slices.Sorted(maps.Keys(o.Env)), o.PassEnv) {
		switch {
		case !envName.MatchString(n):
			return fmt.Errorf("daemon environment: %q is not a variable name", n)
		case n == o.CredentialEnv:
			return fmt.Errorf("daemon environment: %s is the credential's variable; the daemon gets the run's credential there and nothing else may set it", n)
		case n == agentruntime.EnvCoreURL || n == agentruntime.EnvDeviceID:
			return fmt.Errorf("daemon environment: %s is set by wirecheck for every scenario", n)
		case seen[n]:
			return fmt.Errorf("daemon environment: %s is given twice", n)
		}
		seen[n] = true
	}
	for _, n := range o.PassEnv {
		if _, ok := os.LookupEnv(n); !ok {
			return fmt.Errorf("daemon environment: %s is to be passed but is not set in wirecheck's environment", n)
		}
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// allowlist is what the adapter lets a unit read of the suite's environment: the credential and
// the variables asked for.
func (o *DaemonOptions) allowlist() agentruntime.EnvAllowlist {
	return agentruntime.AllowEnv(slices.Concat([]string{o.CredentialEnv}, slices.Collect(maps.Keys(o.Env)), o.PassEnv)...)
}

// Command is a Target that runs cmdline (split like a shell's simple words; {core_url} and
// {device_id} are filled in) as a local process per scenario, in its own process group, with an
// environment built from the allowlist only. Close releases what it started.
func Command(cmdline string, o DaemonOptions) (*Units, error) {
	o.defaults()
	if err := o.checkEnv(); err != nil {
		return nil, err
	}
	argv, err := SplitCommand(cmdline)
	if err != nil {
		return nil, err
	}
	u := &Units{Command: argv[0], Args: argv[1:], CredentialEnv: o.CredentialEnv, Credential: o.Credential,
		Env: o.Env, PassEnv: o.PassEnv, Grace: o.Grace, What: "command: " + cmdline}
	if path, err := filepath.Abs(u.Command); err == nil {
		if _, err := os.Stat(path); err == nil {
			u.Command = path // a file where certify was started, not a name to look up on PATH
		}
	}
	l := agentruntime.NewLocal(agentruntime.LocalOptions{Allowlist: o.allowlist(), LookupEnv: u.Lookup, RunID: o.RunID})
	u.RT, u.close = l, l.Close
	return u, nil
}

// Image is a Target that runs a container image per scenario through podman or docker, hardened
// (read-only root file system, every capability dropped, --network host so it reaches the
// scripted Core on loopback); cmdline, if not empty, is the command inside the container.
func Image(ctx context.Context, image, cmdline string, o DaemonOptions) (*Units, error) {
	o.defaults()
	if err := o.checkEnv(); err != nil {
		return nil, err
	}
	u := &Units{Image: image, CredentialEnv: o.CredentialEnv, Credential: o.Credential, Env: o.Env, PassEnv: o.PassEnv,
		Grace: o.Grace, What: "image: " + image}
	if cmdline != "" {
		argv, err := SplitCommand(cmdline)
		if err != nil {
			return nil, err
		}
		u.Command, u.Args = argv[0], argv[1:]
	}
	c, err := agentruntime.NewContainer(ctx, agentruntime.ContainerOptions{Engine: o.Engine, RunID: o.RunID,
		Allowlist: o.allowlist(), LookupEnv: u.Lookup})
	if err != nil {
		return nil, err
	}
	// A wirecheck killed before it removed its daemons' containers left them running, dialling
	// a Core that is gone: the next run on this host removes them.
	if _, err := c.ReapOrphans(ctx); err != nil {
		return nil, fmt.Errorf("removing the containers a killed wirecheck left running: %w", err)
	}
	u.RT, u.close = c, c.Close
	return u, nil
}

// RunCredential is the credential every daemon of this target gets.
func (u *Units) RunCredential() string { return u.Credential }

// Close stops and forgets every daemon the target still runs.
func (u *Units) Close() error {
	if u.close == nil {
		return nil
	}
	return u.close()
}

func (u *Units) Describe() string { return u.What }
func (u *Units) Remote() bool     { return true }

// Lookup is the LookupEnv the adapter must be built with: it hands the run's credential to the
// daemon under CredentialEnv, the values of Env, and of the suite's environment only PassEnv.
func (u *Units) Lookup(name string) (string, bool) {
	if name == u.CredentialEnv {
		return u.Credential, true
	}
	if v, ok := u.Env[name]; ok {
		return v, true
	}
	if slices.Contains(u.PassEnv, name) {
		return os.LookupEnv(name)
	}
	return "", false
}

// Checker is implemented by a Target that can tell, before the first scenario, whether it can
// launch a daemon at all (certify.Check asks).
type Checker interface {
	Check(ctx context.Context) error
}

// Check tells, before the first scenario, whether a daemon can be launched at all: the command
// resolves to an executable file, or the container engine has the image.
func (u *Units) Check(ctx context.Context) error {
	if u.Image != "" {
		return u.checkImage(ctx)
	}
	if strings.Contains(u.Command, "{") {
		return nil // filled in per launch; its own launch says what is wrong
	}
	if _, err := exec.LookPath(u.Command); err != nil {
		return fmt.Errorf("the daemon command %q is not an executable: %w", u.Command, errors.Unwrap(err))
	}
	return nil
}

func (u *Units) checkImage(ctx context.Context) error {
	c, ok := u.RT.(interface{ Engine() string })
	if !ok {
		return nil
	}
	out, err := exec.CommandContext(ctx, c.Engine(), "image", "inspect", "--format", "{{.Id}}", u.Image).CombinedOutput()
	if err != nil {
		first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
		return fmt.Errorf("the image %s is not in %s's image store (%v: %s)", u.Image, c.Engine(), err, first)
	}
	return nil
}

func (u *Units) Launch(ctx context.Context, c Connect) (Runtime, error) {
	if c.Credential != u.Credential {
		// A handshake scenario launches the daemon with another credential: give that one.
		return u.launchWith(ctx, c, c.Credential)
	}
	return u.launchWith(ctx, c, u.Credential)
}

func (u *Units) launchWith(ctx context.Context, c Connect, credential string) (Runtime, error) {
	spec := agentruntime.UnitSpec{
		ID: agentruntime.UnitID(c.DeviceID), Command: u.Command, Args: u.Args, Image: u.Image,
		CoreURL: c.ServerURL, DeviceID: c.DeviceID,
		Env:       map[string]string{},
		SecretEnv: []string{u.CredentialEnv},
		Labels:    map[string]string{"scenario-device": c.DeviceID},
	}
	// By reference, so Lookup gives each value as written: a set value is never expanded again.
	for _, n := range slices.Concat(slices.Collect(maps.Keys(u.Env)), u.PassEnv) {
		spec.Env[n] = "${" + n + "}"
	}
	if credential != u.Credential {
		// The per-unit credential differs from the run's only in rejection scenarios, where it is
		// wrong on purpose and worthless; it still travels by environment, never argv.
		spec.SecretEnv = nil
		spec.Env[u.CredentialEnv] = credential
	}
	id, err := u.RT.Provision(ctx, spec)
	if err != nil {
		return nil, err
	}
	if err := u.RT.Start(ctx, id); err != nil {
		_ = u.RT.Remove(context.WithoutCancel(ctx), id)
		return nil, err
	}
	unit := &unit{rt: u.RT, id: id, grace: u.Grace, done: make(chan struct{})}
	go unit.wait()
	return unit, nil
}

// unit is one launched daemon.
type unit struct {
	rt     agentruntime.Runtime
	id     agentruntime.UnitID
	grace  time.Duration
	done   chan struct{}
	mu     sync.Mutex
	exit   *agentruntime.Exit
	killed bool     // Stop had to kill it: it did not end on SIGTERM within the grace
	tail   []string // its last output, kept by Stop before the unit is removed
	once   sync.Once
}

func (u *unit) wait() {
	defer close(u.done)
	e, err := u.rt.Wait(context.Background(), u.id)
	if err == nil {
		u.mu.Lock()
		u.exit = &e
		u.mu.Unlock()
	}
}

func (u *unit) Done() <-chan struct{} { return u.done }

// ExitReason says how the daemon ended and what it printed last.
func (u *unit) ExitReason() string {
	u.mu.Lock()
	e := u.exit
	u.mu.Unlock()
	if e == nil {
		return ""
	}
	why := e.String()
	if lines := u.output(exitReasonLines); len(lines) > 0 {
		why += "; last output: " + strings.Join(lines, " | ")
	}
	return why
}

// exitReasonLines is how much of a daemon's last output a failure message quotes; reportLines how
// much a scenario's result keeps.
const (
	exitReasonLines = 5
	reportLines     = 200
)

func (u *unit) output(lines int) []string {
	out, err := u.rt.Logs(context.Background(), u.id, lines)
	if err != nil {
		return nil
	}
	return out
}

// Report is how the daemon ran: read once Stop returned, before the unit is forgotten.
func (u *unit) Report() scenarios.Daemon {
	u.mu.Lock()
	defer u.mu.Unlock()
	d := scenarios.Daemon{Code: -1, Killed: u.killed, Output: u.tail}
	if e := u.exit; e != nil {
		d.Exit, d.Code = e.String(), e.Code
		if e.Signal != 0 {
			d.Code = -1
		}
		if len(e.LeftBehind) > 0 {
			d.LeftBehind = fmt.Sprintf("pids %v", e.LeftBehind)
		}
	}
	return d
}

// Stop stops the daemon (SIGTERM, then SIGKILL after the grace) and forgets it.
func (u *unit) Stop(ctx context.Context) error {
	var err error
	u.once.Do(func() {
		grace := u.grace
		if grace <= 0 {
			grace = 5 * time.Second
		}
		select {
		case <-u.done: // it ended on its own
		default:
			err = u.rt.Stop(ctx, u.id, grace)
			select {
			case <-u.done:
			case <-ctx.Done():
			}
		}
		tail := u.output(reportLines)
		u.mu.Lock()
		u.tail = tail
		u.killed = u.exit != nil && u.exit.Signal == syscall.SIGKILL
		u.mu.Unlock()
		if rerr := u.rt.Remove(context.WithoutCancel(ctx), u.id); rerr != nil && !errors.Is(rerr, agentruntime.ErrNotFound) {
			err = errors.Join(err, rerr)
		}
	})
	return err
}

// SplitCommand splits a command template the way a shell would split simple words: spaces
// separate, single and double quotes group, a backslash escapes the next character.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quote, escaped := false, rune(0), false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped, inWord = false, true
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("command %q: unterminated quote or escape", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, errors.New("empty command")
	}
	return out, nil
}
