package load

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// coreTurn is what the load reads of GET /api/v1/turns/{id}.
type coreTurn struct {
	ID        string    `json:"turn_id"`
	RunID     string    `json:"run_id"`
	Phase     string    `json:"phase"`
	CreatedAt time.Time `json:"created_at"`
	Outcome   *struct {
		Status     string          `json:"status"`
		Reason     string          `json:"error_code"`
		Content    string          `json:"content"`
		Usage      json.RawMessage `json:"usage"`
		RecordedAt time.Time       `json:"recorded_at"`
	} `json:"outcome"`
}

// coreEvent is one record of GET /api/v1/turns/{id}/journal.
type coreEvent struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	Type string    `json:"type"`
	ID   string    `json:"id"`
}

// drain waits until every Turn the Core accepted has an outcome, or Drain passes.
func (d *driver) drain(ctx context.Context) {
	deadline := time.Now().Add(d.cfg.Drain)
	pending := d.accepted()
	for len(pending) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		var next []*turnRec
		for _, t := range pending {
			var ct coreTurn
			if st, err := d.call(ctx, http.MethodGet, "/api/v1/turns/"+t.id, nil, &ct); err != nil || st != http.StatusOK || ct.Outcome == nil {
				next = append(next, t)
			}
		}
		pending = next
		if len(pending) > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
}

func (d *driver) accepted() []*turnRec {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*turnRec
	for _, t := range d.turns {
		if t.id != "" {
			out = append(out, t)
		}
	}
	return out
}

// verify reads every accepted Turn's record and journal back from the Core, measures the
// latencies from them and checks the protocol's promises.
func (d *driver) verify(ctx context.Context) error {
	turns := d.accepted()
	recs := make([]coreTurn, len(turns))
	journals := make([][]coreEvent, len(turns))
	errs := make([]error, len(turns))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, t := range turns {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := d.call(ctx, http.MethodGet, "/api/v1/turns/"+t.id, nil, &recs[i]); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = d.call(ctx, http.MethodGet, "/api/v1/turns/"+t.id+"/journal", nil, &journals[i])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("reading the Core's records: %w", err)
		}
	}
	d.measure(turns, recs, journals)
	d.check(turns, recs, journals)
	return nil
}

func runFrame(typ string) bool {
	switch typ {
	case proto.TypeDelta, proto.TypeThinking, proto.TypeUsage, proto.TypeDone:
		return true
	}
	return false
}

// measure fills the latency samples. Dispatch at the Core is execution_start journalled as sent →
// the Run's first event journalled as received; emission is the simulator's write of each Run
// frame → the Core's journal record of it (one machine, one wall clock).
func (d *driver) measure(turns []*turnRec, recs []coreTurn, journals [][]coreEvent) {
	r := d.report
	var api, dispatchCore, dispatchSim, emission, completion []time.Duration
	for i, t := range turns {
		api = append(api, t.answer.Sub(t.posted))
		if o := recs[i].Outcome; o != nil && o.Status == proto.TurnCompleted {
			completion = append(completion, o.RecordedAt.Sub(t.posted))
		}
		var sent time.Time
		var received []time.Time
		for _, ev := range journals[i] {
			switch {
			case ev.Kind == "sent" && ev.Type == proto.TypeExecutionStart:
				sent = ev.At
			case ev.Kind == "received" && ev.ID == t.runID && runFrame(ev.Type):
				received = append(received, ev.At)
			}
		}
		if !sent.IsZero() && len(received) > 0 {
			dispatchCore = append(dispatchCore, received[0].Sub(sent))
		}
		rec := d.fleet.runs.get(t.runID)
		if rec == nil {
			continue
		}
		rec.mu.Lock()
		if len(rec.wrote) > 0 {
			dispatchSim = append(dispatchSim, rec.wrote[0].Sub(rec.start))
		}
		if len(rec.wrote) == len(received) {
			for k, w := range rec.wrote {
				emission = append(emission, received[k].Sub(w))
			}
		}
		rec.mu.Unlock()
	}
	r.Latency = map[string]Dist{
		"api_start_turn":   dist(api),
		"dispatch_core":    dist(dispatchCore),
		"dispatch_runtime": dist(dispatchSim),
		"event_emission":   dist(emission),
		"completion":       dist(completion),
	}
}

// check holds the Core's records to the protocol: every Turn ended once with an outcome the
// protocol allows, no Run started twice, no effect counted twice.
func (d *driver) check(turns []*turnRec, recs []coreTurn, journals [][]coreEvent) {
	r := d.report
	r.Outcomes = map[string]int{}
	r.Refused = map[string]int{}
	d.mu.Lock()
	for _, t := range d.turns {
		r.Requested++
		if t.refused != "" {
			r.Refused[t.refused]++
		}
	}
	d.mu.Unlock()
	r.Accepted = len(turns)
	var stuck, bad, twiceStarted, twoDones, doubled, unexpected []string
	seen := map[string]bool{}
	var dupIDs []string
	for i, t := range turns {
		if seen[t.id] || seen[t.runID] {
			dupIDs = append(dupIDs, t.id)
		}
		seen[t.id], seen[t.runID] = true, true
		o := recs[i].Outcome
		if o == nil {
			stuck = append(stuck, fmt.Sprintf("%s (phase %s)", t.id, recs[i].Phase))
			continue
		}
		key := o.Status
		if o.Reason != "" {
			key += "/" + o.Reason
		}
		r.Outcomes[key]++
		if !proto.KnownTurnStatus(o.Status) || (o.Reason != "" && !proto.KnownTurnReason(o.Reason)) || (o.Status == proto.TurnCompleted && o.Reason != "") {
			bad = append(bad, t.id+": "+key)
		}
		if rec := d.fleet.runs.get(t.runID); rec != nil && rec.execs.Load() > 1 {
			twiceStarted = append(twiceStarted, fmt.Sprintf("%s started %d times", t.runID, rec.execs.Load()))
		}
		dones := 0
		for _, ev := range journals[i] {
			if ev.Kind == "received" && ev.ID == t.runID && ev.Type == proto.TypeDone {
				dones++
			}
		}
		if dones > 1 {
			twoDones = append(twoDones, fmt.Sprintf("%s: %d done frames", t.id, dones))
		}
		if o.Status == proto.TurnCompleted && !t.hold && (o.Content != turnContent || !sameJSON(o.Usage, []byte(turnUsage))) {
			doubled = append(doubled, fmt.Sprintf("%s: content %q usage %s", t.id, o.Content, o.Usage))
		}
		if d.cfg.Storm == 0 && !expected(t, key) {
			unexpected = append(unexpected, t.id+": "+key)
		}
	}
	r.Checks = []Check{
		check("every Turn the Core accepted has an outcome (none stuck)", stuck),
		check("every outcome is a status and reason the protocol allows", bad),
		check("no Turn or Run ID handed out twice", dupIDs),
		check("no Run started twice on the Runtimes (no effect executed twice)", twiceStarted),
		check("at most one done journalled per Run", twoDones),
		check("completed Turns carry the scripted content and usage once (no effect counted twice)", doubled),
	}
	if d.cfg.Storm == 0 {
		r.Checks = append(r.Checks, check("without a storm every Turn ends as scripted (completed; cancelled; cancel_unconfirmed when its receipt was withheld)", unexpected))
	}
}

func expected(t *turnRec, key string) bool {
	switch {
	case !t.hold:
		return key == proto.TurnCompleted
	case t.lose:
		return key == proto.TurnFailed+"/cancel_unconfirmed"
	default:
		return key == proto.TurnCancelled
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
