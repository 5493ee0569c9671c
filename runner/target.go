package runner

import (
	"context"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedcore"
)

// Target is the Runtime under test: what runner launches, once per scenario, for the scripted
// Core to play against.
type Target interface {
	// Describe names the target for reports ("reference Runtime (in process)", "command: …").
	Describe() string
	// Launch starts a Runtime that connects to c.ServerURL as c.DeviceID with c.Credential. A
	// Runtime that implements Clocked brings the clock advance steps move.
	Launch(ctx context.Context, c Connect) (Runtime, error)
	// Remote reports whether the Runtime runs in another process, in real time: its version cannot
	// be changed (the scripted Core shifts its own), and advance steps wait.
	Remote() bool
}

// Connect is what a launched Runtime is given: where Core is and who to present itself as.
type Connect struct {
	ServerURL  string // the Core's API base, ending in /api/v1
	DeviceID   string
	Credential string // reaches a daemon by environment only
}

// Runtime is one launched Runtime under test.
type Runtime interface {
	// Done is closed once the Runtime has stopped on its own (nil if it cannot tell).
	Done() <-chan struct{}
	// Stop ends it and releases everything it holds.
	Stop(ctx context.Context) error
}

// Clocked is implemented by a launched Runtime that brings its own (virtual) clock: advance and
// settle steps move it instead of waiting on the wall clock.
type Clocked interface{ Clock() clock.Advancer }

// Exited is implemented by a launched Runtime that can say why it stopped (an exit code, a
// signal, its last output), for failures such as "the Runtime exited before connecting".
type Exited interface{ ExitReason() string }

// Credentialed is implemented by a Target that hands every daemon the same run credential: the
// scripted Core then expects that one.
type Credentialed interface{ RunCredential() string }

// Reporter is implemented by a launched Runtime that leaves a record of how it ran (its exit and
// the tail of its output), kept with the scenario's result once it has stopped.
type Reporter interface{ Report() scenarios.Daemon }

// scripted adapts a Target to the scripted Core's launch function.
func scripted(t Target) scriptedcore.Launch {
	return func(ctx context.Context, c scriptedcore.Connect, _ scriptedcore.View) (scriptedcore.Runtime, error) {
		return t.Launch(ctx, Connect(c))
	}
}
