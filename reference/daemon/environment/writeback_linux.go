//go:build linux

package environment

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteBack asks the kernel to start writing [off, off+n) of f to disk now, without waiting
// for it (sync_file_range with SYNC_FILE_RANGE_WRITE): the Sync at install then waits only for
// what is still in flight. It is advice: an error changes nothing, the Sync still decides.
func startWriteBack(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _ = unix.SyncFileRange(int(fd), off, n, unix.SYNC_FILE_RANGE_WRITE) })
}
