package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

var bSuspension = []byte("suspensions")

// Suspension is the durable record of one suspension request Core sent (environment_quiesce or
// environment_resume). A quiesce's SuspendID is the persisted suspension-attempt ID (§4.16): it
// is recorded before anything reaches the Runtime, and a resume names it again.
type Suspension struct {
	ID            string `json:"request_id"` // the request's envelope id
	Seq           uint64 `json:"seq"`        // the order of recording (the fake clock may not tell)
	Kind          string `json:"kind"`       // quiesce, resume
	Key           string `json:"key"`        // the caller's idempotency key
	DeviceID      string `json:"device_id"`
	Connection    uint64 `json:"connection"`
	EnvironmentID string `json:"environment_id"`
	SuspendID     string `json:"suspend_id"`
	Rollback      bool   `json:"rollback,omitempty"`
	// Attempt: a resume's quiesce record (the attempt it ends).
	Attempt string `json:"attempt,omitempty"`

	State     string    `json:"state"` // pending, accepted, refused, unknown
	ErrorCode string    `json:"error_code,omitempty"`
	Detail    string    `json:"detail,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// PutSuspension writes a suspension request's record (created or updated).
func (st *Store) PutSuspension(s *Suspension) error {
	now := st.clk.Now().UTC()
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	s.UpdatedAt = now
	return st.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bSuspension)
		if err != nil {
			return err
		}
		if s.Seq == 0 {
			if s.Seq, err = b.NextSequence(); err != nil {
				return err
			}
		}
		return put(b, s.ID, s)
	})
}

// Suspension reads one request's record.
func (st *Store) Suspension(id string) (*Suspension, error) {
	var s Suspension
	err := st.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSuspension)
		if b == nil {
			return ErrNotFound
		}
		return get(b, id, &s)
	})
	if err != nil {
		return nil, fmt.Errorf("suspension request %s: %w", id, err)
	}
	return &s, nil
}

// Suspensions lists every suspension record, oldest first.
func (st *Store) Suspensions() ([]*Suspension, error) {
	var out []*Suspension
	err := st.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSuspension)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			var s Suspension
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			out = append(out, &s)
			return nil
		})
	})
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Seq < out[j-1].Seq; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, err
}
