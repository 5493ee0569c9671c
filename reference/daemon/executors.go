package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// execState is where an Executor is in its life.
type execState int

const (
	execPreparing execState = iota // native setup runs
	execAdmitted                   // a ready admission holds it
	execRunning                    // a Turn runs on it
	execIdle                       // healthy, retained for reuse
	execClosing                    // native close runs
	execInvalid                    // close failed: cleanup unconfirmed, still owned and counted
	execClosed
)

// executor is one native Executor and the Session configuration it was set up for.
type executor struct {
	id          string
	session     string
	stateKey    string
	fingerprint string
	h           harness.Harness
	caps        proto.AgentKindCapabilities // the declaration it was admitted with
	native      harness.Executor
	state       execState
	stopIdle    func()    // cancels the idle expiry of the current idle period
	idleGen     int       // which idle period the expiry belongs to
	idleSinceAD time.Time // when it last went idle: kept only in the mutants build (AD-70.1)
}

func (e *executor) stopIdleLocked() {
	if e.stopIdle != nil {
		e.stopIdle()
		e.stopIdle = nil
	}
}

// counted reports whether the Executor counts against the active capacity of 4: preparing,
// admitted, running and invalid (cleanup unconfirmed), the states protocol-facts §4.3 lists for
// preparation_capacity. A closing Executor is counted in the total of 20 until its close succeeds
// (runtime-protocol: the Runtime "counts closing or uncertain resources until their cleanup
// succeeds"), not as active: otherwise the total could never reach 20 while fewer than 4 are
// active, and executor_capacity (AD-25) would be unreachable.
func (e *executor) counted() bool {
	if e.state == execClosing {
		return mutation.On(mutation.ClosingCountedAsActive)
	}
	switch {
	case e.state == execPreparing && mutation.On(mutation.ADPreparingNotCounted),
		e.state == execRunning && mutation.On(mutation.ADRunningNotCounted),
		e.state == execInvalid && mutation.On(mutation.ADInvalidNotCounted):
		return false
	case e.state == execIdle && mutation.On(mutation.ADIdleCountedActive):
		return true
	}
	return e.state != execIdle && e.state != execClosed
}

func (e *executor) busy() bool {
	if (e.state == execPreparing && mutation.On(mutation.ADPreparingExecutorNotBusy)) ||
		(e.state == execRunning && mutation.On(mutation.ADRunningExecutorNotBusy)) {
		return false
	}
	return e.state == execPreparing || e.state == execAdmitted || e.state == execRunning || e.state == execClosing
}

// fingerprint is the reuse identity of a configuration: everything except what changes per Turn.
func fingerprint(cfg proto.PromptRequestPayload) string {
	cfg.RunID, cfg.Input = "", nil
	if mutation.On(mutation.ADFingerprintIgnoresBinding) {
		cfg.LocalEnvironment, cfg.DisableExecutionEnvironment = nil, false
	}
	if !mutation.On(mutation.FingerprintKeepsPerTurnMembers) {
		cfg.AgentSessionID = ""
		cfg.RequireExistingNativeSession = cfg.RequireExistingNativeSession && mutation.On(mutation.ADFingerprintKeepsRequireExisting)
		cfg.ReleaseOnCompletion = cfg.ReleaseOnCompletion && mutation.On(mutation.ADFingerprintKeepsReleaseOnCompletion)
	}
	raw, _ := json.Marshal(cfg)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// countsLocked returns the active and total Executor counts.
func (r *router) countsLocked() (active, total, idle int) {
	for _, e := range r.executors {
		if e.state == execClosed {
			continue
		}
		total++
		if e.counted() {
			active++
		}
		if e.state == execIdle {
			idle++
		}
	}
	return
}

// byStateKeyLocked returns the live Executor bound to a native state key.
func (r *router) byStateKeyLocked(key string) *executor {
	for _, e := range r.executors {
		if e.stateKey == key && e.state != execClosed {
			return e
		}
	}
	return nil
}

// idleLocked retains a healthy Executor for reuse, bounded by the idle capacity and the idle
// expiry; the oldest idle Executor beyond the capacity is closed.
func (r *router) idleLocked(e *executor) {
	e.state = execIdle
	if mutation.Enabled {
		e.idleSinceAD = r.d.cfg.Clock.Now()
	}
	e.idleGen++
	gen := e.idleGen
	expiry := proto.IdleExecutorExpiry
	if mutation.On(mutation.IdleExecutorNeverExpires) {
		expiry = 1000 * time.Hour
	}
	if mutation.On(mutation.ADIdleExpiryEarly) {
		expiry /= 2
	}
	e.stopIdle = r.afterFunc(expiry, func() {
		r.mu.Lock()
		still := e.state == execIdle && e.idleGen == gen
		r.mu.Unlock()
		if still {
			r.closeExecutor(e)
		}
	})
	if _, _, idle := r.countsLocked(); idle > proto.IdleExecutorCapacity-offByOneAD(mutation.ADSixteenthIdleClosed) && !mutation.On(mutation.ADIdleBeyondCapacityKept) {
		for _, other := range r.executors {
			if other != e && other.state == execIdle {
				other.state = execClosing
				r.goOwned(func() { r.finishClose(other) })
				break
			}
		}
	}
}

// closeExecutor closes an Executor exactly once. A failed close leaves it invalid: cleanup is
// unconfirmed, it stays owned and counted, and it is never reused.
func (r *router) closeExecutor(e *executor) error {
	r.mu.Lock()
	if e.state == execClosing || e.state == execClosed || e.state == execInvalid {
		r.mu.Unlock()
		return nil
	}
	e.state = execClosing
	r.mu.Unlock()
	return r.finishClose(e)
}

func (r *router) finishClose(e *executor) error {
	var err error
	if e.native != nil {
		err = e.native.Close(context.Background())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e.stopIdleLocked()
	if err != nil {
		e.state = execInvalid
		r.d.log.Warn("executor cleanup unconfirmed", "executor", e.id, "err", err)
		return err
	}
	if mutation.On(mutation.ADClosedExecutorStillCounted) {
		e.state, e.stateKey = execClosing, "" // still counted, never found for its Session
		return nil
	}
	e.state = execClosed
	delete(r.executors, e.id)
	return nil
}
