package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wirecheck/wirecheck/proto"
)

var (
	bWorkspace     = []byte("workspace_ops")  // op ID → its record (JSON, without data)
	bWorkspaceData = []byte("workspace_data") // op ID → what it returned, raw
)

// Kinds and states of a workspace operation (package execution/workspace decides them).
const (
	WorkspacePending = "pending"
	WorkspaceUnknown = "unknown"
)

// WorkspaceOp is the durable record of one workspace read, write or export a caller asked for.
// A write is recorded (reserved) before anything reaches the Runtime; an unknown write keeps its
// Session's gate across restarts.
type WorkspaceOp struct {
	ID        string `json:"op_id"` // the operation's wire ID (a write's mutation ID)
	Kind      string `json:"kind"`  // read, write, export
	Key       string `json:"key"`   // the caller's idempotency key
	TurnID    string `json:"turn_id"`
	SessionID string `json:"session_id"`
	DeviceID  string `json:"device_id"`
	// Target: the Run the read went to, or the read-only preparation Core made (its request ID).
	RunID     string `json:"run_id,omitempty"`
	PrepareID string `json:"prepare_id,omitempty"`
	Path      string `json:"path"`
	// Read: operation (""/directory) and its bound; write: size and digest of the body.
	Operation  string `json:"operation,omitempty"`
	MaxBytes   int    `json:"max_bytes,omitempty"`
	MaxEntries int    `json:"max_entries,omitempty"`
	SizeBytes  int64  `json:"size_bytes,omitempty"`
	SHA256     string `json:"sha256,omitempty"`

	State     string `json:"state"` // pending, completed, rejected, failed, unknown
	ErrorCode string `json:"error_code,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Detail    string `json:"detail,omitempty"`
	// Cleanup is cleanup_unconfirmed when the read-only preparation Core made was not confirmed
	// released (PJ-14); omitted when it was, or when there was none.
	Cleanup string `json:"cleanup,omitempty"`
	// What the operation returned: a byte read's data, a listing, an export's archive (served
	// by the API as a download, not in this record's JSON).
	Data      []byte                          `json:"-"`
	DataBytes int64                           `json:"data_bytes,omitempty"`
	Truncated bool                            `json:"truncated,omitempty"`
	Directory *proto.WorkspaceDirectoryResult `json:"directory,omitempty"`
	CreatedAt time.Time                       `json:"created_at"`
	UpdatedAt time.Time                       `json:"updated_at"`
}

// storedOp is the record as kept. Blob is how data was kept before it moved to bWorkspaceData;
// a record written then still reads back whole.
type storedOp struct {
	WorkspaceOp
	Blob []byte `json:"blob,omitempty"`
}

// PutWorkspaceOp writes an operation's record (created or updated), with its data.
//
// The data (an export's archive: up to 528 MiB) is kept raw in its own bucket, not as base64
// inside the record's JSON: encoding it cost an export more CPU than its transfer did, and every
// listing decoded it again (docs/performance.md "Bulk transfers").
func (st *Store) PutWorkspaceOp(op *WorkspaceOp) error {
	now := st.clk.Now().UTC()
	if op.CreatedAt.IsZero() {
		op.CreatedAt = now
	}
	op.UpdatedAt = now
	op.DataBytes = int64(len(op.Data))
	return st.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bWorkspace)
		if err != nil {
			return err
		}
		data, err := tx.CreateBucketIfNotExists(bWorkspaceData)
		if err != nil {
			return err
		}
		if len(op.Data) == 0 {
			err = data.Delete([]byte(op.ID))
		} else {
			err = data.Put([]byte(op.ID), op.Data)
		}
		if err != nil {
			return err
		}
		return put(b, op.ID, op)
	})
}

// WorkspaceOp reads an operation's record, with its data.
func (st *Store) WorkspaceOp(id string) (*WorkspaceOp, error) {
	var s storedOp
	err := st.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bWorkspace)
		if b == nil {
			return ErrNotFound
		}
		if err := get(b, id, &s); err != nil {
			return err
		}
		if d := tx.Bucket(bWorkspaceData); d != nil {
			if raw := d.Get([]byte(id)); raw != nil {
				s.Blob = bytes.Clone(raw) // bbolt's slice lives only as long as tx
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("workspace operation %s: %w", id, err)
	}
	s.WorkspaceOp.Data = s.Blob
	return &s.WorkspaceOp, nil
}

// WorkspaceOps lists every operation record (without data), oldest first.
func (st *Store) WorkspaceOps() ([]*WorkspaceOp, error) {
	var out []*WorkspaceOp
	err := st.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bWorkspace)
		if b == nil {
			return nil
		}
		return b.ForEach(func(_, v []byte) error {
			var s storedOp
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			out = append(out, &s.WorkspaceOp)
			return nil
		})
	})
	sortOps(out)
	return out, err
}

func sortOps(ops []*WorkspaceOp) {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && ops[j].CreatedAt.Before(ops[j-1].CreatedAt); j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// ReconcileWorkspace settles the operations a previous process left pending: nothing it sent
// is known to have been applied or not, so each becomes unknown with code (a write keeps its
// Session's gate). It returns the operations settled.
func (st *Store) ReconcileWorkspace(code func(kind string) (state, errorCode string)) ([]string, error) {
	ops, err := st.WorkspaceOps()
	if err != nil {
		return nil, err
	}
	var settled []string
	for _, op := range ops {
		if op.State != WorkspacePending {
			continue
		}
		full, err := st.WorkspaceOp(op.ID)
		if err != nil {
			return settled, err
		}
		full.State, full.ErrorCode = code(op.Kind)
		full.Detail = "Core restarted before the operation's result"
		if err := st.PutWorkspaceOp(full); err != nil {
			return settled, err
		}
		settled = append(settled, op.ID)
	}
	return settled, nil
}
