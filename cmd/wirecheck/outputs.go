package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// output is a report file and the flag that names it.
type output struct{ flag, path string }

// checkOutputs finds, before the first scenario, every report that could not be written at the
// end: a path whose directory is missing or not writable, a path given twice, a bundle directory
// that is not empty (a bundle never mixes two runs). Nothing is left behind.
func checkOutputs(files []output, bundle string) error {
	var problems []error
	seen := map[string]string{}
	for _, o := range files {
		flag, path := o.flag, o.path
		if path == "" || path == "-" {
			continue
		}
		abs, _ := filepath.Abs(path)
		if other, ok := seen[abs]; ok {
			problems = append(problems, fmt.Errorf("--%s and --%s both write %s", other, flag, path))
			continue
		}
		seen[abs] = flag
		if err := checkWritableFile(path); err != nil {
			problems = append(problems, fmt.Errorf("--%s %s: %w", flag, path, err))
		}
	}
	if bundle != "" {
		if err := checkEmptyDir(bundle); err != nil {
			problems = append(problems, fmt.Errorf("--bundle %s: %w", bundle, err))
		}
	}
	return errors.Join(problems...)
}

// checkWritableFile: an existing file opens for writing (without truncating it); a new one can be
// created in its directory.
func checkWritableFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return errors.New("is a directory")
	case err == nil:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return unwrapPath(err)
		}
		return f.Close()
	case errors.Is(err, fs.ErrNotExist):
		return checkWritableDir(filepath.Dir(path))
	default:
		return unwrapPath(err)
	}
}

// checkEmptyDir: the directory is absent (and can be made) or empty.
func checkEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkWritableDir(filepath.Dir(filepath.Clean(dir)))
	case err != nil:
		return unwrapPath(err)
	case len(entries) > 0:
		return fmt.Errorf("is not empty (%d entries): a bundle never mixes two runs, choose a new directory", len(entries))
	}
	return checkWritableDir(dir)
}

func checkWritableDir(dir string) error {
	f, err := os.CreateTemp(dir, ".wirecheck-write-check-*")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("directory %s does not exist", dir)
		}
		return fmt.Errorf("cannot write in %s: %w", dir, unwrapPath(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// unwrapPath drops the path from a *fs.PathError: the message names it already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
