package monitor_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"go.uber.org/goleak"

	"github.com/wirecheck/wirecheck/monitor"
	"github.com/wirecheck/wirecheck/proto"
)

// TestMonitor drives the monitor from testdata: each file is one conversation, frames as JSON
// lines; a directive prints the alarms its frames raised (frame number, side, rule, detail), or ok.
//
//	open conn=N device=D      a connection opens
//	core conn=N / runtime conn=N
//	<one frame per line>      frames that side sent, in order
//	close conn=N              the connection ends
//	advance by=DURATION       the monitor's clock moves
func TestMonitor(t *testing.T) {
	defer goleak.VerifyNone(t)
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		now := time.Unix(1710000000, 0)
		m := monitor.New(nil, monitor.WithClock(func() time.Time { return now }))
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			before := len(m.Alarms())
			conn := 1
			if d.HasArg("conn") {
				d.ScanArgs(t, "conn", &conn)
			}
			switch d.Cmd {
			case "open":
				device := ""
				if d.HasArg("device") {
					d.ScanArgs(t, "device", &device)
				}
				m.Open(conn, device)
			case "close":
				m.Close(conn)
			case "advance":
				var by string
				d.ScanArgs(t, "by", &by)
				dur, err := time.ParseDuration(by)
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				now = now.Add(dur)
			case "core", "runtime":
				for _, line := range strings.Split(d.Input, "\n") {
					if line = strings.TrimSpace(line); line != "" {
						m.Frame(conn, proto.Peer(d.Cmd), []byte(line))
					}
				}
			default:
				t.Fatalf("%s: unknown directive %q", d.Pos, d.Cmd)
			}
			var b strings.Builder
			for _, a := range m.Alarms()[before:] {
				fmt.Fprintf(&b, "frame %d %s %s: %s\n", a.Frame, a.From, a.Rule, a.Detail)
			}
			if b.Len() == 0 {
				return "ok\n"
			}
			return b.String()
		})
	})
}

// An alarm reads as one line naming the connection, the frame, the direction, the type, the id and
// the rule, and the monitor calls onAlarm as each is raised.
func TestAlarmNamesFrameAndRule(t *testing.T) {
	var seen []monitor.Alarm
	m := monitor.New(func(a monitor.Alarm) { seen = append(seen, a) })
	m.Open(3, "dev")
	m.Frame(3, proto.Runtime, []byte(`{"type":"delta","id":"run-9","payload":{"delta":"x","sequence":1}}`))
	if len(seen) != 2 || m.Frames() != 1 { // before the heartbeat, and for a Run never started
		t.Fatalf("onAlarm saw %v after %d frames", seen, m.Frames())
	}
	const want = `conn 3 frame 1 runtime→core delta "run-9": CN-23: `
	if got := seen[0].String(); !strings.HasPrefix(got, want) {
		t.Fatalf("alarm reads %q, want it to begin %q", got, want)
	}
}
