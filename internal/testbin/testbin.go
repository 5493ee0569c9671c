// Package testbin builds this module's commands for the tests that run them as processes. Each
// binary is kept in the user's cache between runs: go build sees from the build ID of a binary
// already there that it is up to date and does not link it again, where a fresh temporary
// directory costs a link (seconds of CPU, minutes on a machine whose CPUs are busy) every run.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Build returns the path of the binary of the main package pkg (an import path, or a directory
// as go build reads it from the caller's working directory), built by `go build` with env added
// to the environment (CGO_ENABLED=0 for a static binary, say). WIRECHECK_TESTBIN_DIR chooses
// the directory; without it the binaries live under the user's cache directory, and in a fresh
// temporary one only if there is none.
//
// Processes that build the same binary at once (go test runs packages side by side) take turns
// on a lock beside it, so none runs a binary another is writing.
func Build(pkg string, env ...string) (string, error) {
	bin, err := Path(pkg, env...)
	if err != nil {
		return "", err
	}
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s: %w", lock.Name(), err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// Path is where Build puts that binary, for a caller that must name it before building.
func Path(pkg string, env ...string) (string, error) {
	dir, err := binDir()
	if err != nil {
		return "", err
	}
	abs := pkg
	if strings.HasPrefix(pkg, ".") {
		if abs, err = filepath.Abs(pkg); err != nil {
			return "", err
		}
	}
	// One file per package and environment: two builds that differ would relink each other.
	sum := sha256.Sum256([]byte(abs + "\x00" + strings.Join(env, "\x00")))
	return filepath.Join(dir, filepath.Base(abs)+"-"+hex.EncodeToString(sum[:6])), nil
}

func binDir() (string, error) {
	dir := os.Getenv("WIRECHECK_TESTBIN_DIR")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return os.MkdirTemp("", "wirecheck-testbin-")
		}
		dir = filepath.Join(cache, "wirecheck", "testbin")
	}
	return dir, os.MkdirAll(dir, 0o755)
}
