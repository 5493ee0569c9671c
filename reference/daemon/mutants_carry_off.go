//go:build !wirecheck_mutants

package daemon

// Outside the mutants build no connection's interactions are kept for the next.

func keepInteractions(*Daemon, *interactions) {}

func keptInteractions(*Daemon) *interactions { return nil }
