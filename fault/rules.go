package fault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// armedRule is a rule with its state in this relay.
type armedRule struct {
	rule    Rule
	act     Action         // with defaults filled
	payload map[string]any // Match.Payload as JSON values
	matches int            // frames selected so far (across reconnects)
	spent   bool           // an n-th rule that has had its n-th match
}

func (r *Relay) arm(rule Rule) *armedRule {
	a := &armedRule{rule: rule, act: rule.Action.withDefaults()}
	if len(rule.Match.Payload) > 0 {
		a.payload = map[string]any{}
		for k, v := range rule.Match.Payload {
			a.payload[k] = normalize(v)
		}
	}
	// A refuse_reconnect rule that selects no frame refuses the next upgrades from now on.
	if a.act.Kind == ActRefuseReconnect && reflect.DeepEqual(rule.Match, Match{}) {
		r.refusals = append(r.refusals, &refusal{rule: rule.Name, status: a.act.Status, code: a.act.Error, total: a.act.Count, left: a.act.Count})
		a.spent = true
	}
	return a
}

// normalize turns a Go value into what encoding/json decodes its encoding to.
func normalize(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

// frameInfo is what the rules see of one frame.
type frameInfo struct {
	env       proto.Envelope
	decodeErr error
	members   map[string]json.RawMessage // the payload's top-level members, decoded on demand
	decoded   bool
}

func (f *frameInfo) payloadMember(k string) (json.RawMessage, bool) {
	if !f.decoded {
		f.decoded = true
		_ = json.Unmarshal(f.env.Payload, &f.members)
	}
	v, ok := f.members[k]
	return v, ok
}

func (a *armedRule) selects(dir Direction, f *frameInfo, bindings map[string]string) bool {
	m := &a.rule.Match
	if !m.Direction.covers(dir) {
		return false
	}
	if f.decodeErr != nil {
		return m.Undecodable
	}
	if m.Undecodable {
		return false
	}
	if m.Type != "" && f.env.Type != m.Type {
		return false
	}
	if m.ID != "" && f.env.ID != m.ID {
		return false
	}
	if m.IDFrom != "" {
		if v, ok := bindings[m.IDFrom]; !ok || f.env.ID != v {
			return false
		}
	}
	for k, want := range a.payload {
		raw, ok := f.payloadMember(k)
		if !ok {
			return false
		}
		var got any
		if json.Unmarshal(raw, &got) != nil || !reflect.DeepEqual(got, want) {
			return false
		}
	}
	return true
}

// plan is what happens to one frame read from a peer.
type plan struct {
	data     []byte
	drop     bool
	copies   int // 1 + duplicates
	delay    time.Duration
	block    bool
	reorder  bool
	cut      bool
	closes   []firedClose
	events   []Event // "released" events to record when the frame is forwarded later
	env      frameID
	holdRule string // the reorder rule that holds the frame
}

// frameID names a frame in events.
type frameID struct{ Type, ID string }

type firedClose struct {
	rule string
	act  Action
}

// decide applies the rules to one frame. It returns nil when no rule fires (forward unchanged).
// holding says that a frame of this direction is held for reorder. Rule evaluation, the draws
// and the events happen under r.mu, so the event log has one order.
func (r *Relay) decide(conn int, dir Direction, data []byte, holding bool) *plan {
	if r.filters.Load().skip(dir, data) {
		return nil
	}
	f := &frameInfo{}
	f.env, f.decodeErr = proto.DecodeEnvelope(data)
	r.mu.Lock()
	defer r.mu.Unlock()
	var p *plan
	spent := false
	defer func() {
		if spent {
			r.refilter()
		}
	}()
	for _, a := range r.rules {
		if a.spent || !a.selects(dir, f, r.bindings) {
			continue
		}
		a.matches++
		if n := a.rule.Match.Nth; n > 0 {
			if a.matches != n {
				continue
			}
			a.spent = true
			spent = true
		}
		if prob := a.rule.Match.Probability; prob > 0 && prob < 1 {
			if draw := r.rngs[dir].Float64(); draw >= prob {
				continue
			}
		}
		ev := Event{Conn: conn, Direction: dir, Type: f.env.Type, ID: f.env.ID, Rule: a.rule.Name, Action: a.act.Kind}
		if f.decodeErr != nil {
			ev.Type, ev.ID = "", ""
		}
		if p == nil {
			p = &plan{data: data, copies: 1, env: frameID{ev.Type, ev.ID}}
		}
		ev.Detail = r.fire(a, p, dir, holding, ev)
		r.record(ev)
	}
	return p
}

// fire adds one fired rule's action to the plan and says what it did.
func (r *Relay) fire(a *armedRule, p *plan, dir Direction, holding bool, ev Event) string {
	act := a.act
	switch act.Kind {
	case ActDrop:
		p.drop = true
		return "dropped"
	case ActDelay:
		if act.For > p.delay {
			p.delay = act.For
		}
		p.block = p.block || act.Block
		rel := ev
		rel.Detail = fmt.Sprintf("released after %v", act.For)
		p.events = append(p.events, rel)
		if act.Block {
			return fmt.Sprintf("held for %v with every later %s frame behind it", act.For, dir)
		}
		return fmt.Sprintf("held for %v; later frames overtake it", act.For)
	case ActDuplicate:
		p.copies += act.Count
		return fmt.Sprintf("%d extra copies", act.Count)
	case ActReorder:
		if holding {
			return "sent at once: it is the next frame that a held frame follows"
		}
		p.reorder, p.holdRule = true, a.rule.Name
		return fmt.Sprintf("held until the next %s frame has been sent", dir)
	case ActCorrupt:
		out, what := corrupt(act.Corruption, p.data)
		p.data = out
		return string(act.Corruption) + ": " + what
	case ActCut:
		p.cut = true
		return "both sockets drop right after the frame"
	case ActRefuseReconnect:
		for _, f := range r.refusals {
			if f.rule == a.rule.Name {
				f.left, f.total = act.Count, act.Count
				return fmt.Sprintf("the next %d upgrades will be refused with %d %s", act.Count, act.Status, act.Error)
			}
		}
		r.refusals = append(r.refusals, &refusal{rule: a.rule.Name, status: act.Status, code: act.Error, total: act.Count, left: act.Count})
		return fmt.Sprintf("the next %d upgrades will be refused with %d %s", act.Count, act.Status, act.Error)
	case ActClose:
		p.closes = append(p.closes, firedClose{rule: a.rule.Name, act: act})
		if act.HalfOpen {
			return fmt.Sprintf("half-open in %v: %s stops", act.After, stopOf(act, dir))
		}
		return fmt.Sprintf("close %d %q in %v", act.Code, act.Reason, act.After)
	}
	return ""
}

func stopOf(act Action, dir Direction) Direction {
	if act.Stop == "" {
		return dir
	}
	return act.Stop
}

// filters say, per direction, which frames no live rule can select, so that the relay forwards
// them without decoding them or taking its lock: the fast path of a relay whose rules address a
// few types.
type filters [2]prefilter

type prefilter struct {
	none  bool     // no live rule covers the direction
	all   bool     // a live rule selects frames of any type (or frames that are not envelopes)
	types [][]byte // `"type"`, quoted, for every live rule that names one
}

func dirIndex(d Direction) int {
	if d == CoreToRuntime {
		return 0
	}
	return 1
}

// skip reports that no live rule can select data. It is exact: a frame whose type is T and that
// holds no escape (no backslash) contains `"T"` verbatim; one with an escape is always decoded.
func (f *filters) skip(dir Direction, data []byte) bool {
	p := &f[dirIndex(dir)]
	switch {
	case p.none:
		return true
	case p.all:
		return false
	case bytes.IndexByte(data, '\\') >= 0:
		return false
	}
	for _, t := range p.types {
		if bytes.Contains(data, t) {
			return false
		}
	}
	return true
}

// refilter recomputes the filters from the live rules; the caller holds r.mu.
func (r *Relay) refilter() {
	var f filters
	for i, dir := range []Direction{CoreToRuntime, RuntimeToCore} {
		p := &f[i]
		p.none = true
		for _, a := range r.rules {
			if a.spent || !a.rule.Match.Direction.covers(dir) {
				continue
			}
			p.none = false
			if a.rule.Match.Type == "" {
				p.all = true
				continue
			}
			p.types = append(p.types, []byte(strconv.Quote(a.rule.Match.Type)))
		}
	}
	r.filters.Store(&f)
}
