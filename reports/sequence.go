package reports

import (
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Geometry of the sequence diagram, in SVG user units (CSS pixels at 100%).
const (
	seqWidth    = 1040 // the width of a case's body on a wide screen; narrower ones scroll
	seqCoreX    = 250
	seqRuntimeX = 940
	seqTop      = 52 // first row
	seqRowH     = 28
	seqLabelMax = 60 // characters of an arrow label before it is cut
	seqNoteMax  = 78
	seqTitleMax = 4000 // characters of frame JSON in a hover tooltip
)

// diagram is a laid-out sequence diagram: two lifelines (Core, Runtime), one row per transcript
// entry. html/template renders it as inline SVG, escaping every string.
type diagram struct {
	Width, Height         int
	CoreX, RuntimeX       int
	CoreName, RuntimeName string // "Core (wirecheck)", "Runtime (under test)"
	LifelineBottom        int
	Rows                  []seqRow
	Bands                 []seqBand // the failing step's rows, highlighted
}

// seqRow is one arrow or note.
type seqRow struct {
	Kind   string // "frame", "event", "missing" (an expected frame that never came), "verdict"
	Y      int
	X1, X2 int // frame/missing: from and to; event/verdict: the note box's left and right
	LabelX int
	Label  string
	Step   int
	At     string
	Title  string // hover text: the frame, pretty-printed
	Href   string // link to the transcript entry
	Class  string // extra CSS classes: heartbeat, fail, garbage
	// Derived coordinates, so the template needs no arithmetic.
	End    int // frame/missing: where the line stops
	LabelY int
	BoxY   int // event/verdict: the note box
	BoxW   int
	TextY  int // the margin's step and offset
}

type seqBand struct{ Y, H int }

// layoutSequence lays out a case's transcript; id prefixes the links to its transcript entries.
// When the case did not pass, the rows of the failing step are highlighted, an expected frame that
// never arrived is drawn as a dashed arrow, and a last note gives the verdict.
func layoutSequence(res *scenarios.Result, id string) diagram {
	d := diagram{Width: seqWidth, CoreX: seqCoreX, RuntimeX: seqRuntimeX,
		CoreName: "Core", RuntimeName: "Runtime"}
	switch res.Played {
	case scenarios.SideCore:
		d.CoreName, d.RuntimeName = "Core (wirecheck)", "Runtime (under test)"
	case scenarios.SideRuntime:
		d.CoreName, d.RuntimeName = "Core (under test)", "Runtime (wirecheck)"
	}
	x := func(p proto.Peer) int {
		if p == proto.Core {
			return seqCoreX
		}
		return seqRuntimeX
	}
	f := res.Failure
	failing := f != nil && res.Verdict != scenarios.Pass && res.Verdict != scenarios.NotApplicable
	failStep := -1
	if failing {
		failStep = f.Step
	}
	y := seqTop
	addBand := func(step int) {
		if !failing || step != failStep {
			return
		}
		if n := len(d.Bands); n > 0 && d.Bands[n-1].Y+d.Bands[n-1].H == y-seqRowH/2-2 {
			d.Bands[n-1].H += seqRowH
			return
		}
		d.Bands = append(d.Bands, seqBand{Y: y - seqRowH/2 - 2, H: seqRowH})
	}
	for i, e := range res.Transcript {
		row := seqRow{Y: y, Step: e.Step, At: offset(e.At), Href: fmt.Sprintf("#%s-x%d", id, i)}
		switch e.Dir {
		case scenarios.CoreToRuntime, scenarios.RuntimeToCore:
			row.Kind = "frame"
			from := proto.Core
			if e.Dir == scenarios.RuntimeToCore {
				from = proto.Runtime
			}
			row.X1, row.X2 = x(from), x(from.Other())
			label := e.Type
			if fid := frameID(e.Frame); fid != "" {
				label += " · " + fid
			}
			row.Label = cut(label, seqLabelMax)
			row.Title = cut(prettyFrame(e.Frame), seqTitleMax)
			switch e.Type {
			case "heartbeat":
				row.Class = "heartbeat"
			case "(not an envelope)":
				row.Class = "garbage"
			}
		default:
			row.Kind = "event"
			row.X1, row.X2 = seqCoreX+40, seqRuntimeX-40
			label := e.Type
			if e.Note != "" {
				label += ": " + e.Note
			}
			row.Label = cut(label, seqNoteMax)
			row.Title = label
		}
		row.LabelX = (row.X1 + row.X2) / 2
		addBand(e.Step)
		if failing && e.Step == failStep {
			row.Class = strings.TrimSpace(row.Class + " fail")
		}
		d.Rows = append(d.Rows, row)
		y += seqRowH
	}
	if failing {
		// An expected frame that never arrived is drawn where it should have been.
		if exp, ok := f.Expected.(map[string]any); ok && f.Actual == nil {
			if typ, _ := exp["type"].(string); typ != "" {
				from := proto.Runtime
				if res.Played == scenarios.SideRuntime {
					from = proto.Core
				}
				if spec, ok := proto.Lookup(typ); ok {
					from = spec.From
				}
				label := "expected " + typ
				if id, _ := exp["id"].(string); id != "" {
					label += " · " + id
				}
				addBand(failStep)
				d.Rows = append(d.Rows, seqRow{Kind: "missing", Y: y, Step: failStep, X1: x(from), X2: x(from.Other()),
					LabelX: (x(from) + x(from.Other())) / 2, Label: cut(label+" — not received", seqLabelMax),
					Title: prettyJSON(f.Expected), Class: "fail", Href: "#" + id + "-failure"})
				y += seqRowH
			}
		}
		addBand(failStep)
		d.Rows = append(d.Rows, seqRow{Kind: "verdict", Y: y, Step: failStep, X1: 20, X2: seqWidth - 20,
			LabelX: seqWidth / 2, Label: cut(fmt.Sprintf("✗ %s %s: %s", res.Verdict, stepWords(f.Step), failureReason(f)), 120),
			Title: f.Message, Class: "fail", Href: "#" + id + "-failure"})
		y += seqRowH
	}
	for i := range d.Rows {
		r := &d.Rows[i]
		r.TextY, r.LabelY = r.Y+4, r.Y-6
		r.BoxY, r.BoxW = r.Y-9, r.X2-r.X1
		switch {
		case r.X2 > r.X1:
			r.End = r.X2 - 2
		default:
			r.End = r.X2 + 2
		}
		if r.Kind == "event" || r.Kind == "verdict" {
			r.LabelY = r.TextY
		}
	}
	d.LifelineBottom = y - seqRowH/2
	d.Height = y
	return d
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// stepWords is "at step 3", or "before the first step".
func stepWords(step int) string {
	if step == 0 {
		return stepName(step)
	}
	return "at " + stepName(step)
}
