package input

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestInput plays testdata/*.txt: each command feeds one event to the file's Run and prints the
// effects and the Run after it, or the error. Commands:
//
//	reset                       a fresh Run
//	steer id= [hash=] [non-durable] [not-ready] [no-steering] [no-durable-receipts]
//	write id= outcome=          written | not-ready | rejected | unimplemented | unknown
//	settle id= verdict=         consumed | refused | not-consumed
//	turn-settled | wait-expired | done-sent
//	fill n=                     n distinct inputs, each written and consumed (for the limit)
//
// Run with -rewrite to regenerate the expected output.
func TestInput(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var r Run
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key, def string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key && len(a.Vals) > 0 {
						return a.Vals[0]
					}
				}
				return def
			}
			var ev Event
			switch td.Cmd {
			case "reset":
				r = Run{}
				return r.String() + "\n"
			case "fill":
				var n int
				td.ScanArgs(t, "n", &n)
				for i := 1; i <= n; i++ {
					id := fmt.Sprint("f", i)
					for _, ev := range []Event{steerEvent(id, "h", true), WriteEnded{id, WriteDone}, Settled{id, Consumed}} {
						if _, err := r.Apply(ev); err != nil {
							td.Fatalf(t, "fill %s: %v", id, err)
						}
					}
				}
				return fmt.Sprintf("%d inputs\n", len(r.Records))
			case "steer":
				s := steerEvent(arg("id", "1"), arg("hash", "h"), !td.HasArg("non-durable"))
				s.Ready = !td.HasArg("not-ready")
				s.Steering = !td.HasArg("no-steering")
				s.DurableReceipts = !td.HasArg("no-durable-receipts")
				ev = s
			case "write":
				ev = WriteEnded{arg("id", "1"), WriteOutcome(arg("outcome", "written"))}
			case "settle":
				ev = Settled{arg("id", "1"), Verdict(arg("verdict", "consumed"))}
			case "turn-settled":
				ev = TurnSettled{}
			case "wait-expired":
				ev = WaitExpired{}
			case "done-sent":
				ev = DoneSent{}
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			before := r.String()
			effects, err := r.Apply(ev)
			if err != nil {
				if after := r.String(); after != before {
					t.Errorf("%s: a refused event changed the Run:\n%s\n->\n%s", td.Pos, before, after)
				}
				return "error: " + err.Error() + "\n"
			}
			var b strings.Builder
			for _, e := range effects {
				b.WriteString("- " + e.String() + "\n")
			}
			if len(effects) == 0 {
				b.WriteString("no effects\n")
			}
			b.WriteString(r.String() + "\n")
			return b.String()
		})
	})
}

func steerEvent(id, hash string, durable bool) Steer {
	return Steer{InputID: id, Hash: hash, Durable: durable, Ready: true, Steering: true, DurableReceipts: true}
}
