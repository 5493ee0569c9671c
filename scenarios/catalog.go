package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
)

//go:embed catalog
var embedded embed.FS

// Catalog is a linked set of scenarios: includes expanded, ids unique, steps numbered.
type Catalog struct {
	Scenarios []*Scenario // sorted by id
	byID      map[string]*Scenario
}

// Get returns a scenario by id.
func (c *Catalog) Get(id string) (*Scenario, bool) { s, ok := c.byID[id]; return s, ok }

// Embedded loads the catalog compiled into the binary.
func Embedded() (*Catalog, error) {
	sub, err := fs.Sub(embedded, "catalog")
	if err != nil {
		return nil, err
	}
	return LoadFS(sub, "catalog")
}

// EmbeddedFS exposes the embedded catalog files (for lint and schema checks).
func EmbeddedFS() fs.FS { sub, _ := fs.Sub(embedded, "catalog"); return sub }

// LoadDir loads every scenario file (*.yaml, *.yml) under dir.
func LoadDir(dir string) (*Catalog, error) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("scenario directory %s does not exist", dir)
	case err != nil:
		return nil, fmt.Errorf("scenario directory %s: %w", dir, err)
	case !info.IsDir():
		return nil, fmt.Errorf("%s is not a directory of scenario files", dir)
	}
	return LoadFS(os.DirFS(dir), dir)
}

// LoadFS loads every scenario file of fsys and links them. It returns every problem of every file
// (LoadErrors, sorted by file and line, capped at MaxErrors), not only the first; prefix is shown
// before file names. Files over MaxFileBytes, or a set over MaxCatalogBytes, are refused unread.
func LoadFS(fsys fs.FS, prefix string) (*Catalog, error) {
	files, errs, err := scenarioFiles(fsys, prefix)
	if err != nil {
		return nil, err
	}
	// Files are read in order and parsed side by side: checking every frame against the wire
	// rules is most of a load, and a process that plays the catalog waits for it before its
	// first play.
	type parsed struct {
		scs  []*Scenario
		errs LoadErrors
	}
	out := make([]parsed, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, f := range files {
		name := path.Join(prefix, f.path)
		data, refused, err := readBounded(fsys, f.path, name)
		if err != nil {
			wg.Wait()
			return nil, err
		}
		if refused != nil {
			out[i].errs = LoadErrors{refused}
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i].scs, out[i].errs = parse(name, data)
		})
	}
	wg.Wait()
	var all []*Scenario
	for _, o := range out {
		errs = append(errs, o.errs...)
		all = append(all, o.scs...)
	}
	c, lerrs := Link(all)
	errs = append(errs, lerrs...)
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool {
			if errs[i].Pos.File != errs[j].Pos.File {
				return errs[i].Pos.File < errs[j].Pos.File
			}
			return errs[i].Pos.Line < errs[j].Pos.Line
		})
		return c, capped(errs)
	}
	return c, nil
}

// Link checks ids are unique, expands includes (top-level `include` first, then inline `include`
// steps) and numbers the steps.
func Link(all []*Scenario) (*Catalog, LoadErrors) {
	var errs LoadErrors
	c := &Catalog{byID: map[string]*Scenario{}}
	for _, s := range all {
		if prev, dup := c.byID[s.ID]; dup {
			errs = append(errs, &LoadError{Pos: s.Pos, Msg: fmt.Sprintf("duplicate scenario id %q (first at %s)", s.ID, prev.Pos)})
			continue
		}
		c.byID[s.ID] = s
		c.Scenarios = append(c.Scenarios, s)
	}
	sort.Slice(c.Scenarios, func(i, j int) bool { return c.Scenarios[i].ID < c.Scenarios[j].ID })
	for _, s := range c.Scenarios {
		steps, err := c.expand(s, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for i, st := range steps {
			st.Index = i + 1
		}
		s.Steps = steps
		s.Vars = c.vars(s, nil)
		for _, st := range steps {
			if st.Kind == StepExportPull && s.Tests != SideRuntime {
				errs = append(errs, &LoadError{Pos: st.Pos, Msg: fmt.Sprintf("%s: export_pull is the scripted Core's pull of a Runtime's export: the scenario needs tests: runtime", s.ID)})
			}
		}
		// Included frames are checked again with the including scenario's vars.
		if len(s.Include) > 0 || len(s.Vars) != len(s.ownVars) {
			for _, st := range steps {
				for _, fs := range st.Frames() {
					if fs.Frame.Raw == nil && st.Included != "" {
						if err := CheckFrame(fs.Frame, s.Vars); err != nil {
							errs = append(errs, &LoadError{Pos: fs.Pos, Msg: fmt.Sprintf("included in %s: %v", s.ID, err)})
						}
					}
				}
			}
		}
	}
	return c, errs
}

func (c *Catalog) expand(s *Scenario, stack []string) ([]*Step, *LoadError) {
	for _, id := range stack {
		if id == s.ID {
			return nil, &LoadError{Pos: s.Pos, Msg: "include cycle: " + strings.Join(append(stack, s.ID), " → ")}
		}
	}
	stack = append(stack, s.ID)
	var out []*Step
	inline := func(id string, pos Pos) *LoadError {
		inc, ok := c.byID[id]
		if !ok {
			return &LoadError{Pos: pos, Msg: fmt.Sprintf("include %q: no such scenario", id)}
		}
		steps, err := c.expand(inc, stack)
		if err != nil {
			return err
		}
		for _, st := range steps {
			cp := *st
			if cp.Included == "" {
				cp.Included = inc.ID
			}
			out = append(out, &cp)
		}
		return nil
	}
	for _, id := range s.Include {
		if err := inline(id, s.Pos); err != nil {
			return nil, err
		}
	}
	for _, st := range s.own {
		if st.Kind == "include" {
			if err := inline(st.Included, st.Pos); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, st)
	}
	return out, nil
}

// vars merges the vars of a scenario's includes (in order) under its own.
func (c *Catalog) vars(s *Scenario, stack []string) map[string]Value {
	for _, id := range stack {
		if id == s.ID {
			return nil
		}
	}
	out := map[string]Value{}
	merge := func(id string) {
		if inc, ok := c.byID[id]; ok {
			for k, v := range c.vars(inc, append(stack, s.ID)) {
				out[k] = v
			}
		}
	}
	for _, id := range s.Include {
		merge(id)
	}
	for _, st := range s.own {
		if st.Kind == "include" {
			merge(st.Included)
		}
	}
	for k, v := range s.ownVars {
		out[k] = v
	}
	return out
}

// MatchID reports whether a scenario id matches a selection pattern: an exact id, a subtree
// ("execution" or "execution/" or "execution/**"), or a glob of path.Match per segment
// ("execution/*-handle").
func MatchID(pattern, id string) bool {
	pattern = strings.TrimSuffix(strings.TrimSuffix(pattern, "**"), "/")
	if pattern == "" || id == pattern || strings.HasPrefix(id, pattern+"/") {
		return true
	}
	ok, _ := path.Match(pattern, id)
	if ok {
		return true
	}
	// A glob also selects the subtree under what it matches.
	parts := strings.Split(id, "/")
	for i := range parts {
		if ok, _ := path.Match(pattern, strings.Join(parts[:i+1], "/")); ok {
			return true
		}
	}
	return false
}

// Select returns the scenarios matching any of run (all when run is empty) and none of skip.
func (c *Catalog) Select(run, skip []string) []*Scenario {
	var out []*Scenario
	for _, s := range c.Scenarios {
		if len(run) > 0 && !anyMatch(run, s.ID) {
			continue
		}
		if anyMatch(skip, s.ID) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func anyMatch(patterns []string, id string) bool {
	for _, p := range patterns {
		if MatchID(p, id) {
			return true
		}
	}
	return false
}

// ScenarioSchema is the JSON Schema of scenario files (scenario.schema.json), for editors.
//
//go:embed scenario.schema.json
var ScenarioSchema []byte
