package journal

import (
	"encoding/base64"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Difference is one verdict that the current validators or catalog give otherwise than the
// recorded run did.
type Difference struct {
	Record int // the record it is about (the assertion's for the scenario's verdict)
	What   string
}

// Rejudged is what rejudging one journal found.
type Rejudged struct {
	Scenario string
	Played   string
	Frames   int    // frames whose proto verdict was recomputed
	Matched  int    // frames of the peer under test matched against the scenario's steps
	Recorded string // the recorded verdict
	// Now is the verdict the recorded frames get from the current catalog: "pass", "fail at
	// step N" (a step the recorded run passed, or never reached while passing, now fails),
	// NowAsRecorded (a run recorded as not passing whose frames still match every step up to
	// where it ended), NowNotApplicable (recorded not applicable: nothing was played, so no step
	// is rejudged), or "" when the scenario is not in the catalog.
	Now         string
	Differences []Difference
}

// The values of Rejudged.Now that keep the recorded verdict without a step's verdict of their own.
const (
	NowAsRecorded    = "as recorded"
	NowNotApplicable = "not applicable"
)

// Rejudge recomputes, from a journal's records alone, (1) the proto validator's verdict on every
// recorded frame, and (2) the scenario's expected frames, from the current catalog, matched in
// order against the recorded frames of the peer under test (placeholders bound from the frames
// wirecheck sent, as the player binds them), and lists what differs from the recorded verdicts.
// Timing (silence windows, deadlines) is not rejudged: a journal holds when frames arrived, not
// what a timer would have decided.
//
// A run recorded as not passing ended at its failure (step 0: the connection, before the first
// step, or a check outside the steps), so a frame it never recorded is not held against it: only
// the frames it did record are matched, and only up to its failing step. A run recorded as not
// applicable played no step, so none is matched.
func Rejudge(recs []Record, cat *scenarios.Catalog) Rejudged {
	var out Rejudged
	if len(recs) == 0 || recs[0].Header == nil {
		out.Differences = []Difference{{Record: 0, What: "no header: not a journal"}}
		return out
	}
	h := recs[0].Header
	out.Scenario, out.Played = h.Scenario, h.Played
	var frames []Record
	assertionAt, failStep, failedOnFrame := -1, 0, false
	for _, r := range recs {
		switch {
		case r.Frame != nil:
			out.Frames++
			frames = append(frames, r)
			if now := Validate(r.Frame.Raw); now != r.Frame.Verdict {
				out.Differences = append(out.Differences, Difference{r.N, fmt.Sprintf("%s %s: the validator said %q, now says %q", r.Frame.Dir, r.Frame.Type, r.Frame.Verdict, now)})
			}
		case r.Assertion != nil:
			assertionAt, out.Recorded = r.N, r.Assertion.Verdict
			failStep, failedOnFrame = r.Assertion.Step, len(r.Assertion.Actual) > 0
		}
	}
	sc, ok := cat.Get(h.Scenario)
	if !ok {
		out.Differences = append(out.Differences, Difference{assertionAt, "the scenario is no longer in the catalog"})
		return out
	}
	recorded := out.Recorded
	if recorded == string(scenarios.NotApplicable) {
		out.Now = NowNotApplicable
		return out
	}
	self := proto.Core
	if h.Played == string(scenarios.SideRuntime) {
		self = proto.Runtime
	}
	passed := recorded == string(scenarios.Pass)
	m := matchSteps(sc, self, frames, failStep, !passed)
	out.Matched = m.matched
	switch {
	case m.step > 0:
		out.Now = fmt.Sprintf("fail at step %d", m.step)
	case passed:
		out.Now = "pass"
	default:
		out.Now = NowAsRecorded
	}
	switch {
	case passed && m.step > 0:
		out.Differences = append(out.Differences, Difference{m.record, fmt.Sprintf("recorded pass; step %d now fails: %s", m.step, m.reason)})
	case recorded == string(scenarios.Fail) && failedOnFrame && m.step == 0:
		out.Differences = append(out.Differences, Difference{assertionAt, fmt.Sprintf("recorded a frame mismatch at step %d; the recorded frames now match every step", failStep)})
	case m.step > 0 && failStep == 0:
		// Step 0 is no step: the connection, the first heartbeat, or a check after the last step.
		out.Differences = append(out.Differences, Difference{m.record, fmt.Sprintf("recorded %s outside the steps; step %d, which its recorded frames reached, now fails: %s", recorded, m.step, m.reason)})
	case m.step > 0 && m.step < failStep:
		out.Differences = append(out.Differences, Difference{m.record, fmt.Sprintf("recorded %s at step %d; step %d, before it, now fails: %s", recorded, failStep, m.step, m.reason)})
	}
	return out
}

// match is the first step the recorded frames do not match (step 0: none).
type match struct {
	matched, step, record int
	reason                string
}

// matchSteps walks the scenario's frame steps in order, up to stop (0: all), consuming the
// recorded frames: wirecheck's own to bind placeholders, the other peer's (heartbeats aside,
// unless a step expects one) to match. ended: the run ended early (at its failure), so running
// out of recorded frames fails no step.
func matchSteps(sc *scenarios.Scenario, self proto.Peer, frames []Record, stop int, ended bool) match {
	b := scenarios.BindingsWith(sc.Vars)
	var mine, theirs []Record
	for _, r := range frames {
		if scenarios.Direction(r.Frame.Dir) == from(self) {
			mine = append(mine, r)
		} else {
			theirs = append(theirs, r)
		}
	}
	var m match
	// tolerated: frames a silence allowed instead of nothing, which may come then or later, once.
	var tolerated []*scenarios.Step
	// mayEnd: a step passed says the Runtime may end its transport from there on (disconnect
	// may_end): a run that recorded nothing more ended as allowed, and what never came is not
	// rejudged, as the player did not judge it.
	mayEnd := false
	for _, st := range sc.Steps {
		if stop > 0 && st.Index > stop {
			break
		}
		if st.Kind == scenarios.StepDisconnect && st.Close.MayEnd && st.Close.By != self {
			mayEnd = true
		}
		if st.Kind == scenarios.StepSilence && st.From != self {
			tolerated = append(tolerated, st.Allow...)
		}
		if st.Frame != nil && st.Frame.Optional && st.From != self {
			tolerated = append(tolerated, st)
			continue
		}
		if st.Kind == scenarios.StepBound && st.From != self && !mayEnd {
			for _, name := range st.Names {
				if _, ok := b.Get(name); !ok {
					return match{matched: m.matched, step: st.Index, reason: fmt.Sprintf("no frame of the %s bound ${%s}", st.From, name)}
				}
			}
			continue
		}
		if st.Kind == scenarios.StepExportPull {
			var fail *match
			mine, theirs, fail = m.pullExport(st, self, mine, theirs, b, ended || mayEnd)
			if fail != nil {
				return *fail
			}
			continue
		}
		group := st.Frames()
		if len(group) == 0 {
			continue
		}
		if st.From == self {
			for _, s := range group {
				if len(mine) == 0 {
					break
				}
				_, _ = scenarios.MatchFrame(s.Frame, s.From, []byte(mine[0].Frame.Raw), b) // binds what wirecheck generated
				mine = mine[1:]
			}
			continue
		}
		var pending []*scenarios.Step
		for _, s := range group {
			switch ft := s.Frame; {
			case ft.Lost || ft.Invalid == oversizeRule || ft.Corrupted == "oversize":
				// never arrives
			case ft.Copies > 1:
				for range ft.Copies {
					pending = append(pending, s)
				}
			default:
				pending = append(pending, s)
			}
		}
		for len(pending) > 0 {
			wantHB := false
			for _, s := range pending {
				wantHB = wantHB || s.Frame.Type == proto.TypeHeartbeat
			}
			for len(theirs) > 0 && !wantHB && theirs[0].Frame.Type == proto.TypeHeartbeat {
				theirs = theirs[1:]
			}
			if len(theirs) == 0 {
				if ended || mayEnd {
					return m // the run ended at its failure, or as a may_end step allows; what never came is not rejudged
				}
				return match{matched: m.matched, step: st.Index, reason: fmt.Sprintf("expected %s, and no frame was recorded", pending[0].Frame.Type)}
			}
			got := theirs[0]
			theirs = theirs[1:]
			hit := -1
			var first *scenarios.FrameMismatch
			for i, s := range pending {
				var mm *scenarios.FrameMismatch
				if s.Frame.Corrupted != "" {
					if Validate(got.Frame.Raw) == "ok" {
						mm = &scenarios.FrameMismatch{Reason: "a fault was to corrupt this frame, but it is valid"}
					}
				} else {
					_, mm = scenarios.MatchFrame(s.Frame, s.From, []byte(got.Frame.Raw), b)
				}
				if mm == nil {
					hit = i
					break
				}
				if first == nil {
					first = mm
				}
			}
			if hit < 0 {
				if i := allowedFrame(tolerated, got, b); i >= 0 {
					tolerated = append(tolerated[:i:i], tolerated[i+1:]...)
					m.matched++
					continue
				}
				return match{matched: m.matched, step: st.Index, record: got.N, reason: fmt.Sprintf("%s %s (record %d): %s", st.From, got.Frame.Type, got.N, first.Reason)}
			}
			m.matched++
			pending = append(pending[:hit:hit], pending[hit+1:]...)
		}
	}
	return m
}

// pullExport rejudges an export_pull step as the player judged it: the Runtime's chunks in order,
// each at the bytes received so far (Core's next between them binds as wirecheck sent it), until
// completed there, then the archive against the step's template. It returns the frames left, or
// the failure; stop: the run ended before the pull did, which holds against no step.
func (m *match) pullExport(st *scenarios.Step, self proto.Peer, mine, theirs []Record, b *scenarios.Bindings, stop bool) ([]Record, []Record, *match) {
	if st.From == self {
		return mine, theirs, nil // a scripted Runtime served it: what it sent is not judged
	}
	var archive []byte
	for {
		for len(theirs) > 0 && theirs[0].Frame.Type == proto.TypeHeartbeat {
			theirs = theirs[1:]
		}
		want := st.Export.Awaited(st, len(archive))
		if len(theirs) == 0 {
			if stop {
				return mine, theirs, nil
			}
			return mine, theirs, &match{matched: m.matched, step: st.Index, reason: fmt.Sprintf("expected %s at offset %d, and no frame was recorded", want.Frame.Type, len(archive))}
		}
		got := theirs[0]
		theirs = theirs[1:]
		frame, mm := scenarios.MatchFrame(want.Frame, want.From, []byte(got.Frame.Raw), b)
		if mm != nil {
			return mine, theirs, &match{matched: m.matched, step: st.Index, record: got.N,
				reason: fmt.Sprintf("pulling the export at offset %d: %s %s (record %d): %s", len(archive), st.From, got.Frame.Type, got.N, mm.Reason)}
		}
		m.matched++
		res, _ := frame.Payload.(*proto.WorkspaceExportResultPayload)
		if res == nil || res.Outcome == proto.OutcomeCompleted {
			break
		}
		archive = append(archive, res.Data...)
		if len(mine) > 0 { // the next wirecheck sent
			_, _ = scenarios.MatchFrame(st.Export.Next(st, len(archive)).Frame, self, []byte(mine[0].Frame.Raw), b)
			mine = mine[1:]
		}
	}
	if st.Export.Archive != nil {
		got := map[string]any{"archive": base64.StdEncoding.EncodeToString(archive)}
		if mm := b.Match(map[string]scenarios.Value{"archive": st.Export.Archive}, got); mm != nil {
			return mine, theirs, &match{matched: m.matched, step: st.Index, reason: fmt.Sprintf("the export's archive (%d bytes) differs: %s", len(archive), mm)}
		}
	}
	return mine, theirs, nil
}

// allowedFrame returns the index of the tolerated frame (a silence's allowed reply) got matches,
// binding what it binds, or -1.
func allowedFrame(tolerated []*scenarios.Step, got Record, b *scenarios.Bindings) int {
	for i, s := range tolerated {
		if _, mm := scenarios.MatchFrame(s.Frame, s.From, []byte(got.Frame.Raw), b); mm == nil {
			return i
		}
	}
	return -1
}

func from(p proto.Peer) scenarios.Direction {
	if p == proto.Core {
		return scenarios.CoreToRuntime
	}
	return scenarios.RuntimeToCore
}

// oversizeRule is proto's error for a frame over the transport limit: a frame that declares it
// never arrives (the reader's read limit closes the transport).
var oversizeRule = (&proto.RuleError{Type: "envelope", Rule: fmt.Sprintf("frame must be at most %d bytes", proto.MaxFrameBytes)}).Error()
