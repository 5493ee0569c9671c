package script

import (
	"encoding/json"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/wirecheck/wirecheck/journal"
	"github.com/wirecheck/wirecheck/scenarios"
)

// Direction aliases the transcript directions.
type Direction = scenarios.Direction

// Recorder keeps the transcript of one run; it is safe for concurrent use. Every entry is also
// a span event on the span set by Trace, so a trace shows the same facts as the transcript
// without a second recording path.
type Recorder struct {
	mu    sync.Mutex
	start time.Time
	step  int
	out   []scenarios.Exchange
	span  trace.Span // nil, or non-recording: no span events
	// The connection generation and per-direction sequence of frames, counted as the journal
	// counts them (journal.Facts): a generation per "connected" event.
	conn int
	seq  map[Direction]int
}

// NewRecorder starts a transcript now.
func NewRecorder() *Recorder { return &Recorder{start: time.Now(), seq: map[Direction]int{}} }

// SetStep tags later entries with a step index.
func (r *Recorder) SetStep(i int) { r.mu.Lock(); r.step = i; r.mu.Unlock() }

// Trace makes later entries span events of span (the running step's span, or the scenario's
// between steps). A frame read while a step runs belongs to that step, as its transcript tag does.
func (r *Recorder) Trace(span trace.Span) { r.mu.Lock(); r.span = span; r.mu.Unlock() }

// Frame records a frame on the wire.
func (r *Recorder) Frame(dir Direction, raw []byte) {
	var env struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &env)
	if env.Type == "" {
		env.Type = "(not an envelope)"
	}
	r.add(scenarios.Exchange{Dir: dir, Type: env.Type, Frame: string(raw)})
}

// Event records a transport event.
func (r *Recorder) Event(name, note string) {
	r.add(scenarios.Exchange{Dir: scenarios.Event, Type: name, Note: note})
}

func (r *Recorder) add(e scenarios.Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.At = time.Since(r.start)
	e.Step = r.step
	r.out = append(r.out, e)
	switch e.Dir {
	case scenarios.CoreToRuntime, scenarios.RuntimeToCore:
		r.seq[e.Dir]++
	default:
		if e.Type == "connected" {
			r.conn++
			clear(r.seq)
		}
	}
	if r.span != nil && r.span.IsRecording() {
		r.span.AddEvent(spanEvent(e, r.conn, r.seq[e.Dir]))
	}
}

// Span event and attribute names of transcript entries (docs/tracing.md).
const (
	EventFrame     = "frame"
	AttrDirection  = "wirecheck.frame.direction"
	AttrFrameType  = "wirecheck.frame.type"
	AttrFrameID    = "wirecheck.frame.id"
	AttrFrameConn  = "wirecheck.frame.connection"
	AttrFrameSeq   = "wirecheck.frame.sequence"
	AttrFrameBytes = "wirecheck.frame.bytes"
	AttrVerdict    = "wirecheck.frame.verdict"
	AttrNote       = "wirecheck.event.note"
)

// spanEvent is an entry as a span event. A frame carries what identifies it and the validator's
// verdict, never its payload (credentials and bulk data stay in the redacted journal); a
// transport event carries its name and note, which the journal keeps too.
func spanEvent(e scenarios.Exchange, conn, seq int) (string, trace.EventOption) {
	if e.Dir == scenarios.Event {
		return e.Type, trace.WithAttributes(attribute.String(AttrNote, e.Note))
	}
	var env struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal([]byte(e.Frame), &env)
	id, _ := env.ID.(string)
	return EventFrame, trace.WithAttributes(
		attribute.String(AttrDirection, string(e.Dir)), attribute.String(AttrFrameType, e.Type),
		attribute.String(AttrFrameID, id), attribute.Int(AttrFrameConn, conn), attribute.Int(AttrFrameSeq, seq),
		attribute.Int(AttrFrameBytes, len(e.Frame)), attribute.String(AttrVerdict, journal.Validate(e.Frame)))
}

// Transcript returns a copy of what was recorded.
func (r *Recorder) Transcript() []scenarios.Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]scenarios.Exchange(nil), r.out...)
}

// Elapsed is the time since the run started.
func (r *Recorder) Elapsed() time.Duration { return time.Since(r.start) }

// Start is the wall clock when the transcript started.
func (r *Recorder) Start() time.Time { return r.start }
