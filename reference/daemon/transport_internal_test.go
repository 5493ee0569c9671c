package daemon

import (
	"testing"

	"github.com/wirecheck/wirecheck/clock"
)

// On a virtual clock the handshake timeout is the clock's (dial); the transport's wall-clock guard
// is then a safety net a starved process cannot reach first (a 10 s guard gave a stalled upgrade
// up "before 9 s" at a load average of 50). On the wall clock the guard is the timeout itself.
func TestHandshakeGuardFollowsTheClock(t *testing.T) {
	virtual := &Daemon{cfg: Config{Clock: clock.NewFake()}}
	if g := virtual.client().HandshakeGuard; g != virtualHandshakeGuard {
		t.Errorf("virtual clock: guard %v; want %v", g, virtualHandshakeGuard)
	}
	wall := &Daemon{cfg: Config{Clock: clock.Real()}}
	if g := wall.client().HandshakeGuard; g != 0 {
		t.Errorf("wall clock: guard %v; want 0 (the transport's default, proto.HandshakeTimeout)", g)
	}
}
