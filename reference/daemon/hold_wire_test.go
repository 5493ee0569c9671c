package daemon_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// pausedHarness is the contract Harness whose Turns stop at the doors of WriteInput, Cancel or
// their end until the test lets them in: a goroutine the scheduler of a loaded machine has not run
// yet.
type pausedHarness struct {
	*contract.Harness
	at      chan string   // receives "write", "cancel" or "end" when a call reaches its door
	proceed chan struct{} // closed to let every call in
	doors   []string      // the calls that stop
}

// door stops a call named in doors until the test lets it in.
func (h pausedHarness) door(call string) {
	if slices.Contains(h.doors, call) {
		h.at <- call
		<-h.proceed
	}
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
	t.h.door("write")
	return t.Turn.WriteInput(ctx, id, in)
}

// Events stops the Turn's end (the close of its events) at the door "end".
func (t pausedTurn) Events() <-chan harness.Event {
	if !slices.Contains(t.h.doors, "end") {
		return t.Turn.Events()
	}
	out := make(chan harness.Event)
	go func() {
		defer close(out)
		for ev := range t.Turn.Events() {
			out <- ev
		}
		t.h.door("end")
	}()
	return out
}

func (t pausedTurn) Cancel(ctx context.Context) (*proto.DonePayload, error) {
	t.h.door("cancel")
	return t.Turn.Cancel(ctx)
}

// startPaused starts a Run of script whose Turn stops at doors (by default WriteInput's and
// Cancel's).
func startPaused(t *testing.T, script map[string]any, doors ...string) (*clock.Fake, *coreStub, pausedHarness) {
	fake := clock.NewFake()
	if len(doors) == 0 {
		doors = []string{"write", "cancel"}
	}
	h := pausedHarness{contract.New(fake, daemon.ContractCapabilities()), make(chan string, 1), make(chan struct{}), doors}
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

// TestAnAdvanceWaitsForTheTurnsEndToBeTakenUp (IN-06.3, the flake of
// input/w32-runtime/completing-run-is-run-inactive through the relay): the advance that wakes a
// Turn into its end returns only once the Runtime has taken the end up, so input Core sends right
// after it finds the Run completing (run_inactive), not still running with a write in flight (busy).
func TestAnAdvanceWaitsForTheTurnsEndToBeTakenUp(t *testing.T) {
	fake, s, h := startPaused(t, map[string]any{"turn": map[string]any{"events": []any{map[string]any{"delay_ms": 1000}},
		"content": "finished", "input": map[string]any{"default": map[string]any{"write_ms": 4000}}}, "reusable": false}, "end")
	overheld := clock.Overheld()
	waitPending(t, fake, 2) // the heartbeat and the Turn's 1 s
	s.send(proto.TypePromptSteer, "run-1", map[string]any{"input_id": "1", "input": helloInput, "durable_receipt": true})
	waitPending(t, fake, 3) // and the write's 4 s
	moved, sent := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sent)
		fake.Advance(1500 * time.Millisecond) // the Turn ends at 1 s; the write goes on
		close(moved)
		s.send(proto.TypePromptSteer, "run-1", map[string]any{"input_id": "2", "input": helloInput, "durable_receipt": true})
	}()
	if at := <-h.at; at != "end" {
		t.Fatalf("%s reached the Turn, want the Runtime taking up the Turn's end", at)
	}
	// The Turn has ended and its events are closed; the Runtime has not seen it yet.
	if fake.Held() != 1 {
		t.Errorf("%d Holds keep the clock while the Runtime has not taken the Turn's end up, want the wake's 1", fake.Held())
	}
	select {
	case <-moved:
		t.Error("the advance returned while the Runtime had not taken the Turn's end up")
	default:
	}
	close(h.proceed)
	<-sent
	f := s.until("the receipt of input 2", func(env proto.Envelope) bool {
		return env.Type == proto.TypePromptSteerAck && strings.Contains(string(env.Payload), `"input_id":"2"`)
	})
	var ack proto.PromptSteerAckPayload
	if err := json.Unmarshal(f.env.Payload, &ack); err != nil || ack.Accepted || ack.ErrorCode != proto.CodeRunInactive {
		t.Fatalf("input 2 answered %s, want accepted:false run_inactive", f.env.Payload)
	}
	fake.Advance(2500 * time.Millisecond) // input 1's write ends, and the held done goes out
	s.until("done", func(env proto.Envelope) bool { return env.Type == proto.TypeDone })
	if n := clock.Overheld() - overheld; n > 0 {
		t.Fatalf("%d advances gave up on a Hold nobody released: the Turn's end was not handed to the Runtime", n)
	}
}
