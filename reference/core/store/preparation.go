package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wirecheck/wirecheck/proto"
)

var (
	bPreparations  = []byte("preparations")          // device → its configured Preparation, bodies left out
	bPrepBodies    = []byte("preparation_bodies")    // device NUL operation index → that operation's body, raw
	bPrepRevisions = []byte("preparation_revisions") // device → the last revision set (big-endian uint64)
	bPrepResults   = []byte("preparation_results")   // device → its PreparationResults, newest last
)

// PreparationResultsKept bounds the per-connection results a device keeps.
const PreparationResultsKept = 16

// Preparation is a device's Environment preparation: what Core sends with runtime_prepare, in
// order, on every connection of the device before it admits work there.
type Preparation struct {
	// Revision counts the device's SetPreparation calls: what a cache of the built operations is
	// keyed by, so that a reconnect does not read and hash the bodies again.
	Revision      uint64                 `json:"revision,omitempty"`
	EnvironmentID string                 `json:"environment_id"`
	SessionID     string                 `json:"session_id"`
	Operations    []PreparationOperation `json:"operations"`
}

// Clone returns a deep copy of p (nil for nil): the headers through JSON, the bodies copied.
func (p *Preparation) Clone() (*Preparation, error) {
	if p == nil {
		return nil, nil
	}
	head := *p
	head.Operations = slices.Clone(p.Operations)
	for i := range head.Operations {
		head.Operations[i].Content = nil
	}
	raw, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	var c Preparation
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	for i := range c.Operations {
		c.Operations[i].Content = bytes.Clone(p.Operations[i].Content)
	}
	return &c, nil
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
	for _, b := range [][]byte{bPreparations, bPrepBodies, bPrepRevisions, bPrepResults} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// SetPreparation stores a device's preparation (nil removes it) and sets p.Revision to the
// revision it is stored under. The caller has validated it.
//
// The bodies (up to 50 MiB each) are kept raw in their own bucket, not as base64 inside the
// record: the preparation is read on every connection of the device, and decoding 50 MiB of
// base64 from JSON cost a transfer more than its sends did (docs/performance.md "Bulk transfers").
func (s *Store) SetPreparation(deviceID string, p *Preparation) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := s.ensurePrepBuckets(tx); err != nil {
			return err
		}
		if tx.Bucket(bDevices).Get([]byte(deviceID)) == nil {
			return fmt.Errorf("device %s: %w", deviceID, ErrNotFound)
		}
		if err := deleteBodies(tx.Bucket(bPrepBodies), deviceID); err != nil {
			return err
		}
		if p == nil {
			return tx.Bucket(bPreparations).Delete([]byte(deviceID))
		}
		// The counter outlives a removal: a preparation set again must not reuse a revision.
		revisions := tx.Bucket(bPrepRevisions)
		var revision uint64
		if raw := revisions.Get([]byte(deviceID)); len(raw) == 8 {
			revision = binary.BigEndian.Uint64(raw)
		}
		p.Revision = revision + 1
		if err := revisions.Put([]byte(deviceID), binary.BigEndian.AppendUint64(nil, p.Revision)); err != nil {
			return err
		}
		record := *p
		record.Operations = slices.Clone(p.Operations)
		for i := range record.Operations {
			if body := record.Operations[i].Content; len(body) > 0 {
				if err := tx.Bucket(bPrepBodies).Put(bodyKey(deviceID, i), body); err != nil {
					return err
				}
				record.Operations[i].Content = nil
			}
		}
		return put(tx.Bucket(bPreparations), deviceID, record)
	})
}

// Preparation returns a device's preparation, or nil when none is configured.
func (s *Store) Preparation(deviceID string) (*Preparation, error) {
	return s.preparation(deviceID, true)
}

// PreparationHead is Preparation without the bodies: its revision, identity and headers.
func (s *Store) PreparationHead(deviceID string) (*Preparation, error) {
	return s.preparation(deviceID, false)
}

func (s *Store) preparation(deviceID string, withBodies bool) (*Preparation, error) {
	var p *Preparation
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bPreparations)
		if b == nil || b.Get([]byte(deviceID)) == nil {
			return nil
		}
		p = &Preparation{}
		if err := get(b, deviceID, p); err != nil {
			return err
		}
		if !withBodies {
			return nil
		}
		bodies := tx.Bucket(bPrepBodies)
		for i := range p.Operations {
			if body := bodies.Get(bodyKey(deviceID, i)); body != nil {
				p.Operations[i].Content = bytes.Clone(body) // bbolt's slice lives only as long as tx
			}
		}
		return nil
	})
	return p, err
}

func bodyKey(deviceID string, op int) []byte {
	return fmt.Appendf(nil, "%s\x00%06d", deviceID, op)
}

func deleteBodies(b *bolt.Bucket, deviceID string) error {
	prefix := []byte(deviceID + "\x00")
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
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
