package script

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// Direction aliases the transcript directions.
type Direction = scenarios.Direction

// Recorder keeps the transcript of one run; it is safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	start time.Time
	step  int
	out   []scenarios.Exchange
}

// NewRecorder starts a transcript now.
func NewRecorder() *Recorder { return &Recorder{start: time.Now()} }

// SetStep tags later entries with a step index.
func (r *Recorder) SetStep(i int) { r.mu.Lock(); r.step = i; r.mu.Unlock() }

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
