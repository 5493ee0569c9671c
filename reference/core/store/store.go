package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/wirecheck/wirecheck/clock"
)

var (
	bDevices  = []byte("devices")
	bSessions = []byte("sessions")
	bTurns    = []byte("turns")
	bInflight = []byte("inflight")
	bOutcomes = []byte("outcomes")
	bRuns     = []byte("runs")
	bJournal  = []byte("journal")
)

// Errors a caller can act on.
var (
	ErrNotFound       = errors.New("not found")
	ErrExists         = errors.New("already exists")
	ErrTerminal       = errors.New("the Turn already has an outcome; outcomes are written once")
	ErrUnknownDevice  = errors.New("unknown device")
	ErrBadCredential  = errors.New("the credential does not match the device")
	ErrWrongRuntime   = errors.New("the credential is not an agent-daemon runtime credential")
	ErrDeviceRetired  = errors.New("the device is retired")
	errCorruptJournal = errors.New("corrupt journal key")
)

// Store is the open bbolt file. It is safe for concurrent use.
type Store struct {
	db    *bolt.DB
	clk   clock.Clock
	w     *groupWriter
	fault func() error
}

// Options tune Open.
type Options struct {
	// Clock stamps records; default the wall clock.
	Clock clock.Clock
	// LockTimeout bounds the wait for the file lock another process holds; default 2 s.
	LockTimeout time.Duration
	// NoSync skips fsync on commit. Only benchmarks that measure everything but the disk set it.
	NoSync bool
	// WriteFault, when set, is asked before every write; an error it returns is the write's, and
	// nothing is written: how a test makes the disk refuse a commit.
	WriteFault func() error
}

// Open opens (or creates) the file at path. It does not reconcile: see Reconcile.
func Open(path string, opt Options) (*Store, error) {
	if opt.Clock == nil {
		opt.Clock = clock.Real()
	}
	if opt.LockTimeout == 0 {
		opt.LockTimeout = 2 * time.Second
	}
	// Address space, not memory: bbolt remaps as the file grows and copies every node of the
	// writing transaction out of the old map first, which for an export's archive (up to 528 MiB,
	// store/workspace.go) was a second copy of it per remap.
	const mmapReserve = 1 << 30
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opt.LockTimeout, NoSync: opt.NoSync, InitialMmapSize: mmapReserve})
	if err != nil {
		return nil, fmt.Errorf("opening the Core store %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bDevices, bSessions, bTurns, bInflight, bOutcomes, bRuns, bJournal} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("initialising the Core store %s: %w", path, err)
	}
	return &Store{db: db, clk: opt.Clock, w: newGroupWriter(db), fault: opt.WriteFault}, nil
}

// Close closes the file.
func (s *Store) Close() error {
	s.w.close()
	return s.db.Close()
}

// update commits fn durably, possibly in one transaction with other writes (group.go).
func (s *Store) update(fn func(*bolt.Tx) error) error {
	if s.fault != nil {
		if err := s.fault(); err != nil {
			return err
		}
	}
	return s.w.update(fn)
}

// Path is the file the store lives in.
func (s *Store) Path() string { return s.db.Path() }

func put(b *bolt.Bucket, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), raw)
}

func get(b *bolt.Bucket, key string, v any) error {
	raw := b.Get([]byte(key))
	if raw == nil {
		return ErrNotFound
	}
	return json.Unmarshal(raw, v)
}

func seqKey(n uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], n)
	return k[:]
}
