package store

import (
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wirecheck/wirecheck/proto"
)

var (
	bPreparations = []byte("preparations")        // device → its configured Preparation
	bPrepResults  = []byte("preparation_results") // device → its PreparationResults, newest last
)

// PreparationResultsKept bounds the per-connection results a device keeps.
const PreparationResultsKept = 16

// Preparation is a device's Environment preparation: what Core sends with runtime_prepare, in
// order, on every connection of the device before it admits work there.
type Preparation struct {
	EnvironmentID string                 `json:"environment_id"`
	SessionID     string                 `json:"session_id"`
	Operations    []PreparationOperation `json:"operations"`
}

// PreparationOperation is one transfer: the begin header of its action and, for a file, skill or
// plugin, its body (content; sent in chunks, its size and SHA-256 declared at begin).
type PreparationOperation struct {
	Action         string                       `json:"action"`
	Slot           int                          `json:"slot,omitempty"`
	Skill          *proto.InlineCapability      `json:"skill,omitempty"`
	Plugin         *proto.InlineCapability      `json:"plugin,omitempty"`
	File           *proto.PreparedFile          `json:"file,omitempty"`
	Initialization *proto.RuntimeInitialization `json:"initialization,omitempty"`
	Sources        *proto.CapabilitySources     `json:"sources,omitempty"`
	Content        []byte                       `json:"content,omitempty"`
}

// States of a preparation run on one connection.
const (
	PreparationNone      = "none"      // nothing configured when the connection opened: nothing sent
	PreparationRunning   = "running"   // transfers in progress: no work is admitted yet
	PreparationCompleted = "completed" // every operation completed: work is admitted
	PreparationRejected  = "rejected"  // an operation was rejected (finite code)
	PreparationFailed    = "failed"    // an operation failed (runtime_preparation_failed, exit_code)
	PreparationUnknown   = "unknown"   // unconfirmed: a deadline, a disconnect, an invalid receipt
)

// PreparationResult is what one connection's preparation came to. Operation is the index of the
// operation running or the one that ended it (the count of operations once completed).
type PreparationResult struct {
	RunID      string    `json:"run_id"` // its journal is the journal of "preparation:" + RunID
	Connection uint64    `json:"connection"`
	State      string    `json:"state"`
	Operation  int       `json:"operation"`
	TransferID string    `json:"transfer_id,omitempty"`
	Outcome    string    `json:"outcome,omitempty"`
	ErrorCode  string    `json:"error_code,omitempty"`
	ExitCode   int       `json:"exit_code,omitempty"`
	Detail     string    `json:"detail,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	EndedAt    time.Time `json:"ended_at,omitzero"`
}

// JournalKey is the journal a preparation run's frames are kept in.
func (r *PreparationResult) JournalKey() string { return "preparation:" + r.RunID }

func (s *Store) ensurePrepBuckets(tx *bolt.Tx) error {
	for _, b := range [][]byte{bPreparations, bPrepResults} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// SetPreparation stores a device's preparation (nil removes it). The caller has validated it.
func (s *Store) SetPreparation(deviceID string, p *Preparation) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := s.ensurePrepBuckets(tx); err != nil {
			return err
		}
		if tx.Bucket(bDevices).Get([]byte(deviceID)) == nil {
			return fmt.Errorf("device %s: %w", deviceID, ErrNotFound)
		}
		if p == nil {
			return tx.Bucket(bPreparations).Delete([]byte(deviceID))
		}
		return put(tx.Bucket(bPreparations), deviceID, p)
	})
}

// Preparation returns a device's preparation, or nil when none is configured.
func (s *Store) Preparation(deviceID string) (*Preparation, error) {
	var p *Preparation
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bPreparations)
		if b == nil || b.Get([]byte(deviceID)) == nil {
			return nil
		}
		p = &Preparation{}
		return get(b, deviceID, p)
	})
	return p, err
}

// PutPreparationResult records (or updates, by RunID) a connection's preparation result; a device
// keeps its PreparationResultsKept latest.
func (s *Store) PutPreparationResult(deviceID string, r PreparationResult) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := s.ensurePrepBuckets(tx); err != nil {
			return err
		}
		b := tx.Bucket(bPrepResults)
		var all []PreparationResult
		if raw := b.Get([]byte(deviceID)); raw != nil {
			if err := json.Unmarshal(raw, &all); err != nil {
				return err
			}
		}
		replaced := false
		for i := range all {
			if all[i].RunID == r.RunID {
				all[i], replaced = r, true
			}
		}
		if !replaced {
			all = append(all, r)
		}
		if len(all) > PreparationResultsKept {
			all = all[len(all)-PreparationResultsKept:]
		}
		return put(b, deviceID, all)
	})
}

// PreparationResults returns a device's latest preparation results, oldest first.
func (s *Store) PreparationResults(deviceID string) ([]PreparationResult, error) {
	var all []PreparationResult
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bPrepResults)
		if b == nil {
			return nil
		}
		if raw := b.Get([]byte(deviceID)); raw != nil {
			return json.Unmarshal(raw, &all)
		}
		return nil
	})
	return all, err
}
