// Package environment is the reference Runtime's Environment on disk: a root directory holding the
// workspace (the logical /workspace) and, outside it, what the Harness loads (skills, plugins, the
// configured environment, recorded package lists). Every path is confined to the root with os.Root
// and no symlink is ever followed: a path with a symlink component is refused, not resolved.
//
// Layout under the root:
//
//	workspace/                 the logical /workspace
//	state/skills/<sha256(name)>/{name,description,body}
//	state/plugins/<slot>/{name,description,body}
//	state/env.json             the configured environment (initialize configure)
//	state/packages/<manager>   recorded package lists (npm, python), one name a line
//	state/staging/<random>     bodies being received, renamed into place when installed (Stage)
package environment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Workspace is the logical root every workspace path starts with.
const Workspace = "/workspace"

const (
	workspaceDir = "workspace"
	stateDir     = "state"
)

var (
	// ErrUnsafe: the path escapes the workspace, has a symlink component, or its destination is a
	// directory. Nothing was changed.
	ErrUnsafe = errors.New("environment: unsafe destination")
	// ErrInvalidContent: a capability body the Harness could not load (not UTF-8 text).
	ErrInvalidContent = errors.New("environment: invalid capability content")
)

// Environment is one bound Environment. Its methods are safe for concurrent use.
type Environment struct {
	dir  string
	temp bool
	root *os.Root
	mu   sync.Mutex // serialises changes to state/ (env.json is read-modify-write)
}

// Open binds the Environment rooted at dir, creating dir and its layout if needed.
func Open(dir string) (*Environment, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return open(dir, false)
}

// Temp binds a fresh Environment in a new temporary directory that Close removes.
func Temp() (*Environment, error) {
	dir, err := os.MkdirTemp("", "wirecheck-env-")
	if err != nil {
		return nil, err
	}
	return open(dir, true)
}

func open(dir string, temp bool) (*Environment, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{workspaceDir, stateDir, stateDir + "/skills", stateDir + "/plugins", stateDir + "/packages"} {
		if err := root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			root.Close()
			return nil, err
		}
	}
	if err := root.RemoveAll(stagingDir); err != nil { // bodies a stopped daemon left half-received
		root.Close()
		return nil, err
	}
	return &Environment{dir: dir, temp: temp, root: root}, nil
}

// Dir is the root directory on disk.
func (e *Environment) Dir() string { return e.dir }

// WorkspaceDir is the directory on disk that the logical /workspace maps to.
func (e *Environment) WorkspaceDir() string { return e.dir + "/" + workspaceDir }

// Close releases the root; a temporary Environment is removed.
func (e *Environment) Close() error {
	err := e.root.Close()
	if e.temp {
		err = errors.Join(err, os.RemoveAll(e.dir))
	}
	return err
}

// Resolve maps a logical path (/workspace or below it, clean) to its path relative to the root.
func Resolve(logical string) (string, error) {
	if logical == Workspace {
		return workspaceDir, nil
	}
	if !strings.HasPrefix(logical, Workspace+"/") || path.Clean(logical) != logical || strings.ContainsAny(logical, "\\\x00") {
		return "", fmt.Errorf("%w: %q is not a clean path below %s", ErrUnsafe, logical, Workspace)
	}
	return workspaceDir + strings.TrimPrefix(logical, Workspace), nil
}

// noSymlinks refuses rel if any existing component of it is a symlink; missing components are
// fine (they will be created as directories). It reports whether the whole path exists.
func (e *Environment) noSymlinks(rel string) (exists bool, err error) {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := e.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return false, fmt.Errorf("%w: %s is a symlink", ErrUnsafe, p)
		}
		if i < len(parts)-1 && !fi.IsDir() {
			return false, fmt.Errorf("%w: %s is not a directory", ErrUnsafe, p)
		}
	}
	return true, nil
}

// mkdirs creates the missing directories of rel, one component at a time, refusing symlinks.
func (e *Environment) mkdirs(rel string) error {
	if _, err := e.noSymlinks(rel); err != nil {
		return err
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if err := e.root.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err := e.root.Lstat(p)
		if err != nil {
			return err
		}
		if !fi.IsDir() { // a symlink or a file raced in
			return fmt.Errorf("%w: %s is not a directory", ErrUnsafe, p)
		}
	}
	return nil
}

// writeAtomic writes data to rel (relative to the root): a temporary file in the destination's
// directory, synced, then renamed over it. A destination that is a directory or a symlink, or sits
// under one, is refused before anything is written.
func (e *Environment) writeAtomic(rel string, data []byte) error {
	dir := path.Dir(rel)
	if err := e.mkdirs(dir); err != nil {
		return err
	}
	if fi, err := e.root.Lstat(rel); err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 || !fi.Mode().IsRegular()) {
		return fmt.Errorf("%w: %s exists and is not a regular file", ErrUnsafe, rel)
	}
	tmp := dir + "/.wirecheck-tmp-" + randomSuffix()
	f, err := e.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = e.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = e.root.Remove(tmp)
	}
	return err
}

// WriteFile writes data atomically at a logical workspace path (zero bytes included).
func (e *Environment) WriteFile(logical string, data []byte) error {
	rel, err := Resolve(logical)
	if err != nil {
		return err
	}
	if rel == workspaceDir {
		return fmt.Errorf("%w: %s is the workspace itself", ErrUnsafe, logical)
	}
	return e.writeAtomic(rel, data)
}

// ReadFile reads a regular file at a logical workspace path, following no symlink.
func (e *Environment) ReadFile(logical string) ([]byte, error) {
	rel, err := Resolve(logical)
	if err != nil {
		return nil, err
	}
	if _, err := e.noSymlinks(rel); err != nil {
		return nil, err
	}
	return e.root.ReadFile(rel)
}

// Kind is what a logical path holds.
type Kind string

const (
	Absent    Kind = "absent"
	File      Kind = "file"
	Directory Kind = "directory"
	Symlink   Kind = "symlink"
	Other     Kind = "other"
	Unsafe    Kind = "unsafe" // under a symlink or a file: the path cannot be read without following one
)

// Entry describes what a logical path holds; Size and SHA256 are set for a File.
type Entry struct {
	Kind   Kind
	Size   int64
	SHA256 string
}

// Stat reports what a logical path holds without following any symlink.
func (e *Environment) Stat(logical string) (Entry, error) {
	rel, err := Resolve(logical)
	if err != nil {
		return Entry{}, err
	}
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		fi, err := e.root.Lstat(strings.Join(parts[:i+1], "/"))
		if errors.Is(err, fs.ErrNotExist) {
			return Entry{Kind: Absent}, nil
		}
		if err != nil {
			return Entry{}, err
		}
		if !fi.IsDir() {
			return Entry{Kind: Unsafe}, nil
		}
	}
	fi, err := e.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Entry{Kind: Absent}, nil
	case err != nil:
		return Entry{}, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return Entry{Kind: Symlink}, nil
	case fi.IsDir():
		return Entry{Kind: Directory}, nil
	case !fi.Mode().IsRegular():
		return Entry{Kind: Other}, nil
	}
	data, err := e.root.ReadFile(rel)
	if err != nil {
		return Entry{}, err
	}
	sum := sha256.Sum256(data)
	return Entry{Kind: File, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, nil
}

// Capability is an installed inline skill or plugin.
type Capability struct {
	Name, Description string
	Body              []byte
}

func checkCapability(c Capability) error {
	if !utf8.Valid(c.Body) {
		return fmt.Errorf("%w: the body is not UTF-8 text", ErrInvalidContent)
	}
	return nil
}

func (e *Environment) writeCapability(dir string, c Capability) error {
	if err := checkCapability(c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, data := range map[string][]byte{"name": []byte(c.Name), "description": []byte(c.Description), "body": c.Body} {
		if err := e.writeAtomic(dir+"/"+name, data); err != nil {
			return err
		}
	}
	return nil
}

// InstallSkill records an inline skill where the Harness loads skills, replacing one of that name.
func (e *Environment) InstallSkill(c Capability) error {
	sum := sha256.Sum256([]byte(c.Name))
	return e.writeCapability(stateDir+"/skills/"+hex.EncodeToString(sum[:]), c)
}

// InstallPlugin records an inline plugin in its slot, replacing the slot's previous plugin.
func (e *Environment) InstallPlugin(slot int, c Capability) error {
	return e.writeCapability(stateDir+"/plugins/"+strconv.Itoa(slot), c)
}

// Skills lists the names of the installed skills, sorted.
func (e *Environment) Skills() ([]string, error) {
	names, err := e.capabilityNames(stateDir + "/skills")
	if err != nil {
		return nil, err
	}
	out := slices.Collect(maps.Values(names))
	slices.Sort(out)
	return out, nil
}

// Plugins maps each occupied slot to the name of its plugin.
func (e *Environment) Plugins() (map[int]string, error) {
	names, err := e.capabilityNames(stateDir + "/plugins")
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for dir, name := range names {
		slot, err := strconv.Atoi(dir)
		if err != nil {
			continue
		}
		out[slot] = name
	}
	return out, nil
}

func (e *Environment) capabilityNames(dir string) (map[string]string, error) {
	f, err := e.root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		name, err := e.root.ReadFile(dir + "/" + ent.Name() + "/name")
		if err != nil {
			continue // half written by a crashed apply: not installed
		}
		out[ent.Name()] = string(name)
	}
	return out, nil
}

// Configure adds env to the configured environment (a later value replaces an earlier one).
func (e *Environment) Configure(env map[string]string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur, err := e.envLocked()
	if err != nil {
		return err
	}
	maps.Copy(cur, env)
	data, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	return e.writeAtomic(stateDir+"/env.json", data)
}

// Env is the configured environment.
func (e *Environment) Env() (map[string]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.envLocked()
}

func (e *Environment) envLocked() (map[string]string, error) {
	env := map[string]string{}
	data, err := e.root.ReadFile(stateDir + "/env.json")
	if errors.Is(err, fs.ErrNotExist) {
		return env, nil
	}
	if err != nil {
		return nil, err
	}
	return env, json.Unmarshal(data, &env)
}

// RecordPackages appends a package list for a manager (npm, python); no package manager runs.
func (e *Environment) RecordPackages(manager string, packages []string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	rel := stateDir + "/packages/" + manager
	old, err := e.root.ReadFile(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return e.writeAtomic(rel, append(old, []byte(strings.Join(packages, "\n")+"\n")...))
}

// Packages is the recorded package list of a manager, in order.
func (e *Environment) Packages(manager string) ([]string, error) {
	data, err := e.root.ReadFile(stateDir + "/packages/" + manager)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return strings.Fields(string(data)), err
}

// DirectoryExists reports whether a logical workspace path is a directory (no symlink followed).
func (e *Environment) DirectoryExists(logical string) bool {
	ent, err := e.Stat(logical)
	return err == nil && ent.Kind == Directory
}
