package rtprepare

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/wirecheck/wirecheck/proto"
)

// TestMachine plays testdata/*.txt: each command feeds one event to the file's connection and
// prints the effects and the connection after it. Transfer IDs are one letter (a → the UUID
// aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa); id=bad is not a UUID. Commands:
//
//	reset [unsupported]
//	begin id= action=file|skill|plugin|initialize|finalize [body=] [size=] [sha=] [busy] [mismatch]
//	chunk id= offset= data=
//	commit id=
//	malformed id=            a frame that failed to decode or validate
//	applied id= outcome=completed|failed|refused|unconfirmed [exit=]
//	expired id=
//
// Run with -rewrite to regenerate the expected output.
func TestMachine(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		c := Conn{Serving: true}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			arg := func(key, def string) string {
				for _, a := range td.CmdArgs {
					if a.Key == key && len(a.Vals) > 0 {
						return a.Vals[0]
					}
				}
				return def
			}
			num := func(key string) int64 {
				n, _ := strconv.ParseInt(arg(key, "0"), 10, 64)
				return n
			}
			id := uuid(arg("id", "a"))
			var ev Event
			switch td.Cmd {
			case "reset":
				c = Conn{Serving: !td.HasArg("unsupported")}
				return c.String() + "\n"
			case "begin":
				p := &proto.RuntimePreparePayload{Step: proto.StepBegin, Action: arg("action", proto.ActionFile)}
				body := arg("body", "")
				p.SizeBytes = int64(len(body))
				if td.HasArg("size") {
					p.SizeBytes = num("size")
				}
				if HasBody(p.Action) {
					s := sha256.Sum256([]byte(body))
					p.SHA256 = arg("sha", hex.EncodeToString(s[:]))
				}
				ev = Frame{ID: id, Payload: p, Busy: td.HasArg("busy"), Mismatch: td.HasArg("mismatch")}
			case "chunk":
				ev = Frame{ID: id, Payload: &proto.RuntimePreparePayload{Step: proto.StepChunk, Offset: num("offset"), Data: []byte(arg("data", "x"))}}
			case "commit":
				ev = Frame{ID: id, Payload: &proto.RuntimePreparePayload{Step: proto.StepCommit}}
			case "malformed":
				ev = Frame{ID: id, Err: errors.New("malformed")}
			case "applied":
				ev = Applied{ID: id, Outcome: ApplyOutcome(arg("outcome", "completed")), ExitCode: int(num("exit"))}
			case "expired":
				ev = Expired{ID: id}
			default:
				td.Fatalf(t, "unknown command %q", td.Cmd)
			}
			var b strings.Builder
			effects := c.Apply(ev)
			for _, e := range effects {
				b.WriteString("- " + e.String() + "\n")
				if st, ok := e.(Stage); ok {
					_, _ = st.Digest.Write(st.Data) // the host's part of staging
				}
			}
			if len(effects) == 0 {
				b.WriteString("no effects\n")
			}
			b.WriteString(c.String() + "\n")
			return b.String()
		})
	})
}

func uuid(letter string) string {
	if len(letter) != 1 {
		return letter
	}
	l := letter
	return strings.Repeat(l, 8) + "-" + strings.Repeat(l, 4) + "-4" + strings.Repeat(l, 3) + "-8" + strings.Repeat(l, 3) + "-" + strings.Repeat(l, 12)
}
