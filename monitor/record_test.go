package monitor_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A conversation watched between the scripted Core and the reference Runtime, recorded as a
// scenario, plays again against the reference Runtime and passes, without repeating any value a
// peer chose.
func TestRecordedConversationPlaysAgain(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{
		"runs/prepared/completes-and-releases-before-done",
		"preparation-transfer/runtime/multi-chunk-file-installs-at-commit",
	} {
		t.Run(id, func(t *testing.T) {
			sc, ok := cat.Get(id)
			if !ok {
				t.Fatalf("%s is not in the catalog", id)
			}
			var capture bytes.Buffer
			tap := monitor.NewCapture(&capture)
			opts := runner.Options{Seed: "record", Timeout: 30 * time.Second, Faults: &fault.Schedule{},
				Tap: func(*scenarios.Scenario) fault.Tap { return tap }}
			if r := runner.PlayRuntime(context.Background(), sc, 0, runner.ReferenceRuntime{}, opts); r.Verdict != scenarios.Pass {
				t.Fatalf("the original conversation: %s", r)
			}
			frames, err := monitor.ReadCapture(&capture)
			if err != nil {
				t.Fatal(err)
			}
			yml, err := monitor.Record("recorded/"+id, "recorded: "+sc.Title, frames)
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := scenarios.Parse("recorded.yaml", yml)
			if err != nil {
				t.Fatalf("the recording does not load: %v\n%s", err, yml)
			}
			r := runner.PlayRuntime(context.Background(), recorded[0], 0, runner.ReferenceRuntime{}, runner.Options{Seed: "replay", Timeout: 30 * time.Second})
			if r.Verdict != scenarios.Pass {
				t.Fatalf("the recording does not play again:\n%s\n%s", r, yml)
			}
			for _, f := range frames {
				if strings.Contains(string(f.Frame), `"handle":"`) && !strings.Contains(string(yml), "${handle}") {
					t.Fatalf("the Runtime's handle was recorded as a value, not a placeholder:\n%s", yml)
				}
			}
		})
	}
}

// Unordered: the other side's frames of several streams between two of this side's are one
// any_order group (they race); a run of one stream keeps its order.
func TestUnorderedGroupsRacingStreams(t *testing.T) {
	frames := []monitor.Captured{
		{From: proto.Core, Frame: []byte(`{"type":"prompt_request","id":"r1","payload":{"agent_kind":"contract","conversation_id":"","run_id":"","input":[{"content":[{"type":"input_text","text":"hi"}]}],"strict_resume":true,"disable_execution_environment":true}}`)},
		{From: proto.Runtime, Frame: []byte(`{"type":"delta","id":"r1","payload":{"delta":"hi","sequence":1}}`)},
		{From: proto.Runtime, Frame: []byte(`{"type":"prompt_steer_ack","id":"r1x","payload":{"input_id":"1","accepted":true}}`)},
		{From: proto.Core, Frame: []byte(`{"type":"prompt_cancel","id":"r1"}`)},
		{From: proto.Runtime, Frame: []byte(`{"type":"delta","id":"r1","payload":{"delta":"a","sequence":2}}`)},
		{From: proto.Runtime, Frame: []byte(`{"type":"done","id":"r1","payload":{"content":"hia"}}`)},
	}
	yml, err := monitor.RecordWith("replay/x", "x", frames, monitor.RecordOptions{Literal: proto.Core, Unordered: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(yml), "any_order"); n != 1 {
		t.Fatalf("%d any_order groups, want 1 (the delta racing another stream's frame; the one stream after the cancel keeps its order):\n%s", n, yml)
	}
	if _, err := scenarios.Parse("replay/x.yaml", yml); err != nil {
		t.Fatalf("the recording is no scenario: %v\n%s", err, yml)
	}
}
