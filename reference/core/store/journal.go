package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
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
// number (from 1).
func (st *Store) Append(turnID string, ev Event) (uint64, error) {
	ev.At = st.clk.Now().UTC()
	var seq uint64
	err := st.update(func(tx *bolt.Tx) (err error) {
		seq, err = appendEvent(tx, turnID, ev)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("journal of turn %s: %w", turnID, err)
	}
	return seq, nil
}

func appendEvent(tx *bolt.Tx, turnID string, ev Event) (uint64, error) {
	jb, err := tx.Bucket(bJournal).CreateBucketIfNotExists([]byte(turnID))
	if err != nil {
		return 0, err
	}
	seq, err := jb.NextSequence()
	if err != nil {
		return 0, err
	}
	ev.Seq = seq
	raw, err := json.Marshal(ev)
	if err != nil {
		return 0, err
	}
	return seq, jb.Put(seqKey(seq), raw)
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
