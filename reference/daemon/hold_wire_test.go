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

// pausedHarness is the contract Harness whose Turns stop at the door of WriteInput and Cancel
// until the test lets them in: a goroutine the scheduler of a loaded machine has not run yet.
type pausedHarness struct {
	*contract.Harness
	at      chan string   // receives "write" or "cancel" when a call reaches the door
	proceed chan struct{} // closed to let every call in
}

func (h pausedHarness) NewExecutor(ctx context.Context, cfg *proto.PromptRequestPayload) (harness.Executor, error) {
	e, err := h.Harness.NewExecutor(ctx, cfg)
	if e == nil {
		return nil, err
	}
	return pausedExecutor{e, h}, err
}

type pausedExecutor struct {
	harness.Executor
	h pausedHarness
}

func (e pausedExecutor) Start(ctx context.Context, runID string, in proto.MessageInput) (harness.Turn, error) {
	t, err := e.Executor.Start(ctx, runID, in)
	if t == nil {
		return nil, err
	}
	return pausedTurn{t.(*contract.Turn), e.h}, err
}

type pausedTurn struct {
	*contract.Turn
	h pausedHarness
}

func (t pausedTurn) WriteInput(ctx context.Context, id string, in proto.MessageInput) (<-chan error, error) {
	t.h.at <- "write"
	<-t.h.proceed
	return t.Turn.WriteInput(ctx, id, in)
}

func (t pausedTurn) Cancel(ctx context.Context) (*proto.DonePayload, error) {
	t.h.at <- "cancel"
	<-t.h.proceed
	return t.Turn.Cancel(ctx)
}

func startPaused(t *testing.T, script map[string]any) (*clock.Fake, *coreStub, pausedHarness) {
	fake := clock.NewFake()
	h := pausedHarness{contract.New(fake, daemon.ContractCapabilities()), make(chan string, 1), make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-h.proceed:
		default:
			close(h.proceed)
		}
	})
	// An hour between heartbeats: the only other timers are the Turn's and the Runtime's bounds.
	s := startDaemonWith(t, fake, h, 3600)
	s.send(proto.TypePromptRequest, "run-1", map[string]any{"agent_kind": "contract", "input": helloInput, "strict_resume": true,
		"disable_execution_environment": true, "agent_options": map[string]any{"contract": script}})
	return fake, s, h
}

// TestAnAdvanceWaitsForTheInputWriteToArm (IN-19.1, the flake of
// input/runtime/done-waits-for-the-input-in-flight at a load average of 27): the native write of a
// prompt_steer arms its timers in a goroutine; an advance that comes before the goroutine runs
// waits for it, so the write's 2 s end where the scenario says, not a step late.
func TestAnAdvanceWaitsForTheInputWriteToArm(t *testing.T) {
	fake, s, h := startPaused(t, map[string]any{"turn": map[string]any{"events": []any{map[string]any{"delta": "go"}, map[string]any{"delay_ms": 1000}},
		"content": "finished", "input": map[string]any{"default": map[string]any{"write_ms": 2000}}}, "reusable": false})
	if f := s.next(); f.env.Type != proto.TypeDelta {
		t.Fatalf("first frame %s %s, want the delta", f.env.Type, f.env.Payload)
	}
	waitPending(t, fake, 2) // the heartbeat and the Turn's 1 s
	s.send(proto.TypePromptSteer, "run-1", map[string]any{"input_id": "1", "input": helloInput, "durable_receipt": true})
	if at := <-h.at; at != "write" {
		t.Fatalf("%s reached the Turn, want the write", at)
	}
	if fake.Held() != 1 {
		t.Fatalf("the write's goroutine has not armed its timers and %d Holds keep the clock", fake.Held())
	}
	advanced := make(chan struct{})
	go func() {
		fake.Advance(time.Second) // the Turn settles; the write goes on
		close(advanced)
	}()
	close(h.proceed)
	<-advanced
	fake.Advance(time.Second) // the write ends at 2 s
	f := s.until("the written receipt", func(env proto.Envelope) bool {
		return env.Type == proto.TypeDone || env.Type == proto.TypePromptSteerAck
	})
	var ack proto.PromptSteerAckPayload
	if f.env.Type != proto.TypePromptSteerAck || json.Unmarshal(f.env.Payload, &ack) != nil || !ack.Written {
		t.Fatalf("%s %s, want prompt_steer_ack written:true before done", f.env.Type, f.env.Payload)
	}
}

// TestAnAdvanceWaitsForTheCancellationToArm (CA-02, the flake of
// cancellation/no-settlement-within-15s-is-cancel-timeout under load): prompt_cancel arms the
// confirmation bound in a goroutine, and the native settlement arms its timer in the Turn's; an
// advance by the settlement's 1 s right after the cancel finds both and settles the Turn.
func TestAnAdvanceWaitsForTheCancellationToArm(t *testing.T) {
	fake, s, h := startPaused(t, map[string]any{"turn": map[string]any{"events": []any{map[string]any{"delta": "go"}}, "wait_for_cancel": true},
		"cancel": map[string]any{"settle_ms": 1000, "outcome": map[string]any{"content": "partial"}}, "reusable": false})
	if f := s.next(); f.env.Type != proto.TypeDelta {
		t.Fatalf("first frame %s %s, want the delta", f.env.Type, f.env.Payload)
	}
	s.send(proto.TypePromptCancel, "run-1", map[string]any{"delivery_id": "c1"})
	if at := <-h.at; at != "cancel" {
		t.Fatalf("%s reached the Turn, want the cancel", at)
	}
	if fake.Held() != 1 {
		t.Fatalf("the cancellation's goroutine has not reached the Turn and %d Holds keep the clock", fake.Held())
	}
	close(h.proceed)
	fake.Advance(time.Second) // the settlement's 1 s, whenever the Turn's goroutine arms it
	f := s.until("done", func(env proto.Envelope) bool { return env.Type == proto.TypeDone })
	if f.env.ID != "run-1" {
		t.Fatalf("done of %q", f.env.ID)
	}
}
