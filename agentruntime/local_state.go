//go:build linux

package agentruntime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// stateRecord is what the local adapter writes to StateDir for each live unit: enough for a later
// supervisor to find the unit's process group and to tell it from an unrelated one.
type stateRecord struct {
	Unit       UnitID            `json:"unit"`
	RunID      string            `json:"run_id,omitempty"`
	PID        int               `json:"pid"`
	PGID       int               `json:"pgid"`
	StartTicks uint64            `json:"start_ticks"`
	Command    string            `json:"command"`
	Labels     map[string]string `json:"labels,omitempty"`
	StartedAt  time.Time         `json:"started_at"`
}

const stateSuffix = ".unit.json"

// writeState records a just-started unit; it returns the file's path ("" without a StateDir).
func (l *Local) writeState(spec UnitSpec, pid int, command string) (string, error) {
	if l.opts.StateDir == "" {
		return "", nil
	}
	p, err := readProc(pid)
	if err != nil {
		return "", err
	}
	rec := stateRecord{Unit: spec.ID, RunID: l.opts.RunID, PID: pid, PGID: pid, StartTicks: p.startTicks,
		Command: command, Labels: spec.Labels, StartedAt: time.Now().UTC()}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(l.opts.StateDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(l.opts.StateDir, string(spec.ID)+stateSuffix)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// Recover reaps what earlier supervisors left: for each record in StateDir whose process group
// still has members, it kills the group with SIGKILL and waits for it to be gone. A local process
// cannot be re-adopted (its output pipe died with the supervisor that held it), so the answer is
// always [Ephemeral], listing what was reaped. Without a StateDir there is nothing to read and the
// answer is an Ephemeral with nothing reaped: earlier units, if any, are unknowable.
//
// A group is reaped only if it is provably the recorded one: no member started before the
// recorded leader, and if a process with the leader's PID exists it has the recorded start time.
// Units this adapter is running itself are left alone.
func (l *Local) Recover(ctx context.Context) (Recovered, error) {
	if l.opts.StateDir == "" {
		return Ephemeral{}, nil
	}
	entries, err := os.ReadDir(l.opts.StateDir)
	if errors.Is(err, os.ErrNotExist) {
		return Ephemeral{}, nil
	}
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrClosed
	}
	mine := map[int]bool{}
	for _, u := range l.units {
		if u.run != nil && !u.run.ended() {
			mine[u.run.pid] = true
		}
	}
	l.mu.Unlock()

	var reaped []Orphan
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), stateSuffix) {
			continue
		}
		path := filepath.Join(l.opts.StateDir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var rec stateRecord
		if err := json.Unmarshal(b, &rec); err != nil || rec.PGID <= 1 {
			l.log.Warn("unreadable state file left in place", "path", path, "err", err)
			continue
		}
		if mine[rec.PID] {
			continue
		}
		pids, err := reapGroup(ctx, rec)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			l.log.Warn("orphan not reaped", "unit", rec.Unit, "run", rec.RunID, "pgid", rec.PGID, "err", err)
		}
		if len(pids) > 0 {
			reaped = append(reaped, Orphan{ID: rec.Unit, RunID: rec.RunID, PGID: rec.PGID, PIDs: pids})
			l.log.Info("reaped orphan", "unit", rec.Unit, "run", rec.RunID, "pgid", rec.PGID, "pids", pids)
		}
		if err == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	return Ephemeral{Reaped: reaped}, nil
}

// reapGroup kills what is left of the recorded process group and waits until it is gone.
// It returns the PIDs it killed. An error means the group was left alone (not provably ours) or
// did not die in time.
func reapGroup(ctx context.Context, rec stateRecord) ([]int, error) {
	members, err := groupMembers(rec.PGID)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, m := range members {
		if m.pid == rec.PID && m.startTicks != rec.StartTicks {
			return nil, fmt.Errorf("process %d is not the recorded leader (it started later): "+
				"the group id was reused", m.pid)
		}
		if m.startTicks < rec.StartTicks {
			return nil, fmt.Errorf("process %d of group %d started before the recorded leader: "+
				"not the recorded group", m.pid, rec.PGID)
		}
		pids = append(pids, m.pid)
	}
	if len(pids) == 0 {
		return nil, nil
	}
	slices.Sort(pids)
	if err := syscall.Kill(-rec.PGID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return nil, err
	}
	// The members are not our children, so there is nothing to wait(2) for: watch /proc instead.
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		left, err := groupMembers(rec.PGID)
		if err != nil {
			return pids, err
		}
		if len(left) == 0 {
			return pids, nil
		}
		select {
		case <-ctx.Done():
			return pids, fmt.Errorf("group %d still has %d processes after SIGKILL: %w", rec.PGID, len(left), ctx.Err())
		case <-tick.C:
		}
	}
}
