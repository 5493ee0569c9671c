package script

import (
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A silence window opens at the wire event that opened it, not when the harness starts watching:
// on a loaded machine the harness may look late, and its verdict must still follow the frames'
// arrival times. No real waiting happens here: every frame is already on the channel, stamped.
func TestSilenceWindowIsAnchoredAtTheOpeningFrame(t *testing.T) {
	const window = 50 * time.Millisecond
	done := []byte(`{"type":"done","id":"run","payload":{"content":""}}`)
	heartbeat := []byte(`{"type":"heartbeat","payload":{}}`)
	for _, c := range []struct {
		name     string
		arrivals []time.Duration // after the frame that opened the window was written
		frames   [][]byte
		broken   bool // the silence was broken
		left     int  // frames left for the next step
	}{
		{"a frame inside the window breaks it, however late it is looked at", []time.Duration{30 * time.Millisecond}, [][]byte{done}, true, 0},
		{"a frame after the window is left for the next step", []time.Duration{80 * time.Millisecond}, [][]byte{done}, false, 1},
		{"a heartbeat inside the window does not break it", []time.Duration{10 * time.Millisecond, 90 * time.Millisecond}, [][]byte{heartbeat, done}, false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The window opened 200 ms ago: the harness is looking far too late.
			opened := time.Now().Add(-200 * time.Millisecond)
			conn := &Conn{frames: make(chan Inbound, len(c.frames)), done: make(chan struct{}), rec: NewRecorder(), mark: opened}
			for i, raw := range c.frames {
				conn.frames <- Inbound{Raw: raw, At: opened.Add(c.arrivals[i])}
			}
			p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: time.Second,
				OnHeartbeat: func([]byte) error { return nil }}
			st := &scenarios.Step{Index: 3, Kind: scenarios.StepSettle, From: proto.Runtime, Window: window}
			f := p.ExpectSilence(st, window, nil)
			if broken := f != nil; broken != c.broken {
				t.Fatalf("broken = %v, want %v (%v)", broken, c.broken, f)
			}
			if c.broken && !strings.Contains(f.Message, "to stay silent for 50ms, but sent done") {
				t.Errorf("failure message: %q", f.Message)
			}
			if len(conn.unread) != c.left {
				t.Fatalf("%d frames left for the next step, want %d", len(conn.unread), c.left)
			}
			if c.left > 0 {
				in, err := conn.Next(time.Millisecond)
				if err != nil || string(in.Raw) != string(done) {
					t.Fatalf("the next step reads %q, %v; want the frame the window left", in.Raw, err)
				}
			}
		})
	}
}
