package fault

import (
	"fmt"
	"time"
)

// Event is one fault the relay applied, for transcripts and reports. It names the frame by
// envelope (type and id) and never holds the frame's bytes, a header or a credential.
type Event struct {
	At        time.Time  // on the relay's clock
	Conn      int        // the connection (1-based, in order of acceptance); for a refused upgrade, the attempt
	Direction Direction  // the frame's direction; "" for an upgrade
	Type      string     // envelope type; "" for a frame that is not an envelope
	ID        string     // envelope id
	Rule      string     // the rule's name
	Action    ActionKind // what it did
	Detail    string     // e.g. "held for 31s", "released", "payload.state removed", "refused 503 (1 of 2)"
}

func (e Event) String() string {
	frame := e.Type
	if frame == "" {
		frame = "(not an envelope)"
	}
	if e.ID != "" {
		frame += " " + e.ID
	}
	where := fmt.Sprintf("conn %d %s %s", e.Conn, e.Direction, frame)
	if e.Direction == "" {
		where = fmt.Sprintf("upgrade attempt %d", e.Conn)
	}
	return fmt.Sprintf("%s: rule %s: %s: %s", where, e.Rule, e.Action, e.Detail)
}

// record appends an event and wakes whoever waits on Changed. The caller holds r.mu.
func (r *Relay) record(e Event) {
	e.At = r.clk.Now()
	r.events = append(r.events, e)
	close(r.changed)
	r.changed = make(chan struct{})
	r.log.Info("fault applied", "conn", e.Conn, "direction", string(e.Direction), "type", e.Type, "id", e.ID,
		"rule", e.Rule, "action", string(e.Action), "detail", e.Detail)
}

// recordLocked takes the lock to record an event.
func (r *Relay) recordLocked(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record(e)
}

// Events returns a copy of every fault applied so far, in order.
func (r *Relay) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Changed returns a channel closed at the next event; wait on it instead of polling Events.
func (r *Relay) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}
