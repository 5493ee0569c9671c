package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Dir is the FS of a real directory. os.Root confines every access to the directory; on top of it
// Dir refuses a symlink at any component (os.Root alone would follow one that stays inside) and
// opens the last component with O_NOFOLLOW.
type Dir struct{ root *os.Root }

// OpenDir opens the workspace directory path.
func OpenDir(path string) (*Dir, error) {
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{root: r}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// rel turns a workspace-relative path into the os.Root name ("" is the root, ".").
func rel(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// mapErr names what an OS error means for the Machine; anything else stays ambiguous.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %v", ErrNotFound, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: %v", ErrPermission, err)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %v", ErrNotDirectory, err)
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%w: %v", ErrSymlink, err)
	}
	return err
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return proto.EntryFile
	case m.IsDir():
		return proto.EntryDirectory
	case m&fs.ModeSymlink != 0:
		return proto.EntrySymlink
	}
	return proto.EntryOther
}

// parents checks every proper prefix of p: a directory, never a symlink. create makes a missing
// one (a directory of mode 0755) instead of failing.
func (d *Dir) parents(p string, create, follow bool) error {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		fi, err := d.root.Lstat(prefix)
		if create && errors.Is(err, fs.ErrNotExist) {
			if err := d.root.Mkdir(prefix, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return mapErr(err)
			}
			fi, err = d.root.Lstat(prefix)
		}
		switch {
		case err != nil:
			return mapErr(err)
		case fi.Mode()&fs.ModeSymlink != 0 && follow:
			// a mutant's: os.Root alone follows a symlink that stays inside the root
		case fi.Mode()&fs.ModeSymlink != 0:
			return ErrSymlink
		case !fi.IsDir():
			return ErrNotDirectory
		}
	}
	return nil
}

// lstat describes p itself after checking its parents; follow (only a mutant's) follows symlinks.
func (d *Dir) lstat(p string, follow bool) (fs.FileInfo, error) {
	if err := d.parents(p, false, follow); err != nil {
		return nil, err
	}
	if follow {
		fi, err := d.root.Stat(rel(p))
		return fi, mapErr(err)
	}
	fi, err := d.root.Lstat(rel(p))
	return fi, mapErr(err)
}

// open opens p, which must be of kind want, without following a symlink or blocking on a FIFO.
func (d *Dir) open(p, want string) (*os.File, fs.FileInfo, error) {
	follow := want == proto.EntryFile && mutation.On(mutation.SymlinksFollowed)
	fi, err := d.lstat(p, follow)
	if err != nil {
		return nil, nil, err
	}
	if want == proto.EntryDirectory && kindOf(fi.Mode()) == proto.EntrySymlink && mutation.On(mutation.WSListFollowsSymlink) {
		follow = true
		if fi, err = d.root.Stat(rel(p)); err != nil {
			return nil, nil, mapErr(err)
		}
	}
	if k := kindOf(fi.Mode()); k != want {
		if k == proto.EntrySymlink {
			return nil, nil, ErrSymlink
		}
		if want == proto.EntryDirectory {
			return nil, nil, ErrNotDirectory
		}
		return nil, nil, ErrNotFile
	}
	flags := os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	if follow {
		flags &^= syscall.O_NOFOLLOW
	}
	f, err := d.root.OpenFile(rel(p), flags, 0)
	if err != nil {
		return nil, nil, mapErr(err)
	}
	// The name may have changed between the check and the open: trust only the opened file.
	fi, err = f.Stat()
	if err != nil || kindOf(fi.Mode()) != want {
		_ = f.Close()
		if err == nil {
			err = fmt.Errorf("%q changed kind while it was opened", p)
		}
		return nil, nil, err
	}
	return f, fi, nil
}

func (d *Dir) ReadFile(p string, max int) ([]byte, bool, error) {
	f, _, err := d.open(p, proto.EntryFile)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, false, mapErr(err)
	}
	if len(data) > max {
		switch {
		case mutation.On(mutation.WSReadOverMaxSent):
			return data, true, nil
		case mutation.On(mutation.WSReadTruncatedShort):
			return data[:max-1], true, nil
		case mutation.On(mutation.WSReadSilentlyCut):
			return data[:max], false, nil
		}
		return data[:max], true, nil
	}
	switch {
	case len(data) == max && mutation.On(mutation.WSReadExactMaxTruncated):
		return data, true, nil
	case len(data) > partialRead && mutation.On(mutation.WSReadPartialComplete):
		return data[:partialRead], false, nil
	}
	return data, false, nil
}

// partialRead is what one read(2) returns in the WS-05.5 mutant.
const partialRead = 4096

func (d *Dir) List(p string, max int) ([]Entry, bool, error) {
	f, _, err := d.open(p, proto.EntryDirectory)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, false, mapErr(err)
	}
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		if !WireName(de.Name()) {
			continue // a name the wire cannot carry is not listed
		}
		fi, err := de.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the directory was read
		}
		if err != nil {
			return nil, false, mapErr(err)
		}
		e := Entry{Name: de.Name(), Info: Info{Kind: kindOf(fi.Mode()), ModTime: fi.ModTime()}}
		if e.Kind == proto.EntryOther && mutation.On(mutation.WSListingSpecialKind) {
			e.Kind = "special"
		}
		if e.Kind == proto.EntryFile && !mutation.On(mutation.WSListingFileSizeZero) {
			e.Size = fi.Size()
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	if max > 0 && len(out) > max {
		return out[:max], true, nil
	}
	if max > 0 && len(out) == max && mutation.On(mutation.WSListingAtLimitCut) {
		return out[:max-1], true, nil
	}
	return out, false, nil
}

// WireName reports whether a directory entry name can travel in a listing (§4.13).
func WireName(name string) bool {
	forbidden := "/\\\x00\r\n"
	if strings.ContainsAny(name, "\\\r\n") && mutation.On(mutation.WSListingOddNameListed) {
		forbidden = "/\x00"
	}
	if len(name) == proto.DirectoryNameMaxBytes && mutation.On(mutation.WSListingLongNameDropped) {
		return false
	}
	return name != "" && name != "." && name != ".." && len(name) <= proto.DirectoryNameMaxBytes &&
		utf8.ValidString(name) && !strings.ContainsAny(name, forbidden)
}

func (d *Dir) WriteFile(p string, data []byte) error {
	follow := mutation.On(mutation.WSWriteFollowsSymlink)
	// Refuse before creating anything: a parent that is a symlink or a file.
	if err := d.parents(p, false, follow); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if fi, err := d.lstat(p, follow); err == nil {
		switch kindOf(fi.Mode()) {
		case proto.EntryDirectory:
			return ErrIsDirectory
		case proto.EntrySymlink:
			return ErrSymlink
		case proto.EntryOther:
			return ErrNotFile
		case proto.EntryFile:
			if mutation.On(mutation.WSWriteNotTruncated) {
				return d.overwrite(p, data)
			}
		}
	}
	if err := d.parents(p, true, follow); err != nil {
		return err
	}
	// A temporary file beside the destination, renamed over it: a reader sees one or the other.
	suffix := make([]byte, 8)
	_, _ = rand.Read(suffix)
	tmp := p[:strings.LastIndexByte(p, '/')+1] + ".wirecheck-" + hex.EncodeToString(suffix) + ".tmp"
	f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return mapErr(err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.root.Rename(tmp, p)
	}
	if err != nil {
		_ = d.root.Remove(tmp)
		return fmt.Errorf("install %q: %v", p, err) // ambiguous on purpose: write_unconfirmed
	}
	return nil
}

// overwrite writes data over the existing file p from its start without truncating it: the WS-22.1
// mutant's installer (O_WRONLY without O_TRUNC).
func (d *Dir) overwrite(p string, data []byte) error {
	f, err := d.root.OpenFile(p, os.O_WRONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return mapErr(err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *Dir) Open(p string) (io.ReadCloser, int64, error) {
	f, fi, err := d.open(p, proto.EntryFile)
	if err != nil {
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
