package daemon_test

import (
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// TestAdmissionCyclesDoNotAccumulateGoroutines: preparing and releasing the same Session's Executor
// over and over on one connection must not grow the daemon's goroutines. Today every cycle leaves
// two goroutines parked until the connection ends: expireWhenDue (admission.go) waits on the
// admission's expiry timer, which release stops (advanceLocked → expiry.Stop) without waking it, and
// the goroutine idleLocked (executors.go) starts waits on the idle timer, which the next prepare
// stops (byStateKeyLocked path: e.idleTimer.Stop()) without waking it. A stopped clock.Timer never
// fires, so both select on t.C() until r.ctx is cancelled: on a long-lived connection the daemon
// grows by two goroutines (and two timers' worth of memory) per admission, without bound.
func TestAdmissionCyclesDoNotAccumulateGoroutines(t *testing.T) {
	verifyNoLeaks(t)
	s := startDaemon(t)
	var seq int
	cycle := func() {
		ready := s.prepare(&seq, "s1", map[string]any{})
		s.send(proto.TypeExecutionRelease, fmt.Sprintf("prepare-%d", seq), map[string]any{"handle": ready.Handle})
		s.until("released", isStatus(proto.StateReleased))
	}
	cycle()
	before := goruntime.NumGoroutine()
	const cycles = 200
	for range cycles {
		cycle()
	}
	if grown := goruntime.NumGoroutine() - before; grown > 20 {
		t.Fatalf("%d prepare/release cycles on one connection grew the process by %d goroutines", cycles, grown)
	}
}
