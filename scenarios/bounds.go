package scenarios

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// What the loader reads is bounded before anything is parsed. Decoding YAML into nodes costs about
// 50 times a file's size in memory, and more for a file of tiny nodes (1 MiB of `[1,1,...]` takes
// 1.5 s and 200 MB), so a 50 MB file once took 2.7 GB and two minutes. The largest catalog file
// holds 15 KB and the whole catalog 140 KB: the bounds leave them 70 and 60 times that.
const (
	MaxFileBytes    = 1 << 20 // one scenario file
	MaxCatalogBytes = 8 << 20 // every scenario file of a directory together
	// MaxErrors is how many errors a load reports; the rest are counted ("… and N more"): past a
	// screenful, more lines of the same mistake help no one.
	MaxErrors = 50
	// MaxRepeat bounds a repeat step's count, and MaxRepeatNodes the YAML nodes the repeats of one
	// file expand to in all (count times the nodes of each body): a file of a few bytes must not
	// expand into the gigabytes a large file is refused for. 2,050 frame steps of the 1,024-entry
	// memory scenarios take about 60,000.
	MaxRepeat      = 4096
	MaxRepeatNodes = 1 << 18
)

// scenarioFile is a file a load will parse.
type scenarioFile struct {
	path string // inside the file system
	size int64
}

// isScenarioFile reports whether a name is a scenario file's.
func isScenarioFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// scenarioFiles lists the scenario files of fsys. Files over MaxFileBytes and files that are not
// regular (a named pipe would block the read) are refused, each with an error; a set of files
// over MaxCatalogBytes is refused as a whole, before any is read.
func scenarioFiles(fsys fs.FS, prefix string) ([]scenarioFile, LoadErrors, error) {
	var files []scenarioFile
	var refused LoadErrors
	var total int64
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", path.Join(prefix, p), err)
		}
		if d.IsDir() || !isScenarioFile(p) {
			return nil
		}
		name := path.Join(prefix, p)
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		switch {
		case !info.Mode().IsRegular():
			refused = append(refused, &LoadError{Pos: Pos{File: name}, Msg: "not a regular file"})
		case info.Size() > MaxFileBytes:
			refused = append(refused, oversize(name, info.Size()))
		default:
			files = append(files, scenarioFile{path: p, size: info.Size()})
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if total > MaxCatalogBytes {
		return nil, nil, fmt.Errorf("%s: the scenario files hold %d bytes together, over the %d MiB a catalog may hold; nothing was read",
			prefix, total, MaxCatalogBytes>>20)
	}
	if len(files) == 0 && len(refused) == 0 {
		return nil, nil, fmt.Errorf("%s: no scenario files (*.yaml, *.yml)", prefix)
	}
	return files, refused, nil
}

func oversize(name string, size int64) *LoadError {
	return &LoadError{Pos: Pos{File: name}, Msg: fmt.Sprintf("%d bytes, over the %d MiB a scenario file may hold; not read", size, MaxFileBytes>>20)}
}

// readBounded reads a file the walk listed, refusing it if it grew past MaxFileBytes since.
func readBounded(fsys fs.FS, p, name string) ([]byte, *LoadError, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, oversize(name, int64(len(data))), nil
	}
	return data, nil, nil
}

// capped keeps the first MaxErrors errors and counts the rest in a last line.
func capped(errs LoadErrors) LoadErrors {
	if len(errs) <= MaxErrors {
		return errs
	}
	more := len(errs) - MaxErrors
	out := append(errs[:MaxErrors:MaxErrors], &LoadError{Msg: fmt.Sprintf("… and %d more", more), More: more})
	return out
}

// Total is how many errors were found, those a capped list only counts included.
func (es LoadErrors) Total() int {
	n := 0
	for _, e := range es {
		if e.More > 0 {
			n += e.More
		} else {
			n++
		}
	}
	return n
}
