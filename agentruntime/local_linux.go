package agentruntime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// unitSysProcAttr puts the daemon in a process group of its own (so signals reach everything it
// spawned) and has the kernel SIGKILL it when the supervisor dies.
//
// Pdeathsig fires when the thread that forked the child exits, not the process. The Go runtime
// only ends a thread when a goroutine exits while locked to it (runtime.LockOSThread); a
// supervisor that does that could see its units killed early.
func unitSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// procInfo is what /proc/PID/stat says about a process.
type procInfo struct {
	pid        int
	state      byte // R, S, D, T, t, Z, X, ...
	pgrp       int
	startTicks uint64 // start time after boot, in clock ticks
}

// readProc parses /proc/PID/stat. The command name may contain spaces and parentheses, so fields
// are counted from the last ')'.
func readProc(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	// After the name: state(3) ppid(4) pgrp(5) ... starttime(22), so index = field number - 3.
	if len(f) < 20 {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: pgrp: %w", pid, err)
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return procInfo{}, fmt.Errorf("/proc/%d/stat: starttime: %w", pid, err)
	}
	return procInfo{pid: pid, state: f[0][0], pgrp: pgrp, startTicks: start}, nil
}

// groupMembers lists the processes of process group pgid that are not yet dead (zombies and
// dead tasks are left out: they hold nothing and cannot be killed again).
func groupMembers(pgid int) ([]procInfo, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []procInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, err := readProc(pid)
		if err != nil || p.pgrp != pgid || p.state == 'Z' || p.state == 'X' {
			continue // gone meanwhile, another group, or dead
		}
		out = append(out, p)
	}
	return out, nil
}

// awaitStopped polls /proc until pid is stopped (stopped=true) or no longer stopped, the run ends,
// or ctx ends. Signals are delivered asynchronously; this makes Pause and Resume return only once
// they hold.
func awaitStopped(ctx context.Context, pid int, stopped bool, done <-chan struct{}) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		p, err := readProc(pid)
		if err != nil {
			return nil // gone: the waiter records the exit
		}
		if isStopped := p.state == 'T' || p.state == 't'; isStopped == stopped {
			return nil
		}
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
