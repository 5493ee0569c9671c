package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Transcript events ChildRuntime adds after the scripted Core's own.
const (
	// EventChildExit notes how the child process ended: "exit code N", "exit code N after SIGTERM"
	// or "killed after SIGTERM was ignored for ...".
	EventChildExit = "child-exit"
	// EventChildOutput holds what the child wrote on stdout and stderr.
	EventChildOutput = "child-output"
)

// CredentialEnv is the environment variable that carries the daemon credential to the child.
const CredentialEnv = "WIRECHECK_CREDENTIAL"

// childStopGrace is how long a child has after SIGTERM to settle its native work and exit before
// it is killed. The contract scripts of the catalog settle within a few hundred milliseconds.
const childStopGrace = 2 * time.Second

// childOutputLimit bounds how much of a child's output is kept.
const childOutputLimit = 1 << 20

// ChildRuntime plays sc with scriptedcore against `binary runtime` running as a child process, in
// real time: `advance` steps wait on the wall clock, and the contract Turn's scripted delays really
// elapse. The child gets the credential in WIRECHECK_CREDENTIAL and nothing else of the caller's
// environment, runs in its own process group, and is stopped with SIGTERM (then SIGKILL if it
// overstays). When ChildRuntime returns, no process of that group is left; one that was is killed
// and fails the run. The child's exit and output are appended to the transcript as EventChildExit
// and EventChildOutput.
func ChildRuntime(ctx context.Context, sc *scenarios.Scenario, seed, binary string) *scenarios.Result {
	var (
		mu    sync.Mutex
		procs []*childProcess
	)
	launch := func(_ context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		p, err := startChildProcess(binary, c)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		procs = append(procs, p)
		mu.Unlock()
		return p, nil
	}
	cfg := scriptedcore.Config{ShiftVersion: true, Clock: clock.RealAdvancer(), Seed: seed}
	if sc.HasFaults() {
		relay := &runner.Relay{Seed: seed}
		defer relay.Close()
		cfg.Faults = relay
		launch = runner.Relayed(relay, launch)
	}
	res := scriptedcore.Play(ctx, sc, cfg, launch)
	mu.Lock()
	defer mu.Unlock()
	for _, p := range procs {
		// Play stops what it launched; this is the backstop for a path that did not.
		stopCtx, cancel := context.WithTimeout(context.Background(), 2*childStopGrace)
		_ = p.Stop(stopCtx)
		cancel()
		at := res.Duration
		res.Transcript = append(res.Transcript,
			scenarios.Exchange{At: at, Dir: scenarios.Event, Type: EventChildExit, Note: p.exitNote()},
			scenarios.Exchange{At: at, Dir: scenarios.Event, Type: EventChildOutput, Note: p.output.String()})
		if left := p.leftBehind; left != "" && res.Verdict == scenarios.Pass {
			res.Verdict = scenarios.Fail
			res.Failure = &scenarios.Failure{Message: "processes of the Runtime's process group outlived it and were killed: " + left}
		}
	}
	return res
}

// ChildExitCode finds the child's exit code in a ChildRuntime result; ok is false when the child
// never ran or did not exit by itself or on SIGTERM (it was killed).
func ChildExitCode(r *scenarios.Result) (code int, afterSIGTERM, ok bool) {
	for _, x := range r.Transcript {
		if x.Dir != scenarios.Event || x.Type != EventChildExit {
			continue
		}
		if _, err := fmt.Sscanf(x.Note, "exit code %d", &code); err != nil {
			return 0, false, false
		}
		return code, strings.HasSuffix(x.Note, "after SIGTERM"), true
	}
	return 0, false, false
}

// childProcess is one `wirecheck runtime` process, the leader of its own process group.
type childProcess struct {
	cmd    *exec.Cmd
	pgid   int
	output cappedBuffer
	done   chan struct{} // closed once the process exited and was reaped

	mu         sync.Mutex
	signalled  bool   // SIGTERM was sent
	killed     string // why SIGKILL was sent ("" if it was not)
	leftBehind string // group members found alive after the leader exited
}

func startChildProcess(binary string, c scriptedcore.Connect) (*childProcess, error) {
	p := &childProcess{done: make(chan struct{})}
	cmd := exec.Command(binary, "runtime", "--server", c.ServerURL, "--device", c.DeviceID)
	// An explicit, minimal environment: the credential and nothing of the caller's.
	cmd.Env = []string{CredentialEnv + "=" + c.Credential}
	cmd.Stdout, cmd.Stderr = &p.output, &p.output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s runtime: %w", binary, err)
	}
	p.cmd, p.pgid = cmd, cmd.Process.Pid
	go func() {
		defer close(p.done)
		_ = cmd.Wait()
	}()
	return p, nil
}

// Done is closed when the process has exited.
func (p *childProcess) Done() <-chan struct{} { return p.done }

// Stop sends SIGTERM to the group, waits for the process to settle and exit (bounded by the grace
// period and ctx), then SIGKILLs the group. Whatever of the group outlives the leader is killed.
func (p *childProcess) Stop(ctx context.Context) error {
	select {
	case <-p.done:
	default:
		p.mu.Lock()
		p.signalled = true
		p.mu.Unlock()
		_ = syscall.Kill(-p.pgid, syscall.SIGTERM)
		grace := time.NewTimer(childStopGrace)
		select {
		case <-p.done:
		case <-grace.C:
			p.kill(fmt.Sprintf("SIGTERM was ignored for %v", childStopGrace))
		case <-ctx.Done():
			p.kill("the stop deadline passed after SIGTERM")
		}
		grace.Stop()
	}
	return p.reapGroup()
}

func (p *childProcess) kill(why string) {
	p.mu.Lock()
	p.killed = why
	p.mu.Unlock()
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	<-p.done // SIGKILL cannot be ignored: the wait is short
}

// reapGroup checks that no process of the group is left, and kills any that is.
func (p *childProcess) reapGroup() error {
	if err := syscall.Kill(-p.pgid, 0); errors.Is(err, syscall.ESRCH) {
		return nil
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.leftBehind == "" {
		p.leftBehind = fmt.Sprintf("process group %d", p.pgid)
	}
	return fmt.Errorf("processes of group %d outlived the Runtime and were killed", p.pgid)
}

func (p *childProcess) exitNote() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		return "still running"
	}
	if p.killed != "" {
		return "killed: " + p.killed
	}
	note := fmt.Sprintf("exit code %d", p.cmd.ProcessState.ExitCode())
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		note = "terminated by " + ws.Signal().String()
	}
	if p.signalled {
		note += " after SIGTERM"
	}
	return note
}

// cappedBuffer keeps the first childOutputLimit bytes written to it.
type cappedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := childOutputLimit - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
