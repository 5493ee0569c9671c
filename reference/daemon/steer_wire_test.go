package daemon_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// stubbornHarness is the contract Harness whose native input writes ignore their bound: they
// return only when the test closes release. The contract Harness cannot script that (its writes
// honour the Runtime's 10 s), and only such a write shows the cap on the wait before done.
type stubbornHarness struct {
	*contract.Harness
	release chan struct{}
}

func (h stubbornHarness) NewExecutor(ctx context.Context, cfg *proto.PromptRequestPayload) (harness.Executor, error) {
	e, err := h.Harness.NewExecutor(ctx, cfg)
	if e == nil {
		return nil, err
	}
	return stubbornExecutor{e, h.release}, err
}

type stubbornExecutor struct {
	harness.Executor
	release chan struct{}
}

func (e stubbornExecutor) Start(ctx context.Context, runID string, in proto.MessageInput) (harness.Turn, error) {
	t, err := e.Executor.Start(ctx, runID, in)
	if t == nil {
		return nil, err
	}
	return stubbornTurn{t, e.release}, err
}

type stubbornTurn struct {
	harness.Turn
	release chan struct{}
}

func (t stubbornTurn) WriteInput(ctx context.Context, _ string, _ proto.MessageInput) (<-chan error, error) {
	clock.Armed(ctx) // it waits for the test, not for the clock
	<-t.release
	return nil, harness.ErrInputRejected
}

// TestDoneWaitsAtMost15sForTheInputInFlight (IN-19): a Turn that settles while its input's native
// write hangs, even past the write's own bound, holds done for 15 s and no longer.
func TestDoneWaitsAtMost15sForTheInputInFlight(t *testing.T) {
	fake := clock.NewFake()
	release := make(chan struct{})
	defer close(release) // before the stub stops the daemon: shutdown waits for the write
	// An hour between heartbeats: the only timers are the Turn's, the write's bound and the wait.
	s := startDaemonWith(t, fake, stubbornHarness{contract.New(fake, daemon.ContractCapabilities()), release}, 3600)
	script := map[string]any{"turn": map[string]any{"events": []any{map[string]any{"delta": "go"}, map[string]any{"delay_ms": 100}}, "content": "finished"}}
	s.send(proto.TypePromptRequest, "run-1", map[string]any{"agent_kind": "contract", "input": helloInput, "strict_resume": true,
		"disable_execution_environment": true, "agent_options": map[string]any{"contract": script}})
	if f := s.next(); f.env.Type != proto.TypeDelta {
		t.Fatalf("first frame %s %s, want the delta", f.env.Type, f.env.Payload)
	}
	s.send(proto.TypePromptSteer, "run-1", map[string]any{"input_id": "1", "input": helloInput, "durable_receipt": true})
	// Armed: the heartbeat, the Turn's 100 ms and the write's 10 s bound.
	waitPending(t, fake, 3)
	fake.Advance(100 * time.Millisecond) // the Turn settles; the write hangs
	waitPending(t, fake, 3)              // the 100 ms went, the wait before done came
	// The write's bound passes; the write ignores it, so no receipt ends the wait.
	fake.Advance(proto.NativeWriteTimeout - 100*time.Millisecond)
	fake.Advance(100*time.Millisecond + proto.InFlightInputWait - proto.NativeWriteTimeout - time.Millisecond)
	select {
	case f := <-s.frames:
		t.Fatalf("%s %s before the wait ran out", f.env.Type, f.env.Payload)
	default:
	}
	fake.Advance(time.Millisecond)
	f := s.next()
	if f.env.Type != proto.TypeDone {
		t.Fatalf("after 15 s: %s %s, want done", f.env.Type, f.env.Payload)
	}
	var done proto.DonePayload
	if err := json.Unmarshal(f.env.Payload, &done); err != nil || done.Content != "finished" {
		t.Fatalf("done %s", f.env.Payload)
	}
}

// waitPending waits (at most stubWait of real time) until n timers are armed on the fake clock.
func waitPending(t *testing.T, fake *clock.Fake, n int) {
	t.Helper()
	giveUp := time.After(stubWait)
	for {
		changed := fake.Changed()
		if fake.Pending() >= n {
			return
		}
		select {
		case <-changed:
		case <-giveUp:
			t.Fatalf("%d timers armed, want %d", fake.Pending(), n)
		}
	}
}
