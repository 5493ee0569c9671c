package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/tracing"
)

// Player holds what both scripted peers need while they walk a scenario's steps.
type Player struct {
	Scenario *scenarios.Scenario
	Self     proto.Peer // the side this scripted peer plays
	B        *scenarios.Bindings
	Rec      *Recorder
	Conn     *Conn
	Timeout  time.Duration // every read and wait is bounded by it
	// HeavyTimeout bounds instead the step that expects the answer to a heavy frame (one of
	// HeavyFrameBytes or more) this peer sent: the other peer must read and decode it first, which
	// a loaded machine makes take longer than one frame's wait. Zero: Timeout.
	HeavyTimeout time.Duration
	// heavy: the frame sent last was heavy, and no step has read since.
	heavy bool
	Seed  string
	// Gate, when two scripted peers share one, synchronises silence windows (see Gate).
	Gate *Gate
	// Drops, if set, witnesses what faults dropped: a `lost` step waits until the drop happened.
	Drops scenarios.DropWitness
	// Relay, if set, is a relay between the peers: what this peer sent must be through it before
	// the other peer can be found to have read it (AwaitTaken).
	Relay Forwarder
	lost  map[string]int // lost steps played so far, per frame type
	// OnHeartbeat sees every heartbeat read (valid or not). It returns a failure for a heartbeat
	// the peer may not send; heartbeats are otherwise filtered unless a step expects one.
	OnHeartbeat func(raw []byte) error
	// RealTime: the other peer's clock is the wall clock (it runs in another process), so its
	// timers run on their own and an advance is a wait. A settle window then opens at the
	// scenario's clock (scenarioClock), not at the frame that came last.
	RealTime bool
	// scenarioClock (RealTime only) is the earliest wall time the scenario's clock can show now:
	// when this peer last began a write, plus the advances since. The other peer arms each timer
	// on something this peer sent or on a timer before it, so none it keeps can fire before
	// scenarioClock plus the advances the scenario makes for it.
	scenarioClock time.Time
	// StampTrace: a frame whose template writes no trace is sent with the traceparent of the
	// context it is sent in when tracing is on, as a Core stamps its context's trace when absent
	// (facts §2.1). A template's own trace, {$absent: true} and raw frames are sent as written.
	StampTrace bool
	// tolerated are the frames a silence allowed (Step.Allow) that had not come by the end of its
	// window: each may still come, once, and is skipped wherever it arrives.
	tolerated []*scenarios.Step
	// taken are the frames a silence took because it allowed them: a later step that expects the
	// same frame is satisfied by one of them instead of reading (the frame may come early).
	taken []Inbound
	// optional are the optional frame steps played since the last step that read: each may come
	// before the frames of the next step that reads (or inside the next silence), once, and no
	// later.
	optional []*scenarios.Step
}

// take consumes in if it is a frame the current silence allows (allowed, which it shortens) or
// one an earlier silence allowed and that has not come yet (p.tolerated): the spec admits a
// reply there as well as nothing. It binds what the frame's template binds.
func (p *Player) take(st *scenarios.Step, in Inbound, allowed *[]*scenarios.Step) bool {
	lists := []*[]*scenarios.Step{&p.optional, &p.tolerated}
	if allowed != nil {
		lists = []*[]*scenarios.Step{allowed, &p.optional, &p.tolerated}
	}
	for _, list := range lists {
		for i, a := range *list {
			if _, mm := scenarios.MatchFrame(a.Frame, a.From, in.Raw, p.B); mm != nil {
				continue
			}
			*list = append((*list)[:i:i], (*list)[i+1:]...)
			p.taken = append(p.taken, in)
			p.Rec.Event("allowed", fmt.Sprintf("step %d: the %s sent %s, which the silence at %s allows instead of nothing", st.Index, a.From, frameType(in.Raw), a.Pos))
			return true
		}
	}
	return false
}

// Failf builds a failure at a step; with no step (the connection, the first heartbeat) it points
// at the scenario itself, so every failure has a file:line.
func (p *Player) Failf(st *scenarios.Step, format string, args ...any) *scenarios.Failure {
	f := &scenarios.Failure{Message: fmt.Sprintf(format, args...), Bindings: p.B.Snapshot()}
	switch {
	case st != nil:
		f.Step, f.StepDesc, f.Pos = st.Index, st.Describe(), st.Pos
	case p.Scenario != nil:
		f.Pos = p.Scenario.Pos
	}
	return f
}

// Send writes the frame of a step this peer sends.
func (p *Player) Send(ctx context.Context, st *scenarios.Step) (*scenarios.Failure, error) {
	raw, err := scenarios.ResolveFrame(st.Frame, p.B, p.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: step %d: cannot render the frame: %w", st.Pos, st.Index, err)
	}
	if p.StampTrace && st.Frame.Trace == nil && st.Frame.Raw == nil {
		raw = tracing.Stamp(ctx, raw, proto.MaxFrameBytes)
	}
	p.heavy = p.heavy || len(raw) >= HeavyFrameBytes
	if now := time.Now(); p.RealTime && now.After(p.scenarioClock) {
		p.scenarioClock = now // before the write: the other peer cannot have the frame earlier
	}
	if err := p.Conn.Write(ctx, raw); err != nil {
		if len(raw) > proto.MaxFrameBytes {
			// A frame over the peer's read limit is sent to be refused: the peer may close before
			// it has read it all, failing the write. The next step judges how it closed.
			p.Rec.Event("oversize", fmt.Sprintf("the %d-byte %s was refused while being written: %v", len(raw), st.Frame.Type, err))
			return nil, nil
		}
		return p.Failf(st, "could not write %s: %v", st.Frame.Type, err), nil
	}
	return nil, nil
}

// HeavyFrameBytes is the size from which a frame sent makes the step expecting its answer a
// heavy one (Player.HeavyTimeout): a quarter of the 1 MiB frames the catalog sends at the limits.
const HeavyFrameBytes = 256 << 10

// stepBound is the bound of a step that reads: HeavyTimeout right after a heavy frame, else Timeout.
func (p *Player) stepBound() time.Duration {
	if p.heavy {
		return max(p.Timeout, p.HeavyTimeout)
	}
	return p.Timeout
}

// SendGroup writes the frames of an any_order group in a seeded order, so the reader's tolerance is
// exercised and a run can be reproduced from its seed.
func (p *Player) SendGroup(ctx context.Context, st *scenarios.Step) (*scenarios.Failure, error) {
	order := shuffle(len(st.Group), p.Seed+st.Pos.String())
	for _, i := range order {
		if f, err := p.Send(ctx, st.Group[i]); f != nil || err != nil {
			return f, err
		}
	}
	return nil, nil
}

// next returns the next frame the step must look at, filtering heartbeats unless wantHeartbeat;
// ctx carries the step's bound (Within). awaited names what the step waits for, in a failure.
func (p *Player) next(ctx context.Context, st *scenarios.Step, wantHeartbeat bool, awaited string) (Inbound, *scenarios.Failure) {
	for {
		in, err := p.Conn.Next(ctx)
		if err != nil {
			var te *TimeoutError
			if errors.As(err, &te) {
				return in, p.Failf(st, "nothing arrived within %v; waited for %s", te.Bound, awaited)
			}
			return in, p.Failf(st, "%v before the step completed", err)
		}
		if isHeartbeat(in.Raw) && p.OnHeartbeat != nil {
			if err := p.OnHeartbeat(in.Raw); err != nil && !wantHeartbeat {
				return in, p.Failf(st, "invalid heartbeat: %v", err)
			}
			if !wantHeartbeat {
				continue
			}
		}
		return in, nil
	}
}

// awaitDrop waits, within the step bound, until the relay has dropped the frame a `lost` step
// names: the peer really sent it, and whatever it did before sending is done.
func (p *Player) awaitDrop(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	if p.Drops == nil {
		return nil
	}
	if p.lost == nil {
		p.lost = map[string]int{}
	}
	p.lost[st.Frame.Type]++
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	if err := p.Drops.AwaitDrop(ctx, st.Frame.Type, p.lost[st.Frame.Type]); err != nil {
		return p.Failf(st, "the %s frame a fault should drop was never sent within %v (%v)", st.Frame.Type, p.Timeout, err)
	}
	return nil
}

// awaiting names the frames still expected from a peer: "the Runtime's done (id "run")", or a
// list for an any_order group.
func awaiting(from proto.Peer, pending []*scenarios.Step) string {
	var names []string
	for _, s := range pending {
		name := s.Frame.Type
		if id, ok := scenarios.Key(s.Frame.ID); ok {
			name += fmt.Sprintf(" (id %q)", id)
		}
		names = append(names, name)
	}
	what := strings.Join(names, ", ")
	if len(names) > 1 {
		what = fmt.Sprintf("%d frames in any order: %s", len(names), what)
	}
	return fmt.Sprintf("the %s's %s", from, what)
}

func isHeartbeat(raw []byte) bool {
	var env struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &env) == nil && env.Type == proto.TypeHeartbeat
}

// Expect reads the frames of a step sent by the other peer (one frame, or an any_order group) and
// matches them, binding placeholders. The step's bound (Timeout, or HeavyTimeout after a heavy
// frame) starts here, as a deadline on ctx; ctx ending first (the run stopped) fails the step
// with its cause, not as a frame that did not come.
func (p *Player) Expect(ctx context.Context, st *scenarios.Step) ([]*proto.Frame, *scenarios.Failure) {
	if st.Frame != nil && st.Frame.Optional {
		// It may come here, before the next step's frames, or never: skipped once if it does.
		p.optional = append(p.optional, st)
		return nil, nil
	}
	defer func() { p.optional = nil }()
	if st.Frame != nil {
		switch ft := st.Frame; {
		case ft.Lost:
			return nil, p.awaitDrop(ctx, st) // a fault drops it on the way
		case ft.Corrupted != "":
			return nil, p.expectCorrupted(ctx, st)
		case ft.Invalid == oversizeRule:
			// A frame over 4 MiB never arrives: this reader's own read limit closes the transport
			// (CN-41), as it does for a frame a fault made oversize.
			return nil, p.expectCorrupted(ctx, &scenarios.Step{Kind: st.Kind, Pos: st.Pos, Index: st.Index, From: st.From,
				Frame: &scenarios.FrameTemplate{Type: ft.Type, Corrupted: "oversize", Pos: ft.Pos}})
		case ft.Copies > 1:
			// A fault duplicated it: the same frame, that many times.
			var got []*proto.Frame
			for range ft.Copies {
				one := *st
				one.Frame = &scenarios.FrameTemplate{Type: ft.Type, ID: ft.ID, Payload: ft.Payload, Pos: ft.Pos}
				frames, f := p.Expect(ctx, &one) // each copy with a bound of its own
				if f != nil {
					return got, f
				}
				got = append(got, frames...)
			}
			return got, nil
		}
	}
	pending := st.Frames()
	ctx, cancel := Within(ctx, p.stepBound())
	defer cancel()
	p.heavy = false
	var got []*proto.Frame
	// A frame an earlier silence took because it allowed it satisfies the step that expects it.
	for i := 0; i < len(pending); i++ {
		for j, in := range p.taken {
			frame, mm := scenarios.MatchFrame(pending[i].Frame, pending[i].From, in.Raw, p.B)
			if mm != nil {
				continue
			}
			p.taken = append(p.taken[:j:j], p.taken[j+1:]...)
			got = append(got, frame)
			pending = append(pending[:i:i], pending[i+1:]...)
			i--
			p.Rec.Event("allowed", fmt.Sprintf("step %d: the %s frame came early, during a silence that allowed it", st.Index, st.From))
			break
		}
	}
	for len(pending) > 0 {
		wantHB := false
		for _, s := range pending {
			wantHB = wantHB || s.Frame.Type == proto.TypeHeartbeat
		}
		in, f := p.next(ctx, st, wantHB, awaiting(st.From, pending))
		if f != nil {
			f.Expected = pending[0].Frame
			if len(pending) == 1 {
				f.Expected = expectedView(pending[0].Frame, p.B)
			}
			return got, f
		}
		var best *scenarios.FrameMismatch
		matched := -1
		for i, s := range pending {
			frame, mm := scenarios.MatchFrame(s.Frame, s.From, in.Raw, p.B)
			if mm == nil {
				matched = i
				got = append(got, frame)
				break
			}
			if best == nil {
				best = mm
			}
		}
		if matched < 0 && p.take(st, in, nil) {
			continue // a reply an earlier silence allowed, come late
		}
		if matched < 0 {
			what := fmt.Sprintf("%s frame differs: %s", st.From, best.Reason)
			if len(pending) > 1 {
				what = fmt.Sprintf("%s frame matches none of the %d frames still expected in any order; first: %s", st.From, len(pending), best.Reason)
			}
			fail := p.Failf(st, "%s", what)
			fail.Expected, fail.Actual, fail.Diff = best.Expected, best.Actual, Diff(best.Expected, best.Actual)
			if len(pending) == 1 || st.Kind != scenarios.StepAnyOrder {
				fail.Pos = pending[0].Pos
			}
			return got, fail
		}
		pending = append(pending[:matched:matched], pending[matched+1:]...)
		p.untolerate(in)
	}
	return got, nil
}

// untolerate drops the tolerated frames (a silence's allowed frame not yet come) that a frame a
// step expected matches: it came where it was expected, and does not come a second time.
func (p *Player) untolerate(in Inbound) {
	for i := 0; i < len(p.tolerated); i++ {
		a := p.tolerated[i]
		if _, mm := scenarios.MatchFrame(a.Frame, a.From, in.Raw, p.B.Clone()); mm == nil {
			p.tolerated = append(p.tolerated[:i:i], p.tolerated[i+1:]...)
			i--
		}
	}
}

// expectCorrupted reads what a fault made of a frame: a frame that breaks a wire rule, or, for an
// oversize frame, the transport closing on the reader's 4 MiB limit.
// oversizeRule is proto's error for a frame over the 4 MiB transport limit: a step that declares
// it invalid with it is one the reader's read limit refuses.
var oversizeRule = (&proto.RuleError{Type: "envelope", Rule: fmt.Sprintf("frame must be at most %d bytes", proto.MaxFrameBytes)}).Error()

func (p *Player) expectCorrupted(ctx context.Context, st *scenarios.Step) *scenarios.Failure {
	ctx, cancel := Within(ctx, p.Timeout)
	defer cancel()
	in, err := p.Conn.Next(ctx)
	var closed *ClosedError
	switch {
	case st.Frame.Corrupted == "oversize" && errors.As(err, &closed):
		return nil
	case err != nil:
		return p.Failf(st, "waiting for the %s frame a fault corrupted: %v", st.Frame.Corrupted, err)
	case st.Frame.Corrupted == "oversize":
		return p.Failf(st, "an oversize frame must close the transport at the 4 MiB read limit; got %s", frameType(in.Raw))
	}
	if _, perr := proto.ParseFrame(in.Raw); perr == nil {
		return p.Failf(st, "the fault was to corrupt this frame (%s), but a valid %s arrived", st.Frame.Corrupted, frameType(in.Raw))
	}
	return nil
}

func expectedView(ft *scenarios.FrameTemplate, b *scenarios.Bindings) any {
	v := map[string]any{"type": ft.Type}
	if ft.ID != nil {
		v["id"] = b.Expected(ft.ID)
	}
	if ft.Payload != nil {
		v["payload"] = b.Expected(ft.Payload)
	}
	return v
}

// ExpectSilence requires the other peer to send nothing (heartbeats aside) and keep the transport
// open for window, apart from the frames the step allows (st.Allow), each at most once; those not
// come by the end of the window are tolerated later. extra, if not nil, is another event source
// that breaks the silence (a new connection attempt, for the scripted Core). ctx ending before
// the window does (the run stopped) fails the step with its cause.
func (p *Player) ExpectSilence(ctx context.Context, st *scenarios.Step, window time.Duration, extra <-chan string) *scenarios.Failure {
	if p.Gate != nil {
		defer p.Gate.Open(st.Index)
	}
	allowed := slices.Clone(st.Allow)
	defer func() { p.tolerated, p.optional = append(p.tolerated, allowed...), nil }()
	// The window opens at the wire event that opened it (the frame this peer last wrote or read),
	// so a harness that is slow to get here does not shift it; a frame read off the socket after
	// the window closed is after it, however late it is looked at, and is left for the next step.
	opened := time.Now()
	var frames <-chan Inbound
	if p.Conn != nil {
		frames = p.Conn.Frames()
		if m := p.Conn.Mark(); !m.IsZero() && m.Before(opened) {
			opened = m
		}
		// In real time, what a settle guards (native work that must not finish before the clock
		// moves on) is timed by the other peer from its own events, which the frame that came
		// last may reach the wire long after: a starved peer sends a receipt late and the next
		// timer's frame on time. The window opens at the scenario's clock instead, which no timer
		// of a conforming peer beats; a frame inside it is early by the peer's own account.
		if st.Kind == scenarios.StepSettle && p.RealTime && !p.scenarioClock.IsZero() && p.scenarioClock.Before(opened) {
			opened = p.scenarioClock
		}
		for len(p.Conn.unread) > 0 {
			in := p.Conn.unread[0]
			p.Conn.unread = p.Conn.unread[1:]
			if done, f := p.brokeSilence(st, window, opened, in, &allowed); done {
				return f
			}
		}
	}
	t := time.NewTimer(time.Until(opened.Add(window)))
	defer t.Stop()
	over := false // the window has closed: only frames already read off the socket are judged
	for {
		var in Inbound
		if over {
			var ok bool
			select {
			case in, ok = <-frames:
			default:
			}
			if !ok {
				return nil // nothing more arrived in time; a close is the next step's to see
			}
		} else {
			select {
			case <-t.C:
				over = true
				continue
			case <-ctx.Done():
				return p.Failf(st, "%v before the step completed", context.Cause(ctx))
			case what := <-extra:
				return p.Failf(st, "the %s was to stay silent for %v, but %s", st.From, window, what)
			case got, ok := <-frames:
				if !ok {
					return p.Failf(st, "the %s was to stay silent for %v, but %v", st.From, window, p.Conn.ClosedErr())
				}
				in = got
			}
		}
		if isHeartbeat(in.Raw) && p.OnHeartbeat != nil {
			if err := p.OnHeartbeat(in.Raw); err != nil {
				return p.Failf(st, "invalid heartbeat: %v", err)
			}
			continue
		}
		if done, f := p.brokeSilence(st, window, opened, in, &allowed); done {
			return f
		}
	}
}

// brokeSilence judges a frame that arrived while a silence window was watched: after the window
// it is put back for the next step (done); inside it, a frame the silence allows is taken and the
// watch goes on (not done), and any other breaks the silence (done, with the failure).
func (p *Player) brokeSilence(st *scenarios.Step, window time.Duration, opened time.Time, in Inbound, allowed *[]*scenarios.Step) (done bool, f *scenarios.Failure) {
	if in.At.After(opened.Add(window)) {
		p.Conn.Unread(in)
		return true, nil
	}
	if p.take(st, in, allowed) {
		return false, nil
	}
	actual, _ := scenarios.DecodeJSON(in.Raw)
	f = p.Failf(st, "the %s was to stay silent for %v, but sent %s", st.From, window, frameType(in.Raw))
	if len(st.Allow) > 0 {
		f.Message += ", which the step does not allow"
	}
	f.Actual, f.Diff = actual, Diff(nil, actual)
	return true, f
}

func frameType(raw []byte) string {
	var env struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Type == "" {
		return "a frame that is not an envelope"
	}
	if env.ID != "" {
		return fmt.Sprintf("%s (id %q)", env.Type, env.ID)
	}
	return env.Type
}

// AwaitTaken waits, before this peer moves the other's clock, until what this peer sent is in the
// other's kernel (AwaitSent) and the other's readers have taken it (readAll: the kernel's word,
// package sockwatch, for a peer in this process). Each wait is for an event; the step bound
// (Timeout) is the safety net, and a wait that runs out is noted on the transcript and the clock
// moves anyway, as it would against a peer nobody watches. errors.ErrUnsupported from readAll (a
// platform that cannot watch) is no wait at all.
func (p *Player) AwaitTaken(ctx context.Context, readAll func(context.Context) error) {
	other, timeout := p.Self.Other(), p.Timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if p.Conn != nil {
		if err := p.Conn.AwaitSent(ctx); err != nil && !errors.Is(err, ErrCannotCount) {
			p.Rec.Event("advance", fmt.Sprintf("what the %s sent did not all reach the %s: %v; the clock moves anyway", p.Self, other, err))
			return
		}
	}
	if p.Relay != nil {
		// The frames may be in the relay yet: a peer found idle now could still get them after
		// the clock moved (a heartbeat reaching Core after the advance that expired it).
		if err := p.Relay.AwaitForwarded(ctx); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			p.Rec.Event("advance", fmt.Sprintf("the relay did not pass on what the %s sent within %v: %v; the clock moves anyway", p.Self, timeout, err))
			return
		}
	}
	if err := readAll(ctx); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		p.Rec.Event("advance", fmt.Sprintf("the %s did not get back to reading within %v: %v; the clock moves anyway", other, timeout, err))
	}
}

// Forwarder is a relay that can say it has passed on everything that reached it
// (fault.Relay.AwaitForwarded).
type Forwarder interface {
	AwaitForwarded(ctx context.Context) error
}

// Advanced notes that the peer moved the clock by d: a silence window that follows opens now, not
// at the last frame (against a Runtime in another process an advance is a real wait).
func (p *Player) Advanced(d time.Duration) {
	if p.RealTime && !p.scenarioClock.IsZero() {
		p.scenarioClock = p.scenarioClock.Add(d)
	}
	if p.Conn != nil {
		p.Conn.setMark(time.Now())
	}
}

// QuietWait is what the peer that must stay silent does: nothing, until the observer's window is
// over (with a shared Gate), or for slightly longer than the window.
func (p *Player) QuietWait(ctx context.Context, st *scenarios.Step) {
	if p.Gate != nil {
		p.Gate.Wait(ctx, st.Index, p.Timeout+st.Window)
		return
	}
	t := time.NewTimer(st.Window + st.Window/2 + 5*time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// shuffle returns a seeded permutation of 0..n-1.
func shuffle(n int, seed string) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	h := uint64(1469598103934665603)
	for _, c := range []byte(seed) {
		h = (h ^ uint64(c)) * 1099511628211
	}
	for i := n - 1; i > 0; i-- {
		h ^= h << 13
		h ^= h >> 7
		h ^= h << 17
		j := int(h % uint64(i+1))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Result assembles the verdict of a run.
func (p *Player) Result(played scenarios.Side, verdict scenarios.Verdict, f *scenarios.Failure) *scenarios.Result {
	sc := p.Scenario
	return &scenarios.Result{Scenario: sc.ID, Title: sc.Title, Spec: sc.Spec, Labels: sc.Labels, Played: played,
		Verdict: verdict, Failure: f, Transcript: p.Rec.Transcript(), Seed: p.Seed, Duration: p.Rec.Elapsed(),
		Started: p.Rec.Start()}
}

// HarnessFailure turns a harness problem (a broken scenario, a machine error) into a failure
// record; it is never blamed on the implementation.
func (p *Player) HarnessFailure(err error) *scenarios.Failure {
	return &scenarios.Failure{Message: "harness error: " + strings.TrimSpace(err.Error()), Bindings: p.B.Snapshot()}
}
