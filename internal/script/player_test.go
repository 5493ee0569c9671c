package script

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// A failure before the first step (the connection, the first heartbeat) points at the scenario's
// own file:line, so every failure says where to look.
func TestFailureBeforeTheFirstStepPointsAtTheScenario(t *testing.T) {
	sc := &scenarios.Scenario{ID: "connection/x", Pos: scenarios.Pos{File: "catalog/connection/x.yaml", Line: 12}}
	p := &Player{Scenario: sc, B: scenarios.BindingsWith(nil)}
	f := p.Failf(nil, "the Runtime made no connection attempt within %v", "3s")
	if f.Step != 0 || f.Pos != sc.Pos {
		t.Fatalf("failure at step %d, %s; want step 0 at %s", f.Step, f.Pos, sc.Pos)
	}
	p.Rec = NewRecorder()
	if s := p.Result(scenarios.SideCore, scenarios.Fail, f).String(); !strings.Contains(s, "connection (before the first step) at catalog/connection/x.yaml:12: the Runtime made no connection attempt") {
		t.Errorf("the result reads:\n%s", s)
	}
	st := &scenarios.Step{Index: 2, Kind: scenarios.StepAdvance, Pos: scenarios.Pos{File: "catalog/connection/x.yaml", Line: 20}}
	if f := p.Failf(st, "late"); f.Step != 2 || f.Pos != st.Pos {
		t.Fatalf("a step's failure points at %s, want %s", f.Pos, st.Pos)
	}
}

// The step that expects the answer to a heavy frame is bounded by HeavyTimeout, once: the peer must
// read and decode the frame first. The failure names the bound the step had.
func TestTheAnswerToAHeavyFrameHasTheLongerBound(t *testing.T) {
	conn := &Conn{frames: make(chan Inbound), done: make(chan struct{}), rec: NewRecorder()}
	p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: time.Millisecond, HeavyTimeout: 30 * time.Millisecond}
	st := &scenarios.Step{Index: 2, Kind: scenarios.StepRuntime, From: proto.Runtime,
		Frame: &scenarios.FrameTemplate{Type: proto.TypeRuntimePrepareResult, ID: "transfer"}}
	p.heavy = true // as Send leaves it after a frame of HeavyFrameBytes or more
	if _, f := p.Expect(t.Context(), st); f == nil || !strings.Contains(f.Message, "nothing arrived within 30ms") {
		t.Fatalf("the step after a heavy frame failed with %v, want the 30ms bound named", f)
	}
	if _, f := p.Expect(t.Context(), st); f == nil || !strings.Contains(f.Message, "nothing arrived within 1ms") {
		t.Fatalf("the next step failed with %v, want the 1ms bound named", f)
	}
}

// A step's wait ends with its context: when the step's own bound runs out the failure names it
// (a frame that did not come); when the run is stopped first, the failure says so instead, at
// once, and never blames the peer for a frame it had no time to send.
func TestAStoppedRunIsNotAFrameThatDidNotCome(t *testing.T) {
	conn := &Conn{frames: make(chan Inbound), done: make(chan struct{}), rec: NewRecorder()}
	p := &Player{Conn: conn, B: scenarios.NewBindings(), Rec: conn.rec, Timeout: time.Hour}
	st := &scenarios.Step{Index: 2, Kind: scenarios.StepRuntime, From: proto.Runtime,
		Frame: &scenarios.FrameTemplate{Type: proto.TypeDone, ID: "run"}}
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("the run was interrupted"))
	start := time.Now()
	_, f := p.Expect(ctx, st)
	if f == nil || f.Message != "the run was interrupted before the step completed" {
		t.Fatalf("a stopped run failed the step with %v", f)
	}
	if f := p.ExpectSilence(ctx, &scenarios.Step{Index: 3, Kind: scenarios.StepSilence, From: proto.Runtime}, time.Hour, nil); f == nil || !strings.Contains(f.Message, "interrupted") {
		t.Fatalf("a stopped run ended the silence with %v", f)
	}
	if waited := time.Since(start); waited > time.Second {
		t.Fatalf("the stopped run waited %v", waited)
	}
	if _, err := conn.Next(ctx); err == nil || err.Error() != "the run was interrupted" {
		t.Fatalf("Next on a stopped context: %v, want its cause", err)
	}
	bounded, cancelBound := Within(t.Context(), time.Millisecond)
	defer cancelBound()
	if _, err := conn.Next(bounded); !errors.Is(err, ErrTimeout) || err.(*TimeoutError).Bound != time.Millisecond {
		t.Fatalf("Next past its bound: %v, want ErrTimeout naming 1ms", err)
	}
}
