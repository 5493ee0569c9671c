package runner_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The relay's events carry the time they happened, on the transcript's scale: a fault applied to
// a frame lies after the step that armed it and before the Runtime's answer to that frame, however
// the runner orders the transcript. (In process the relay reads a virtual clock; the times are
// still wall time, as the rest of the transcript.)
func TestRelayEventsHaveTheirRealTime(t *testing.T) {
	cat, err := scenarios.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	sc, ok := cat.Get("faults/runtime/duplicated-prepare-starts-one-setup")
	if !ok {
		t.Fatal("scenario not in the catalog")
	}
	r := runner.PlayRuntime(context.Background(), sc, 1, runner.ReferenceRuntime{}, runner.Options{Seed: "relay-times", Timeout: 30 * time.Second})
	if r.Verdict != scenarios.Pass {
		t.Fatalf("%s", r)
	}
	var armed, fault, answer time.Duration = -1, -1, -1
	for _, e := range r.Transcript {
		switch {
		case e.Dir == scenarios.Event && e.Type == "fault" && strings.HasPrefix(e.Note, "armed"):
			armed = e.At
		case e.Dir == scenarios.Event && e.Type == "fault" && strings.Contains(e.Note, "execution_prepare"):
			fault = e.At
		case e.Dir == scenarios.RuntimeToCore && e.Type == "preparation_status" && answer < 0:
			answer = e.At
		}
	}
	if armed < 0 || fault < 0 || answer < 0 {
		t.Fatalf("armed %v, fault %v, answer %v in\n%s", armed, fault, answer, r)
	}
	if !(armed < fault && fault < answer) {
		t.Fatalf("the duplicate was applied at %v: want after it was armed (%v) and before the Runtime answered the frame (%v)", fault, armed, answer)
	}
}
