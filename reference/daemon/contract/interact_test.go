package contract_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/contract"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// TestInteractionStepsFollowTheScript pins docs/contract-harness.md §3.3: the request goes out, each
// attempt takes the next `native` answer, only an applied answer ends the wait, and done reports it.
func TestInteractionStepsFollowTheScript(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	fake := clock.NewFake()
	turn := startedTurn(t, fake, `{"turn":{"content":"c","events":[
		{"permission_request":{"request":{"request_id":"p1","tool":"bash","title":"ls"},"native":["not_ready","fails","unimplemented","applied"]}},
		{"function_call":{"call":{"call_id":"c1","name":"f","arguments":{}}}},
		{"permission_request":{"request":{"request_id":"p2","tool":"bash","title":"rm"},"withdraw_ms":50}}]}}`)
	it := turn.(harness.Interactive)
	ev := <-turn.Events()
	if ev.Type != proto.TypePermissionRequest {
		t.Fatalf("first event %s, want permission_request", ev.Type)
	}
	decision := &proto.PermissionDecisionPayload{DeliveryID: "d", Approved: true, UpdatedInput: json.RawMessage(`{"b":1,"a":2}`)}
	errOther := errors.New("any other error: a native failure")
	for i, want := range []error{harness.ErrInteractionNotReady, errOther, harness.ErrInteractionUnimplemented, nil} {
		err := it.Resolve(harness.Permission, "p1", decision)
		known := errors.Is(err, harness.ErrInteractionNotReady) || errors.Is(err, harness.ErrInteractionUnimplemented) || errors.Is(err, harness.ErrInteractionUnknown)
		switch {
		case want == nil && err != nil, want == errOther && (err == nil || known), want != nil && want != errOther && !errors.Is(err, want):
			t.Fatalf("attempt %d: got %v, want %v", i+1, err, want)
		}
	}
	if err := it.Resolve(harness.Permission, "p1", decision); !errors.Is(err, harness.ErrInteractionUnknown) {
		t.Fatalf("an applied interaction answered again: %v, want unknown", err)
	}
	if ev := <-turn.Events(); ev.Type != proto.TypeFunctionCall {
		t.Fatalf("second event %s, want function_call", ev.Type)
	}
	result := &proto.FunctionResultPayload{DeliveryID: "d", CallID: "c1", Success: true, Content: []proto.InputContent{proto.Text("r")}}
	if err := it.Resolve(harness.Function, "c1", result); err != nil {
		t.Fatal(err)
	}
	if ev := <-turn.Events(); ev.Type != proto.TypePermissionRequest {
		t.Fatalf("third event %s, want permission_request", ev.Type)
	}
	fake.AdvanceWhenDue(50*time.Millisecond, time.Second)
	ev = <-turn.Events()
	if diff := cmp.Diff(harness.Event{Type: proto.TypePermissionCancel, Payload: harness.Withdrawal{RequestID: "p2"}}, ev); diff != "" {
		t.Fatalf("withdrawal (-want +got):\n%s", diff)
	}
	for range turn.Events() {
	}
	want := map[string]string{
		"contract.permission.p1": `{"approved":true,"updated_input":{"a":2,"b":1}}`,
		"contract.function.c1":   `{"call_id":"c1","content":[{"text":"r","type":"input_text"}],"success":true}`,
		"contract.permission.p2": "withdrawn",
	}
	if diff := cmp.Diff(want, turn.Result().Done.Metadata); diff != "" {
		t.Fatalf("done metadata (-want +got):\n%s", diff)
	}
}

// TestInteractionStepsAreStrict: a step that could not be emitted, or an unknown native answer, is
// refused at parse time with its path.
func TestInteractionStepsAreStrict(t *testing.T) {
	for script, want := range map[string]string{
		`{"turn":{"events":[{"permission_request":{"request":{"request_id":"p","tool":"t"}}}]}}`:                                                                                 "title",
		`{"turn":{"events":[{"permission_request":{"request":{"request_id":"p","tool":"t","title":"x"},"native":["maybe"]}}]}}`:                                                  "events[0].permission_request.native[0]",
		`{"turn":{"events":[{"function_call":{"call":{"call_id":"","name":"f","arguments":{}}}}]}}`:                                                                              "events[0].function_call.call",
		`{"turn":{"events":[{"prompt_for_user_choice":{"prompt":{"ask_id":"a","questions":[{"id":"q","question":"?","options":[]},{"id":"q","question":"?","options":[]}]}}}]}}`: "questions[1].id",
		`{"turn":{"events":[{"function_call":{"call":{"call_id":"c","name":"f","arguments":{}},"extra":1}}]}}`:                                                                   "extra",
	} {
		_, err := contract.Parse(json.RawMessage(`{"contract":` + script + `}`))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error naming %q", script, err, want)
		}
	}
}

// TestReportDeliveriesCountsWhatReachedTheNativeSide pins docs/contract-harness.md §3.4: every
// answer handed to the native side for an interaction the Turn emitted counts, applied or not,
// before or after it was applied ("0" for none), every native write of an input_id counts,
// whatever came of it, and an ID the Turn never emitted is not reported.
func TestReportDeliveriesCountsWhatReachedTheNativeSide(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	fake := clock.NewFake()
	turn := startedTurn(t, fake, `{"turn":{"content":"c","report_deliveries":true,"input":{"by_id":{"rej":{"reject":true}}},"events":[
		{"function_call":{"call":{"call_id":"c1","name":"f","arguments":{}},"native":["not_ready","applied"]}},
		{"permission_request":{"request":{"request_id":"p1","tool":"bash","title":"ls"},"withdraw_ms":50}}]}}`)
	it, steer := turn.(harness.Interactive), turn.(harness.Steerable)
	if ev := <-turn.Events(); ev.Type != proto.TypeFunctionCall {
		t.Fatalf("first event %s, want function_call", ev.Type)
	}
	result := &proto.FunctionResultPayload{DeliveryID: "d", CallID: "c1", Success: true, Content: []proto.InputContent{proto.Text("r")}}
	for i, want := range []error{harness.ErrInteractionNotReady, nil, harness.ErrInteractionUnknown} {
		if err := it.Resolve(harness.Function, "c1", result); !errors.Is(err, want) {
			t.Fatalf("attempt %d: %v, want %v", i+1, err, want)
		}
	}
	if err := it.Resolve(harness.Function, "never-emitted", result); !errors.Is(err, harness.ErrInteractionUnknown) {
		t.Fatalf("an answer for a call never emitted: %v, want unknown", err)
	}
	for range 2 {
		if _, err := steer.WriteInput(context.Background(), "rej", nil); !errors.Is(err, harness.ErrInputRejected) {
			t.Fatalf("reject: %v", err)
		}
	}
	if ev := <-turn.Events(); ev.Type != proto.TypePermissionRequest {
		t.Fatalf("second event %s, want permission_request", ev.Type)
	}
	fake.AdvanceWhenDue(50*time.Millisecond, time.Second)
	for range turn.Events() {
	}
	want := map[string]string{
		"contract.function.c1":              `{"call_id":"c1","content":[{"text":"r","type":"input_text"}],"success":true}`,
		"contract.permission.p1":            "withdrawn",
		"contract.deliveries.function.c1":   "3",
		"contract.deliveries.permission.p1": "0",
		"contract.deliveries.input.rej":     "2",
	}
	if diff := cmp.Diff(want, turn.Result().Done.Metadata); diff != "" {
		t.Fatalf("done metadata (-want +got):\n%s", diff)
	}
}
