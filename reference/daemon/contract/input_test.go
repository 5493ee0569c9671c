package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// startedTurn sets up an Executor for the script and starts its Turn on the fake clock.
func startedTurn(t *testing.T, fake *clock.Fake, script string) harness.Turn {
	t.Helper()
	h := contract.New(fake, proto.AgentKindCapabilities{})
	e, err := h.NewExecutor(context.Background(), &proto.PromptRequestPayload{AgentOptions: json.RawMessage(`{"contract":` + script + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := e.Start(context.Background(), "run-1", proto.TextInput("hi"))
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

// startTurn is startedTurn for the input tests: the Turn takes input, and is cancelled at cleanup.
func startTurn(t *testing.T, fake *clock.Fake, script string) harness.Steerable {
	t.Helper()
	turn := startedTurn(t, fake, script)
	t.Cleanup(func() { _, _ = turn.Cancel(context.Background()) })
	return turn.(harness.Steerable)
}

// write runs WriteInput in a goroutine, advances the fake clock by step once the write waits on it,
// and returns what the write returned.
func write(t *testing.T, fake *clock.Fake, turn harness.Steerable, ctx context.Context, id string, step time.Duration) (<-chan error, error) {
	t.Helper()
	type result struct {
		v   <-chan error
		err error
	}
	res := make(chan result, 1)
	go func() {
		v, err := turn.WriteInput(ctx, id, proto.TextInput("more"))
		res <- result{v, err}
	}()
	if step > 0 {
		fake.AdvanceWhenDue(step, time.Second) // the write's own timer
	}
	r := <-res
	return r.v, r.err
}

// TestWriteInputFollowsTheScript pins docs/contract-harness.md §3.2 member by member.
func TestWriteInputFollowsTheScript(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the Turns' own cleanups
	fake := clock.NewFake()
	turn := startTurn(t, fake, `{"turn":{"wait_for_cancel":true,"input":{"default":{"write_ms":100,"accept_ms":50},
		"by_id":{"rej":{"reject":true},"broken":{"write_fails":true},"late":{"reject_late":true},"never":{"no_accept":true}}}}}`)

	start := fake.Now()
	verdict, err := write(t, fake, turn, context.Background(), "1", 100*time.Millisecond)
	if err != nil || fake.Now().Sub(start) != 100*time.Millisecond {
		t.Fatalf("write 1: %v after %v, want nil after write_ms 100ms", err, fake.Now().Sub(start))
	}
	fake.AdvanceWhenDue(50*time.Millisecond, time.Second)
	if err := <-verdict; err != nil {
		t.Errorf("verdict of 1: %v, want consumed (nil) after accept_ms", err)
	}
	if _, err := turn.WriteInput(context.Background(), "rej", nil); !errors.Is(err, harness.ErrInputRejected) {
		t.Errorf("reject: %v", err)
	}
	if _, err := write(t, fake, turn, context.Background(), "broken", 0); err == nil || errors.Is(err, harness.ErrInputRejected) {
		t.Errorf("write_fails: %v, want a broken write", err)
	}
	verdict, err = write(t, fake, turn, context.Background(), "late", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-verdict; !errors.Is(err, harness.ErrInputRejected) {
		t.Errorf("reject_late: verdict %v", err)
	}
	verdict, err = write(t, fake, turn, context.Background(), "never", 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-verdict:
		t.Fatalf("no_accept: verdict %v before the Turn settled", v)
	default:
	}
	go func() { _, _ = turn.(harness.Turn).Cancel(context.Background()) }()
	if err := <-verdict; !errors.Is(err, harness.ErrInputNotConsumed) {
		t.Errorf("no_accept after settlement: %v", err)
	}
}

func TestWriteInputHangsUntilItsBound(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the Turns' own cleanups
	fake := clock.NewFake()
	turn := startTurn(t, fake, `{"turn":{"wait_for_cancel":true,"input":{"default":{"write_hangs":true}}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { _, err := turn.WriteInput(ctx, "1", nil); res <- err }()
	fake.Advance(time.Hour)
	cancel()
	// Only the context ends it: an hour of clock later it has not completed.
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Errorf("write_hangs: %v, want the context's end", err)
	}
}

func TestWriteInputNotReadyAndUnimplemented(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the Turns' own cleanups
	fake := clock.NewFake()
	turn := startTurn(t, fake, `{"turn":{"wait_for_cancel":true,"input":{"ready_ms":300}}}`)
	if _, err := turn.WriteInput(context.Background(), "1", nil); !errors.Is(err, harness.ErrInputNotReady) {
		t.Errorf("before ready_ms: %v", err)
	}
	fake.Advance(300 * time.Millisecond)
	if _, err := turn.WriteInput(context.Background(), "1", nil); err != nil {
		t.Errorf("at ready_ms: %v", err)
	}
	off := startTurn(t, fake, `{"turn":{"wait_for_cancel":true,"input":{"unimplemented":true}}}`)
	if _, err := off.WriteInput(context.Background(), "1", nil); !errors.Is(err, harness.ErrInputUnimplemented) {
		t.Errorf("unimplemented: %v", err)
	}
}
