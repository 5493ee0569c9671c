package monitor_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/fault"
	"github.com/wirecheck/wirecheck/monitor"
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
