package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Event kinds of the journal.
const (
	EventReceived   = "received"   // a frame Core received for the Turn
	EventSent       = "sent"       // a frame Core queued for the Runtime
	EventTransition = "transition" // the Turn moved from one phase to another
	EventAdmission  = "admission"  // a policy decision
	EventNote       = "note"       // anything else Core observed (a closed subscription, a timer)
)

// Event is one immutable, append-only journal record of a Turn.
type Event struct {
	Seq     uint64          `json:"seq"`
	At      time.Time       `json:"at"`
	Kind    string          `json:"kind"`
	Type    string          `json:"type,omitempty"` // the frame type, or the transition "from→to"
	ID      string          `json:"id,omitempty"`   // the envelope id
	Payload json.RawMessage `json:"payload,omitempty"`
	Note    string          `json:"note,omitempty"`
}

// Append adds an event to a Turn's journal and commits it. It returns the event's sequence
// number (from 1). The event is encoded before the commit, off the group writer (group.go), which
// only numbers it.
func (st *Store) Append(turnID string, ev Event) (uint64, error) {
	ev.At = st.clk.Now().UTC()
	raw, err := encodeEvent(ev)
	if err != nil {
		return 0, fmt.Errorf("journal of turn %s: %w", turnID, err)
	}
	var seq uint64
	err = st.update(func(tx *bolt.Tx) (err error) {
		seq, err = putEvent(tx, turnID, raw)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("journal of turn %s: %w", turnID, err)
	}
	return seq, nil
}

// seqPrefix is how an event encoded with Seq 0 begins: Seq is its first member.
var seqPrefix = []byte(`{"seq":0`)

// encodeEvent encodes ev with Seq 0, for putEvent to number.
func encodeEvent(ev Event) ([]byte, error) {
	ev.Seq = 0
	raw, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(raw, seqPrefix) {
		return nil, errors.New("an encoded event does not begin with its seq")
	}
	return raw, nil
}

// putEvent numbers an event encoded by encodeEvent with the journal's next sequence and stores it.
func putEvent(tx *bolt.Tx, turnID string, raw []byte) (uint64, error) {
	jb, err := tx.Bucket(bJournal).CreateBucketIfNotExists([]byte(turnID))
	if err != nil {
		return 0, err
	}
	seq, err := jb.NextSequence()
	if err != nil {
		return 0, err
	}
	val := make([]byte, 0, len(raw)+20)
	val = append(val, `{"seq":`...)
	val = strconv.AppendUint(val, seq, 10)
	val = append(val, raw[len(seqPrefix):]...)
	return seq, jb.Put(seqKey(seq), val)
}

// encodeEvents encodes events for putEvents, stamping those without a time with the store's now.
func (st *Store) encodeEvents(events []Event) ([][]byte, error) {
	if len(events) == 0 {
		return nil, nil
	}
	now := st.clk.Now().UTC()
	raws := make([][]byte, len(events))
	for i, ev := range events {
		if ev.At.IsZero() {
			ev.At = now
		}
		raw, err := encodeEvent(ev)
		if err != nil {
			return nil, err
		}
		raws[i] = raw
	}
	return raws, nil
}

// putEvents stores events encoded by encodeEvents, in order.
func putEvents(tx *bolt.Tx, turnID string, raws [][]byte) error {
	for _, raw := range raws {
		if _, err := putEvent(tx, turnID, raw); err != nil {
			return err
		}
	}
	return nil
}

func appendEvent(tx *bolt.Tx, turnID string, ev Event) (uint64, error) {
	raw, err := encodeEvent(ev)
	if err != nil {
		return 0, err
	}
	return putEvent(tx, turnID, raw)
}

// Journal returns a Turn's events in order.
func (st *Store) Journal(turnID string) ([]Event, error) {
	var out []Event
	err := st.db.View(func(tx *bolt.Tx) error {
		jb := tx.Bucket(bJournal).Bucket([]byte(turnID))
		if jb == nil {
			return nil
		}
		return jb.ForEach(func(k, v []byte) error {
			if len(k) != 8 {
				return errCorruptJournal
			}
			var ev Event
			if err := json.Unmarshal(v, &ev); err != nil {
				return err
			}
			if ev.Seq != binary.BigEndian.Uint64(k) {
				return errCorruptJournal
			}
			out = append(out, ev)
			return nil
		})
	})
	return out, err
}
