package certify

import (
	"testing"

	"github.com/wirecheck/wirecheck/runner"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Three failures at step 0 stop a run only when the Runtime sent no frame in them: a daemon whose
// first heartbeat is invalid, or that fails a check after the last step, did connect.
func TestFailFastStopsOnlyADaemonThatNeverConnected(t *testing.T) {
	failed := func(frames ...scenarios.Exchange) *scenarios.Result {
		return &scenarios.Result{Scenario: "s", Verdict: scenarios.Fail, Transcript: frames,
			Failure: &scenarios.Failure{Message: "the first frame must be a heartbeat with a valid declaration"}}
	}
	heartbeat := scenarios.Exchange{Dir: scenarios.RuntimeToCore, Type: "heartbeat", Frame: `{"type":"heartbeat"}`}
	refused := scenarios.Exchange{Dir: scenarios.Event, Type: "reject"}
	for name, tc := range map[string]struct {
		result   *scenarios.Result
		stopping bool
	}{
		"no frame":              {failed(refused), true},
		"a heartbeat was sent":  {failed(refused, heartbeat), false},
		"a failure at a step 2": {&scenarios.Result{Scenario: "s", Verdict: scenarios.Fail, Failure: &scenarios.Failure{Step: 2, Message: "x"}}, false},
	} {
		stopped := false
		progress := failFast(nil, Config{Target: runner.ReferenceRuntime{}}, func(error) { stopped = true })
		for range FailFastAfter {
			progress(tc.result)
		}
		if stopped != tc.stopping {
			t.Errorf("%s: stopped %v, want %v", name, stopped, tc.stopping)
		}
	}
}
