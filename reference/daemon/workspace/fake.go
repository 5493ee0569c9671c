package workspace

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
)

// ErrInjected is the ambiguous error a Fake returns where a test asked for a failure.
var ErrInjected = errors.New("injected native failure")

// Fake is an in-memory FS for tests. Its zero value is an empty workspace.
type Fake struct {
	mu    sync.Mutex
	nodes map[string]*fakeNode // by workspace-relative path; the root is implicit
	// Now stamps written files; zero: the Unix epoch.
	Now time.Time
	// FailWrites makes every WriteFile fail with this error, changing nothing.
	FailWrites error
}

type fakeNode struct {
	kind   string
	data   []byte
	denied bool  // reading it is permission_denied
	fail   error // reading it fails with this error
}

func (f *Fake) node(p string) *fakeNode {
	if f.nodes == nil {
		f.nodes = map[string]*fakeNode{}
	}
	return f.nodes[p]
}

// Put creates a file (and its parent directories) with data.
func (f *Fake) Put(p string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mkdirs(parent(p))
	f.nodes[p] = &fakeNode{kind: proto.EntryFile, data: slices.Clone(data)}
}

// Mkdir creates a directory and its parents.
func (f *Fake) Mkdir(p string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mkdirs(p)
}

// Symlink creates a symlink (its target is irrelevant: it is never followed).
func (f *Fake) Symlink(p string) { f.special(p, proto.EntrySymlink) }

// Special creates a name of kind other (a socket, a device).
func (f *Fake) Special(p string) { f.special(p, proto.EntryOther) }

func (f *Fake) special(p, kind string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mkdirs(parent(p))
	f.nodes[p] = &fakeNode{kind: kind}
}

// Deny makes reading p permission_denied; Fail makes it fail with err.
func (f *Fake) Deny(p string) { f.mu.Lock(); f.node(p).denied = true; f.mu.Unlock() }
func (f *Fake) Fail(p string, err error) {
	f.mu.Lock()
	f.node(p).fail = err
	f.mu.Unlock()
}

// File returns the file's content, or false when there is no regular file at p.
func (f *Fake) File(p string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.node(p)
	if n == nil || n.kind != proto.EntryFile {
		return nil, false
	}
	return slices.Clone(n.data), true
}

func (f *Fake) mkdirs(p string) {
	if f.nodes == nil {
		f.nodes = map[string]*fakeNode{}
	}
	if p == "" {
		return
	}
	f.mkdirs(parent(p))
	if f.node(p) == nil {
		f.nodes[p] = &fakeNode{kind: proto.EntryDirectory}
	}
}

func parent(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// walkParents checks every proper prefix of p: each must be a directory or missing (create: made).
func (f *Fake) walkParents(p string, create bool) error {
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		switch n := f.node(prefix); {
		case n == nil && create:
			f.nodes[prefix] = &fakeNode{kind: proto.EntryDirectory}
		case n == nil:
			return ErrNotFound
		case n.kind == proto.EntrySymlink:
			return ErrSymlink
		case n.kind != proto.EntryDirectory:
			return ErrNotDirectory
		}
	}
	return nil
}

// lookup finds p for a read: the node, or why there is none to read.
func (f *Fake) lookup(p string) (*fakeNode, error) {
	if p == "" {
		return &fakeNode{kind: proto.EntryDirectory}, nil
	}
	if err := f.walkParents(p, false); err != nil {
		return nil, err
	}
	n := f.node(p)
	switch {
	case n == nil:
		return nil, ErrNotFound
	case n.fail != nil:
		return nil, n.fail
	case n.denied:
		return nil, ErrPermission
	}
	return n, nil
}

func (f *Fake) ReadFile(p string, max int) ([]byte, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.lookup(p)
	if err != nil {
		return nil, false, err
	}
	switch n.kind {
	case proto.EntryFile:
	case proto.EntrySymlink:
		return nil, false, ErrSymlink
	default:
		return nil, false, ErrNotFile
	}
	if len(n.data) > max {
		return slices.Clone(n.data[:max]), true, nil
	}
	return slices.Clone(n.data), false, nil
}

func (f *Fake) List(p string, max int) ([]Entry, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.lookup(p)
	if err != nil {
		return nil, false, err
	}
	switch n.kind {
	case proto.EntryDirectory:
	case proto.EntrySymlink:
		return nil, false, ErrSymlink
	default:
		return nil, false, ErrNotDirectory
	}
	var out []Entry
	for q, c := range f.nodes {
		if q != p && parent(q) == p {
			info := Info{Kind: c.kind, ModTime: f.stamp()}
			if c.kind == proto.EntryFile {
				info.Size = int64(len(c.data))
			}
			out = append(out, Entry{Name: q[len(p)+min(len(p), 1):], Info: info})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	if max > 0 && len(out) > max {
		return out[:max], true, nil
	}
	return out, false, nil
}

func (f *Fake) stamp() time.Time {
	if f.Now.IsZero() {
		return time.Unix(0, 0)
	}
	return f.Now
}

func (f *Fake) WriteFile(p string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.FailWrites != nil {
		return f.FailWrites
	}
	if f.nodes == nil {
		f.nodes = map[string]*fakeNode{}
	}
	// Check the whole path before creating anything, as the real installer does.
	if err := f.walkParents(p, false); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	if n := f.node(p); n != nil {
		switch n.kind {
		case proto.EntryDirectory:
			return ErrIsDirectory
		case proto.EntrySymlink:
			return ErrSymlink
		case proto.EntryOther:
			return ErrNotFile
		}
	}
	_ = f.walkParents(p, true)
	f.nodes[p] = &fakeNode{kind: proto.EntryFile, data: slices.Clone(data)}
	return nil
}

func (f *Fake) Open(p string) (io.ReadCloser, int64, error) {
	data, _, err := f.ReadFile(p, int(proto.WorkspaceExportMaxBytes)+1)
	if err != nil {
		return nil, 0, err
	}
	return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
}
