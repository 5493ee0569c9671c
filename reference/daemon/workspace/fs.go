package workspace

import (
	"errors"
	"io"
	"time"
)

// Info describes one name of the workspace without following it.
type Info struct {
	Kind    string // proto.EntryFile, EntryDirectory, EntrySymlink or EntryOther
	Size    int64  // regular files only
	ModTime time.Time
}

// Entry is one name of a directory listing.
type Entry struct {
	Name string
	Info
}

// What an FS reports, so the Machine can map it to a wire code. Any other error is ambiguous.
var (
	ErrNotFound     = errors.New("no such file or directory")
	ErrNotDirectory = errors.New("not a directory")
	ErrNotFile      = errors.New("not a regular file")
	ErrSymlink      = errors.New("a symlink on the path (never followed)")
	ErrIsDirectory  = errors.New("the destination is a directory")
	ErrPermission   = errors.New("permission denied")
	// ErrUnsupported: the adapter lacks the operation (WS-11).
	ErrUnsupported = errors.New("the adapter lacks the operation")
)

// FS is the workspace as the Machine needs it. Paths are workspace-relative and slash-separated, as
// the request validators admit them ("" is the root). No method follows a symlink at any component.
// Implementations are safe for concurrent use: native reads run in their own goroutines.
type FS interface {
	// ReadFile returns at most max bytes of the regular file at path, and whether more remain.
	ReadFile(path string, max int) (data []byte, truncated bool, err error)
	// List returns the directory's entries in name order, at most max of them (max ≤ 0: all), and
	// whether more exist.
	List(path string, max int) (entries []Entry, truncated bool, err error)
	// WriteFile replaces the file at path with data atomically, creating missing parent
	// directories: a reader sees the old file or the new one, never a part.
	WriteFile(path string, data []byte) error
	// Open opens the regular file at path for export and reports its size.
	Open(path string) (io.ReadCloser, int64, error)
}
