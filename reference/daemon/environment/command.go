package environment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/wirecheck/wirecheck/clock"
)

// Result is how a setup command ended.
type Result int

const (
	Exited      Result = iota // it exited on its own: ExitCode is its status (0 success)
	NotStarted                // it could not start (cwd missing or unsafe): nothing ran
	Unconfirmed               // killed by a signal, stopped at the bound, or could not tell
)

// CommandOutcome is the outcome of one setup command.
type CommandOutcome struct {
	Result   Result
	ExitCode int
	Err      error
}

// Shell runs setup commands.
const Shell = "/bin/sh"

// CanRunSetup reports whether setup commands can run here: the shell exists and is executable.
func CanRunSetup() bool {
	fi, err := os.Stat(Shell)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// BasePath is the PATH a setup command starts with, before the configured environment.
const BasePath = "/usr/local/bin:/usr/bin:/bin"

// RunSetup runs command with /bin/sh -c in the logical directory cwd ("" is /workspace), with the
// environment PATH=BasePath, HOME=the workspace directory, then the configured environment on top.
// It is bounded by bound on c: at the bound (or when ctx ends) the whole process group is killed
// and the outcome is Unconfirmed.
func (e *Environment) RunSetup(ctx context.Context, c clock.Clock, bound time.Duration, cwd, command string) CommandOutcome {
	if cwd == "" {
		cwd = Workspace
	}
	rel, err := Resolve(cwd)
	if err == nil && !e.DirectoryExists(cwd) {
		err = fmt.Errorf("%w: setup cwd %s is not a directory (or sits under a symlink)", ErrUnsafe, cwd)
	}
	if err != nil {
		return CommandOutcome{Result: NotStarted, Err: err}
	}
	env, err := e.Env()
	if err != nil {
		return CommandOutcome{Result: NotStarted, Err: err}
	}
	vars := map[string]string{"PATH": BasePath, "HOME": e.WorkspaceDir()}
	maps.Copy(vars, env)
	cmd := exec.Command(Shell, "-c", command)
	cmd.Dir = e.dir + "/" + rel
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		cmd.Env = append(cmd.Env, k+"="+vars[k])
	}
	if err := cmd.Start(); err != nil {
		return CommandOutcome{Result: NotStarted, Err: err}
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	t := c.NewTimer(bound)
	defer t.Stop()
	select {
	case err := <-waited:
		return classify(err)
	case <-t.C():
	case <-ctx.Done():
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-waited
	return CommandOutcome{Result: Unconfirmed, Err: errors.New("environment: the setup command reached its bound and was killed")}
}

func classify(err error) CommandOutcome {
	if err == nil {
		return CommandOutcome{Result: Exited}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Exited() {
			return CommandOutcome{Result: Exited, ExitCode: ws.ExitStatus()}
		}
		return CommandOutcome{Result: Unconfirmed, Err: fmt.Errorf("environment: the setup command was killed: %w", err)}
	}
	return CommandOutcome{Result: Unconfirmed, Err: err}
}

func randomSuffix() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
