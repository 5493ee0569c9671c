package interact

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
)

// TestInteractions plays testdata/*.txt: each command feeds the file's machine and prints what it
// answers. Times are minutes after an epoch (at=). Commands:
//
//	reset
//	emit family= id= [run=] [questions=a,b]
//	withdraw family= id= | run-ended run=
//	answer family= id= [fp=] [at=] [undeclared] [invalid] [answers=a,b] [native=]
//	                           native: the outcome if the machine lets it through (default applied)
//	fill n= [at=]              n distinct permission answers applied (for the memory bound)
//
// Run with -rewrite to regenerate the expected output.
func TestInteractions(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		m := New()
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key, def string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key && len(a.Vals) > 0 {
						return strings.Join(a.Vals, ",")
					}
				}
				return def
			}
			at := func() time.Time {
				var min int
				if td.HasArg("at") {
					td.ScanArgs(t, "at", &min)
				}
				return epoch.Add(time.Duration(min) * time.Minute)
			}
			key := Key{Family: harness.Family(arg("family", "permission")), ID: arg("id", "p1")}
			switch td.Cmd {
			case "reset":
				m = New()
			case "emit":
				var qs []string
				if q := arg("questions", ""); q != "" {
					qs = strings.Split(q, ",")
				}
				m.Emitted(key, arg("run", "r1"), qs)
			case "withdraw":
				m.Withdrawn(key)
			case "run-ended":
				m.RunEnded(arg("run", "r1"))
			case "fill":
				var n int
				td.ScanArgs(t, "n", &n)
				for i := range n {
					k := Key{Family: harness.Permission, ID: fmt.Sprint("f", i)}
					m.Emitted(k, "r1", nil)
					a := Answer{Key: k, Fingerprint: "x", Now: at(), Declared: true}
					if v := m.Decide(a); !v.Apply {
						td.Fatalf(t, "fill %d: %+v", i, v)
					}
					m.Settled(a, Applied)
				}
			case "answer":
				a := Answer{Key: key, Fingerprint: arg("fp", "x"), Now: at(), Declared: !td.HasArg("undeclared")}
				if td.HasArg("invalid") {
					a.InvalidResult = "bad content"
				}
				if ans := arg("answers", ""); ans != "" {
					a.Answered = strings.Split(ans, ",")
				}
				v := m.Decide(a)
				if !v.Apply {
					return "ack " + ackString(v.Ack) + "\n" + state(m, key)
				}
				return "apply → ack " + ackString(m.Settled(a, Outcome(arg("native", "applied")))) + "\n" + state(m, key)
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			return state(m, key)
		})
	})
}

func ackString(a proto.InteractionDecisionAckPayload) string {
	if a.Applied {
		return "applied"
	}
	return a.ErrorCode
}

func state(m *Machine, k Key) string {
	return fmt.Sprintf("pending=%v remembered=%d\n", m.Pending(k), m.Remembered())
}
