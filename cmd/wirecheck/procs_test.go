package main

import (
	"runtime"
	"testing"
)

// The Core gets spare Ps (at least 4, twice the CPUs) unless GOMAXPROCS is set, which wins.
func TestCoreGetsSparePsUnlessGOMAXPROCSIsSet(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })

	t.Setenv("GOMAXPROCS", "")
	runtime.GOMAXPROCS(1)
	spareProcs()
	if got, want := runtime.GOMAXPROCS(0), max(2*runtime.NumCPU(), 4); got != want {
		t.Errorf("GOMAXPROCS unset: %d Ps, want %d", got, want)
	}

	t.Setenv("GOMAXPROCS", "1")
	runtime.GOMAXPROCS(1)
	spareProcs()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS=1 in the environment: %d Ps, want 1", got)
	}
}
