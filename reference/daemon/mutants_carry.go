//go:build wirecheck_mutants

package daemon

import "sync"

// carried holds, per daemon, the interactions machine of its latest connection, for the mutant
// that carries it into the next one (IA-08.5). Only the mutants build keeps it.
var carried sync.Map

func keepInteractions(d *Daemon, ia *interactions) { carried.Store(d, ia) }

func keptInteractions(d *Daemon) *interactions {
	if ia, ok := carried.Load(d); ok {
		return ia.(*interactions)
	}
	return nil
}
