package journal

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// eventKinds sorts the scripted peers' transport events (internal/script, scriptedcore,
// scriptedruntime, the fault relay) into record kinds; any other name is KindEvent.
var eventKinds = map[string]Kind{
	"attempt": KindConnection, "reject": KindConnection, "rejected": KindConnection,
	"unusable": KindConnection, "accept-failed": KindConnection, "connected": KindConnection,
	"refused": KindConnection, "closed": KindConnection, "close": KindConnection,
	"drop": KindConnection, "abandoned": KindConnection, "handshake-timeout": KindConnection,
	"stall": KindConnection, "device-status": KindConnection,
	"started": KindProcess, "stop": KindProcess, "restart": KindProcess,
	"advance": KindClock,
	"fault":   KindFault, "stop-reading": KindFault, "resume-reading": KindFault, "stalled": KindFault,
	"discard": KindFault, "oversize": KindFault,
}

// Facts are the records of a scenario's result after the header, in order: its transcript (in
// the order given: reports put it in time order first), how each daemon ended, and the
// assertion. Frames get their connection generation (the number of "connected" events before
// them), their sequence per connection and direction, and the proto validator's verdict.
func Facts(res *scenarios.Result) []Record {
	out := make([]Record, 0, len(res.Transcript)+len(res.Daemons)+1)
	conn := 0
	seq := map[string]int{}
	for _, e := range res.Transcript {
		r := Record{Mono: int64(e.At), Wall: wall(res, e.At), Step: e.Step}
		switch e.Dir {
		case scenarios.CoreToRuntime, scenarios.RuntimeToCore:
			seq[string(e.Dir)]++
			id, verdict := inspect(e.Frame)
			r.Kind = KindFrame
			r.Frame = &Frame{Dir: string(e.Dir), Conn: conn, Seq: seq[string(e.Dir)], Type: e.Type,
				ID: id, Raw: e.Frame, Verdict: verdict}
		default:
			k, ok := eventKinds[e.Type]
			if !ok {
				k = KindEvent
			}
			if e.Type == "connected" {
				conn++
				clear(seq)
			}
			r.Kind, r.Event = k, &Event{Name: e.Type, Note: e.Note}
		}
		out = append(out, r)
	}
	for i, d := range res.Daemons {
		out = append(out, Record{Kind: KindExit, Mono: int64(res.Duration), Wall: wall(res, res.Duration),
			Exit: &Exit{Daemon: i + 1, Exit: d.Exit, Code: d.Code, Killed: d.Killed, LeftBehind: d.LeftBehind}})
	}
	return append(out, Record{Kind: KindAssertion, Mono: int64(res.Duration), Wall: wall(res, res.Duration), Assertion: assertion(res)})
}

// wall is the wall clock at an offset into the scenario (empty for a result without its start).
func wall(res *scenarios.Result, at time.Duration) string {
	if res.Started.IsZero() {
		return ""
	}
	return WallTime(res.Started.Add(at))
}

// WallTime is how a record writes a wall clock.
func WallTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Validate is the proto validator's verdict on a frame: "ok" or its error.
func Validate(raw string) string { _, v := inspect(raw); return v }

// inspect is a frame's envelope id and the validator's verdict, from one parse when it is valid
// (frames reach 4 MiB: a journal reads each once).
func inspect(raw string) (id, verdict string) {
	f, err := proto.ParseFrame([]byte(raw))
	if err == nil {
		return f.ID, "ok"
	}
	var env struct {
		ID any `json:"id"`
	}
	_ = json.Unmarshal([]byte(raw), &env) // a frame that is not an envelope has no id
	id, _ = env.ID.(string)
	return id, err.Error()
}

func assertion(res *scenarios.Result) *Assertion {
	a := &Assertion{Verdict: string(res.Verdict)}
	f := res.Failure
	if f == nil {
		return a
	}
	a.Step, a.StepDesc, a.File, a.Line, a.Message = f.Step, f.StepDesc, f.Pos.File, f.Pos.Line, f.Message
	a.Expected, a.Actual = rawJSON(f.Expected), rawJSON(f.Actual)
	a.Diff, a.Cause, a.Missing, a.Bindings = f.Diff, f.Cause, f.Missing, f.Bindings
	return a
}

func rawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.Reset()
		_ = enc.Encode(fmt.Sprint(v)) // not JSON: its text
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Write writes the journal of res: the header h, its facts, and the anchor signed with key
// (unsigned if key is nil). It returns the records as written (numbered and chained).
func Write(w io.Writer, h Header, res *scenarios.Result, key ed25519.PrivateKey) ([]Record, error) {
	h.Scenario, h.Title, h.Played = res.Scenario, res.Title, string(res.Played)
	if h.Seed == "" {
		h.Seed = res.Seed
	}
	jw, err := NewWriter(w, h)
	if err != nil {
		return nil, err
	}
	facts := Facts(res)
	for i := range facts {
		if err := jw.Append(&facts[i]); err != nil {
			return nil, err
		}
	}
	if err := jw.Close(key); err != nil {
		return nil, err
	}
	return append(append([]Record{jw.header}, facts...), jw.anchor), nil
}

// Read decodes every record of a journal, without checking the chain (Verify does).
func Read(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxLine+1)
	var out []Record
	for line := 1; sc.Scan(); line++ {
		rec, err := DecodeRecord(sc.Bytes())
		if err != nil {
			return out, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("line %d: %w", len(out)+1, err)
	}
	return out, nil
}

// Transcript is the transcript the records hold, as the reports render it: every frame and
// transport event in journal order.
func Transcript(recs []Record) []scenarios.Exchange {
	var out []scenarios.Exchange
	for _, r := range recs {
		e := scenarios.Exchange{At: time.Duration(r.Mono), Step: r.Step}
		switch {
		case r.Frame != nil:
			e.Dir, e.Type, e.Frame = scenarios.Direction(r.Frame.Dir), r.Frame.Type, r.Frame.Raw
		case r.Event != nil:
			e.Dir, e.Type, e.Note = scenarios.Event, r.Event.Name, r.Event.Note
		default:
			continue
		}
		out = append(out, e)
	}
	return out
}
