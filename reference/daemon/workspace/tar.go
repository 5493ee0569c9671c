package workspace

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// TarStream produces the export archive of a workspace as it is pulled: regular files and
// directories in name order (a directory before its contents), names relative to the workspace
// root, directories ending in "/". Symlinks and special files are left out and never followed. At
// most one file is open at a time.
type TarStream struct {
	fs      FS
	pending []string // paths still to archive, next first
	kinds   map[string]Info
	tw      *tar.Writer
	buf     bytes.Buffer
	cur     io.ReadCloser // the file being copied
	left    int64         // bytes of cur still owed to the archive
	done    bool          // the trailer is in buf
}

// NewTarStream walks fs (listing only) and returns the stream of its archive.
func NewTarStream(fs FS) (*TarStream, error) {
	s := &TarStream{fs: fs, kinds: map[string]Info{}}
	if err := s.walk(""); err != nil {
		return nil, err
	}
	s.tw = tar.NewWriter(&s.buf)
	return s, nil
}

func (s *TarStream) walk(dir string) error {
	entries, _, err := s.fs.List(dir, 0)
	if err != nil {
		return fmt.Errorf("export: list %q: %w", dir, err)
	}
	for _, e := range entries {
		p := path.Join(dir, e.Name)
		switch e.Kind {
		case proto.EntryFile:
			s.pending = append(s.pending, p)
			s.kinds[p] = e.Info
		case proto.EntryDirectory:
			s.pending = append(s.pending, p)
			s.kinds[p] = e.Info
			if err := s.walk(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Next returns the next at most max bytes of the archive, or io.EOF after its last byte.
func (s *TarStream) Next(max int) ([]byte, error) {
	for s.buf.Len() < max && !s.done {
		if err := s.step(); err != nil {
			return nil, err
		}
	}
	if s.buf.Len() == 0 {
		return nil, io.EOF
	}
	out := make([]byte, min(max, s.buf.Len()))
	_, _ = s.buf.Read(out)
	return out, nil
}

// step adds one piece of the archive to buf: a slice of the open file, a header, or the trailer.
func (s *TarStream) step() error {
	if s.cur != nil {
		n, err := io.CopyN(s.tw, s.cur, min(s.left, proto.TransferChunkBytes))
		s.left -= n
		if s.left == 0 {
			s.closeFile()
			return nil
		}
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("export: a file shrank while it was archived")
		}
		return err
	}
	if len(s.pending) == 0 {
		s.done = true
		return s.tw.Close()
	}
	p := s.pending[0]
	s.pending = s.pending[1:]
	info := s.kinds[p]
	hdr := &tar.Header{Name: p, ModTime: info.ModTime.Truncate(1e9)}
	if info.Kind == proto.EntryDirectory {
		hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, p+"/", 0o755
		return s.tw.WriteHeader(hdr)
	}
	f, size, err := s.fs.Open(p)
	if errors.Is(err, ErrNotFound) {
		return nil // removed since the walk: not an output any more
	}
	if err != nil {
		return fmt.Errorf("export: open %q: %w", p, err)
	}
	if mutation.On(mutation.WSExportFilesWithoutContent) {
		_ = f.Close()
		hdr.Typeflag, hdr.Mode = tar.TypeReg, 0o644
		return s.tw.WriteHeader(hdr) // the header says size 0 and nothing follows
	}
	hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeReg, 0o644, size
	if err := s.tw.WriteHeader(hdr); err != nil {
		_ = f.Close()
		return err
	}
	if size > 0 {
		s.cur, s.left = f, size
	} else {
		_ = f.Close()
	}
	return nil
}

func (s *TarStream) closeFile() {
	if s.cur != nil {
		_ = s.cur.Close()
		s.cur = nil
	}
}

// Empty reports whether the archive has no entries (a workspace with no output files).
func (s *TarStream) Empty() bool { return len(s.pending) == 0 && s.buf.Len() == 0 }

// Exhausted reports whether every byte of the archive was returned by Next.
func (s *TarStream) Exhausted() bool {
	return s.buf.Len() == 0 && s.done
}

// Close releases the open file, if any.
func (s *TarStream) Close() { s.closeFile() }
