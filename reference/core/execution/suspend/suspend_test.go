package suspend_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/suspend"
)

// TestSuspend plays the files under testdata: `new KIND [rollback]` builds a request for
// environment env-1 and attempt attempt-1, every other command is one event (`reply` takes the
// reply's payload as input, checked by the wire's validator as the gateway does); the expected
// output is the effects and the state. Rewrite with go test ./reference/core/execution/suspend -rewrite.
func TestSuspend(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var s suspend.State
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			var ev suspend.Event
			switch td.Cmd {
			case "new":
				spec := suspend.Spec{Kind: td.CmdArgs[0].Key, ID: "req-1", EnvironmentID: "env-1", SuspendID: "attempt-1"}
				spec.Rollback = td.HasArg("rollback")
				s = suspend.New(spec)
				return "state: " + state(s)
			case "begin":
				ev = suspend.Begin{}
			case "reply":
				raw := json.RawMessage(strings.TrimSpace(td.Input))
				var p proto.EnvironmentSuspendResultPayload
				if err := json.Unmarshal(raw, &p); err != nil {
					t.Fatal(err)
				}
				r := suspend.Reply{Payload: &p, Raw: raw}
				if err := p.Validate(); err != nil {
					r.Payload, r.Invalid = nil, err
				}
				ev = r
			case "closed":
				ev = suspend.Closed{Err: errors.New("session closed")}
			case "send-failed":
				ev = suspend.SendFailed{Err: errors.New("write: broken pipe")}
			default:
				t.Fatalf("unknown command %s", td.Cmd)
			}
			next, effects := suspend.Step(s, ev)
			s = next
			var out []string
			for _, e := range effects {
				out = append(out, effect(e))
			}
			if len(out) == 0 {
				out = append(out, "no effects")
			}
			return strings.Join(append(out, "state: "+state(s)), "\n")
		})
	})
}

func effect(e suspend.Effect) string {
	switch e := e.(type) {
	case suspend.Await:
		return fmt.Sprintf("await %s %s", e.Type, e.ID)
	case suspend.Send:
		return fmt.Sprintf("send %s %s %s", e.Envelope.Type, e.Envelope.ID, e.Envelope.Payload)
	case suspend.Finish:
		return fmt.Sprintf("finish %s %s: %s", e.Outcome.State, e.Outcome.ErrorCode, e.Outcome.Detail)
	}
	return fmt.Sprintf("%T", e)
}

func state(s suspend.State) string {
	if s.Outcome != nil {
		return "done " + s.Outcome.State
	}
	if s.Sent {
		return "sent"
	}
	return "new"
}
