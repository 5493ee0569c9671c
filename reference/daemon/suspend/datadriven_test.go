package suspend

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
)

// TestMachine plays testdata/*.txt: each command feeds one event to the daemon's machine and
// prints the effects and the state after it. Commands:
//
//	reset
//	quiesce conn= id= env= suspend= [rollback] [busy] [bound=] [no-environment] [malformed]
//	resume  conn= id= env= suspend= [rollback] [bound=] [malformed]
//	drained conn= [fail]
//	conn-ended conn=
//
// env= and suspend= default to e1 and s1; id= defaults to q1; an explicit empty value (env=) is
// blank. malformed: the payload failed proto's validation (Payload nil, Raw as written).
// Run with -rewrite to regenerate the expected output.
func TestMachine(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var m Machine
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key, def string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key {
						if len(a.Vals) == 0 {
							return ""
						}
						return a.Vals[0]
					}
				}
				return def
			}
			conn, _ := strconv.ParseUint(arg("conn", "1"), 10, 64)
			request := func() Request {
				raw := proto.EnvironmentSuspendPayload{Rollback: td.HasArg("rollback"), EnvironmentID: arg("env", "e1"), SuspendID: arg("suspend", "s1")}
				id := arg("id", "q1")
				if id == "long" {
					id = strings.Repeat("x", proto.CorrelationIDMaxBytes+1)
				}
				r := Request{Conn: conn, ID: id, Raw: raw, Bound: arg("bound", ""), Serving: !td.HasArg("no-environment")}
				if !td.HasArg("malformed") {
					p := raw
					r.Payload = &p
				}
				return r
			}
			var ev Event
			switch td.Cmd {
			case "reset":
				m = Machine{}
				return m.String() + "\n"
			case "quiesce":
				ev = Quiesce{Request: request(), Idle: !td.HasArg("busy")}
			case "resume":
				ev = Resume{Request: request()}
			case "drained":
				ev = Drained{Conn: conn, OK: !td.HasArg("fail")}
			case "conn-ended":
				ev = ConnEnded{Conn: conn}
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			var b strings.Builder
			effects := m.Apply(ev)
			for _, e := range effects {
				b.WriteString("- " + e.String() + "\n")
			}
			if len(effects) == 0 {
				b.WriteString("no effects\n")
			}
			b.WriteString(m.String() + " fenced=" + strconv.FormatBool(m.Fenced()) + "\n")
			return b.String()
		})
	})
}
