package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// eventsOf starts a Turn of the script with or without observe_messages and collects its events.
func eventsOf(t *testing.T, script string, observe bool) []harness.Event {
	t.Helper()
	h := contract.New(clock.NewFake(), proto.AgentKindCapabilities{})
	e, err := h.NewExecutor(context.Background(), &proto.PromptRequestPayload{ObserveMessages: observe,
		AgentOptions: json.RawMessage(`{"contract":` + script + `}`)})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := e.Start(context.Background(), "run-1", proto.TextInput("hi"))
	if err != nil {
		t.Fatal(err)
	}
	var got []harness.Event
	for ev := range turn.Events() {
		got = append(got, ev)
	}
	return got
}

func text(s string) *string { return &s }

// RS-13 (docs/contract-harness.md §13): with observe_messages each run of deltas is one message:
// in_progress, deltas naming it in item_id, completed with the full text; a delay_ms between two
// deltas does not end it, any other step does.
func TestObservedMessagesWrapEachRunOfDeltas(t *testing.T) {
	script := `{"turn":{"events":[{"delta":"a"},{"delay_ms":0},{"delta":"b"},{"thinking":"t"},{"delta":"c"}]}}`
	msg := func(id, status string, txt *string) harness.Event {
		return harness.Event{Type: proto.TypeOutputMessage, Payload: &proto.OutputMessagePayload{ID: id, Status: status, Text: txt}}
	}
	delta := func(item, d string, seq uint64) harness.Event {
		return harness.Event{Type: proto.TypeDelta, Payload: &proto.DeltaPayload{ItemID: item, Delta: d, Sequence: seq}}
	}
	want := []harness.Event{
		msg("run-1-msg-1", "in_progress", nil), delta("run-1-msg-1", "a", 1), delta("run-1-msg-1", "b", 2),
		msg("run-1-msg-1", "completed", text("ab")),
		{Type: proto.TypeThinking, Payload: &proto.ThinkingPayload{Text: "t"}},
		msg("run-1-msg-2", "in_progress", nil), delta("run-1-msg-2", "c", 3), msg("run-1-msg-2", "completed", text("c")),
	}
	if diff := cmp.Diff(want, eventsOf(t, script, true)); diff != "" {
		t.Errorf("with observe_messages (-want +got):\n%s", diff)
	}
	plain := []harness.Event{delta("", "a", 1), delta("", "b", 2), want[4], delta("", "c", 3)}
	if diff := cmp.Diff(plain, eventsOf(t, script, false)); diff != "" {
		t.Errorf("without observe_messages (-want +got):\n%s", diff)
	}
}

// AD-42 (docs/contract-harness.md §12): cancelling the context during turn.start_delay_ms returns
// the Turn with the context's error; the Turn emits nothing and settles as cancellation scripts.
func TestStartDelayCancelledReturnsTheAbortedTurn(t *testing.T) {
	fake := clock.NewFake()
	h := contract.New(fake, proto.AgentKindCapabilities{})
	e, err := h.NewExecutor(context.Background(), &proto.PromptRequestPayload{AgentOptions: json.RawMessage(
		`{"contract":{"turn":{"start_delay_ms":1000,"events":[{"delta":"never"}]},"cancel":{"outcome":{"content":"partial"}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	type started struct {
		turn harness.Turn
		err  error
	}
	res := make(chan started, 1)
	go func() {
		turn, err := e.Start(ctx, "run-1", proto.TextInput("hi"))
		res <- started{turn, err}
	}()
	if !fake.WaitDue(time.Second, time.Second) {
		t.Fatal("native start armed no timer for start_delay_ms")
	}
	cancel()
	r := <-res
	if r.turn == nil || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Start = (%v, %v), want the Turn and context.Canceled", r.turn, r.err)
	}
	for ev := range r.turn.Events() {
		t.Errorf("the aborted Turn emitted %+v", ev)
	}
	out, err := r.turn.Cancel(context.Background())
	if err != nil || out == nil || out.Content != "partial" {
		t.Errorf("Cancel = (%+v, %v), want the scripted outcome", out, err)
	}

	// Without cancellation the Turn is returned once the delay has passed.
	go func() {
		turn, err := e.Start(context.Background(), "run-2", proto.TextInput("hi"))
		res <- started{turn, err}
	}()
	fake.AdvanceWhenDue(time.Second, time.Second)
	if r := <-res; r.err != nil || r.turn == nil {
		t.Fatalf("Start after the delay = (%v, %v)", r.turn, r.err)
	}
}
