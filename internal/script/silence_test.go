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
			f := p.ExpectSilence(t.Context(), st, window, nil)
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
				ctx, cancel := Within(t.Context(), time.Millisecond)
				defer cancel()
				in, err := conn.Next(ctx)
				if err != nil || string(in.Raw) != string(done) {
					t.Fatalf("the next step reads %q, %v; want the frame the window left", in.Raw, err)
				}
			}
		})
	}
}

// A silence may allow frames the spec admits instead of nothing: each at most once, inside the
// window or later; any other frame still breaks it.
func TestSilenceAllowsWhatTheStepAllows(t *testing.T) {
	const window = 50 * time.Millisecond
	rejected := []byte(`{"type":"runtime_prepare_result","id":"6f1c2a4e-1b2c-4d3e-8f90-0a1b2c3d4e5f","payload":{"outcome":"rejected","error_code":"resource_unavailable"}}`)
	invalid := []byte(`{"type":"runtime_prepare_result","id":"6f1c2a4e-1b2c-4d3e-8f90-0a1b2c3d4e5f","payload":{"outcome":"rejected","error_code":"invalid_request"}}`)
	done := []byte(`{"type":"done","id":"run","payload":{"content":""}}`)
	allow := &scenarios.Step{Kind: scenarios.StepRuntime, From: proto.Runtime, Frame: &scenarios.FrameTemplate{
		Type: "runtime_prepare_result", ID: "6f1c2a4e-1b2c-4d3e-8f90-0a1b2c3d4e5f", Payload: map[string]scenarios.Value{"outcome": "rejected", "error_code": "resource_unavailable"}}}
	doneStep := &scenarios.Step{Index: 4, Kind: scenarios.StepRuntime, From: proto.Runtime, Frame: &scenarios.FrameTemplate{
		Type: "done", ID: "run", Payload: map[string]scenarios.Value{"content": ""}}}
	for _, c := range []struct {
		name     string
		arrivals []time.Duration
		frames   [][]byte
		broken   string // the silence's failure, "" when it holds
		next     string // the next step's failure ("-": not played)
	}{
		{"nothing at all", nil, nil, "", "-"},
		{"the allowed frame inside the window", []time.Duration{10 * time.Millisecond}, [][]byte{rejected}, "", "-"},
		{"the allowed frame twice", []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}, [][]byte{rejected, rejected}, "which the step does not allow", "-"},
		{"another frame", []time.Duration{10 * time.Millisecond}, [][]byte{invalid}, "which the step does not allow", "-"},
		{"the allowed frame late, before the next step's", []time.Duration{80 * time.Millisecond, 90 * time.Millisecond}, [][]byte{rejected, done}, "", ""},
		{"the allowed frame late, after the next step's", []time.Duration{80 * time.Millisecond, 90 * time.Millisecond}, [][]byte{done, rejected}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			opened := time.Now().Add(-200 * time.Millisecond)
			conn := &Conn{frames: make(chan Inbound, len(c.frames)+1), done: make(chan struct{}), rec: NewRecorder(), mark: opened}
			for i, raw := range c.frames {
				conn.frames <- Inbound{Raw: raw, At: opened.Add(c.arrivals[i])}
			}
			p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: 100 * time.Millisecond}
			st := &scenarios.Step{Index: 3, Kind: scenarios.StepSilence, From: proto.Runtime, Window: window, Allow: []*scenarios.Step{allow}}
			f := p.ExpectSilence(t.Context(), st, window, nil)
			switch {
			case c.broken == "" && f != nil:
				t.Fatalf("the silence broke: %v", f.Message)
			case c.broken != "" && (f == nil || !strings.Contains(f.Message, c.broken)):
				t.Fatalf("failure %v, want one saying %q", f, c.broken)
			}
			if c.next == "-" {
				return
			}
			if _, f := p.Expect(t.Context(), doneStep); f != nil {
				t.Fatalf("the next step failed: %v", f.Message)
			}
			if c.name == "the allowed frame late, after the next step's" {
				// still tolerated: a later silence takes it
				if f := p.ExpectSilence(t.Context(), &scenarios.Step{Index: 5, Kind: scenarios.StepSilence, From: proto.Runtime, Window: window}, window, nil); f != nil {
					t.Fatalf("the late allowed frame broke a later silence: %v", f.Message)
				}
			}
		})
	}
}

// A frame a silence allowed and took satisfies the later step that expects it: a frame that may
// come early (a retry Core sends when it chooses).
func TestAllowedFrameMayComeEarly(t *testing.T) {
	const window = 50 * time.Millisecond
	retry := []byte(`{"type":"execution_prepare","id":"p-2","payload":{"session_id":"s","configuration":{"agent_kind":"contract","conversation_id":"","run_id":"","agent_state_key":"agents-api-s","strict_resume":true,"disable_execution_environment":true}}}`)
	tmpl := &scenarios.FrameTemplate{Type: "execution_prepare", ID: "${prepare2}", Payload: map[string]scenarios.Value{
		"session_id": "s", "configuration": map[string]scenarios.Value{"agent_kind": "contract", "conversation_id": "", "run_id": "",
			"agent_state_key": "agents-api-s", "strict_resume": true, "disable_execution_environment": true}}}
	opened := time.Now().Add(-200 * time.Millisecond)
	conn := &Conn{frames: make(chan Inbound, 2), done: make(chan struct{}), rec: NewRecorder(), mark: opened}
	conn.frames <- Inbound{Raw: retry, At: opened.Add(10 * time.Millisecond)}
	p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: 100 * time.Millisecond}
	silence := &scenarios.Step{Index: 3, Kind: scenarios.StepSilence, From: proto.Core, Window: window,
		Allow: []*scenarios.Step{{Kind: scenarios.StepCore, From: proto.Core, Frame: tmpl}}}
	if f := p.ExpectSilence(t.Context(), silence, window, nil); f != nil {
		t.Fatalf("the silence broke: %v", f.Message)
	}
	if _, f := p.Expect(t.Context(), &scenarios.Step{Index: 5, Kind: scenarios.StepCore, From: proto.Core, Frame: tmpl}); f != nil {
		t.Fatalf("the early frame did not satisfy the step that expects it: %v", f.Message)
	}
	if got := p.B.String("prepare2"); got != "p-2" {
		t.Fatalf("prepare2 = %q, want p-2", got)
	}
	// A second one is not taken for granted: the step reads, and nothing comes.
	if _, f := p.Expect(t.Context(), &scenarios.Step{Index: 6, Kind: scenarios.StepCore, From: proto.Core, Frame: tmpl}); f == nil {
		t.Fatal("one early frame satisfied two steps")
	}
}

// An optional frame is not waited for: it is skipped, once, if it comes before (or after) the
// frames that must.
func TestOptionalFrameIsSkippedWhereverItArrives(t *testing.T) {
	starting := []byte(`{"type":"done","id":"maybe","payload":{"content":""}}`)
	done := []byte(`{"type":"done","id":"run","payload":{"content":""}}`)
	optional := &scenarios.Step{Index: 2, Kind: scenarios.StepRuntime, From: proto.Runtime, Frame: &scenarios.FrameTemplate{
		Type: "done", ID: "maybe", Payload: map[string]scenarios.Value{"content": ""}, Optional: true}}
	must := &scenarios.Step{Index: 3, Kind: scenarios.StepRuntime, From: proto.Runtime, Frame: &scenarios.FrameTemplate{
		Type: "done", ID: "run", Payload: map[string]scenarios.Value{"content": ""}}}
	for name, frames := range map[string][][]byte{"absent": {done}, "before": {starting, done}} {
		t.Run(name, func(t *testing.T) {
			conn := &Conn{frames: make(chan Inbound, 2), done: make(chan struct{}), rec: NewRecorder()}
			for _, raw := range frames {
				conn.frames <- Inbound{Raw: raw, At: time.Now()}
			}
			p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: 100 * time.Millisecond}
			if _, f := p.Expect(t.Context(), optional); f != nil {
				t.Fatalf("the optional step failed: %v", f.Message)
			}
			if _, f := p.Expect(t.Context(), must); f != nil {
				t.Fatalf("the step after it failed: %v", f.Message)
			}
		})
	}
}

// An optional frame may come before the next step's frames, never after them.
func TestOptionalFrameComesBeforeTheNextStepOrNever(t *testing.T) {
	late := []byte(`{"type":"done","id":"maybe","payload":{"content":""}}`)
	done := []byte(`{"type":"done","id":"run","payload":{"content":""}}`)
	optional := &scenarios.Step{Index: 2, Kind: scenarios.StepRuntime, From: proto.Runtime, Frame: &scenarios.FrameTemplate{
		Type: "done", ID: "maybe", Payload: map[string]scenarios.Value{"content": ""}, Optional: true}}
	must := &scenarios.Step{Index: 3, Kind: scenarios.StepRuntime, From: proto.Runtime, Frame: &scenarios.FrameTemplate{
		Type: "done", ID: "run", Payload: map[string]scenarios.Value{"content": ""}}}
	opened := time.Now().Add(-time.Second)
	conn := &Conn{frames: make(chan Inbound, 2), done: make(chan struct{}), rec: NewRecorder(), mark: opened}
	conn.frames <- Inbound{Raw: done, At: opened.Add(time.Millisecond)}
	conn.frames <- Inbound{Raw: late, At: opened.Add(2 * time.Millisecond)}
	p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: 100 * time.Millisecond}
	if _, f := p.Expect(t.Context(), optional); f != nil {
		t.Fatal(f.Message)
	}
	if _, f := p.Expect(t.Context(), must); f != nil {
		t.Fatal(f.Message)
	}
	silence := &scenarios.Step{Index: 4, Kind: scenarios.StepSilence, From: proto.Runtime, Window: 50 * time.Millisecond}
	if f := p.ExpectSilence(t.Context(), silence, silence.Window, nil); f == nil {
		t.Fatal("an optional frame that came after the next step's frame was taken")
	}
}

// Against a peer in another process, a settle window opens at the scenario's clock: the peer times
// what the settle guards from its own events, and a starved peer may put the frame that came last
// on the wire long after them. Here Core's input went out at t0 and the scenario advanced 300 ms;
// the peer's write completed at t0+300 ms and armed its 300 ms acceptance, but its `written`
// receipt reached the wire only at t0+560 ms, so the acceptance, on time at t0+600 ms, came 40 ms
// after it. A window anchored at the receipt would fail a conforming peer; one at the scenario's
// clock fails only an acceptance that beat it. In process (a virtual clock that stands still in the
// window) the window still opens at the frame.
func TestARealTimeSettleOpensAtTheScenariosClock(t *testing.T) {
	const window = 50 * time.Millisecond
	accepted := []byte(`{"type":"prompt_steer_ack","id":"run","payload":{"input_id":"1","accepted":true}}`)
	for _, c := range []struct {
		name     string
		realTime bool
		arrival  time.Duration // of the acceptance, after t0
		broken   bool
	}{
		{"in real time, an acceptance on time after a late receipt", true, 600 * time.Millisecond, false},
		{"in real time, an acceptance that beat the clock", true, 320 * time.Millisecond, true},
		{"in process, the window opens at the receipt", false, 600 * time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t0 := time.Now().Add(-time.Second) // all of it happened already: nothing waits
			receipt := t0.Add(560 * time.Millisecond)
			conn := &Conn{frames: make(chan Inbound, 1), done: make(chan struct{}), rec: NewRecorder(), mark: receipt}
			conn.frames <- Inbound{Raw: accepted, At: t0.Add(c.arrival)}
			p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: time.Second, RealTime: c.realTime}
			if c.realTime {
				p.scenarioClock = t0
				p.Advanced(300 * time.Millisecond)
				conn.mark = receipt // the receipt was consumed after the advance
			}
			st := &scenarios.Step{Index: 7, Kind: scenarios.StepSettle, From: proto.Runtime, Window: window}
			f := p.ExpectSilence(t.Context(), st, window, nil)
			if broken := f != nil; broken != c.broken {
				t.Fatalf("broken = %v, want %v (%v)", broken, c.broken, f)
			}
			if !c.broken && len(conn.unread) != 1 {
				t.Fatalf("the acceptance was not left for the next step")
			}
		})
	}
}
