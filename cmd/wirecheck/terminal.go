package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth reports whether f is a terminal and how many columns it has. (A character device
// is not enough: /dev/null is one.)
func terminalWidth(f *os.File) (int, bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, false
	}
	return int(ws.Col), true
}
