package environment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
)

const stagingDir = stateDir + "/staging"

// Staged is a body being received for a later install: a file under state/staging, outside the
// workspace, so that a 50 MiB transfer is neither resident in memory nor copied again when it is
// installed (InstallFile renames it into place). A Staged is used by one goroutine at a time.
//
// The install syncs the body before the rename, and a sync that found all 50 MiB still in the page
// cache waited 40–80 ms for the disk, an eighth to a fifth of a whole transfer (docs/performance.md,
// "Bulk transfers"). So Write starts the write-back of every further writeBackBytes as they are
// staged, without waiting for it: the disk works while the next chunks travel, and the install's
// Sync waits only for the tail and the journal. What is durable when the install succeeds is
// unchanged.
type Staged struct {
	e   *Environment
	rel string
	f   *os.File
	// written counts the bytes written; flushed, those whose write-back has been started.
	written, flushed int64
}

// writeBackBytes: every time this much more of a body is staged, its write-back to disk starts.
const writeBackBytes = 4 << 20

// Stage opens an empty staged body.
func (e *Environment) Stage() (*Staged, error) {
	if err := e.root.Mkdir(stagingDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	rel := stagingDir + "/" + randomSuffix()
	f, err := e.root.OpenFile(rel, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &Staged{e: e, rel: rel, f: f}, nil
}

// Write appends p to the staged body, and starts the write-back of what was staged since the last
// start once that reaches writeBackBytes.
func (s *Staged) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	s.written += int64(n)
	if s.written-s.flushed >= writeBackBytes {
		startWriteBack(s.f, s.flushed, s.written-s.flushed)
		s.flushed = s.written
	}
	return n, err
}

// Bytes reads the whole staged body back (a capability's body, or a copy for inspection).
func (s *Staged) Bytes() ([]byte, error) {
	fi, err := s.f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, fi.Size())
	if _, err := s.f.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// InstallFile makes the staged body the file at a logical workspace path, atomically, with the
// checks of WriteFile; the body is synced first. The Staged is spent whether or not it succeeds.
func (s *Staged) InstallFile(logical string) error {
	defer s.Discard()
	rel, err := Resolve(logical)
	if err != nil {
		return err
	}
	if rel == workspaceDir {
		return fmt.Errorf("%w: %s is the workspace itself", ErrUnsafe, logical)
	}
	if err := s.e.mkdirs(path.Dir(rel)); err != nil {
		return err
	}
	if fi, err := s.e.root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %s exists and is not a regular file", ErrUnsafe, rel)
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	return s.e.root.Rename(s.rel, rel)
}

// Discard drops the staged body; after an install it only closes the file.
func (s *Staged) Discard() error {
	err := s.f.Close()
	if rmErr := s.e.root.Remove(s.rel); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		err = errors.Join(err, rmErr)
	}
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
