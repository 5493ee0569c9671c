package conformance_test

import (
	"fmt"
	"os"
	"testing"
)

// memoryScratch is where the gate's plays keep their files when the machine has a memory
// filesystem and TMPDIR does not already choose a place.
const memoryScratch = "/dev/shm"

// TestMain gives the plays a scratch directory in memory when it can. Each child-process play
// starts a daemon that lays out a fresh environment (a handful of directories and an fsync'd
// file) and each reference Core play opens a fresh bbolt file; on a disk filesystem that busy
// with creating and deleting, the directory and sync calls were a sixth of the gate's CPU. What
// the plays test is unchanged: the same files, syscalls and fsyncs, none meant to outlive its play.
func TestMain(m *testing.M) {
	os.Exit(func() int {
		if os.Getenv("TMPDIR") == "" {
			if dir, err := os.MkdirTemp(memoryScratch, "wirecheck-gate-"); err == nil {
				defer os.RemoveAll(dir)
				os.Setenv("TMPDIR", dir)
				fmt.Fprintf(os.Stderr, "gate: scratch files in %s (set TMPDIR to choose another place)\n", dir)
			}
		}
		return m.Run()
	}())
}
