package daemon_test

import (
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/wirecheck/wirecheck/proto"
)

// TestAdmissionCyclesDoNotAccumulateGoroutines: preparing and releasing the same Session's Executor
// over and over on one connection must not grow the daemon's goroutines. A stopped clock.Timer
// never fires, so a goroutine that waits on an admission's expiry timer or an idle Executor's
// timer must be woken when the timer is stopped; otherwise a long-lived connection grows by a
// goroutine (and a timer's worth of memory) per admission, without bound.
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
