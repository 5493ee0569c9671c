package gateway

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The AD mutants of the preparation subscription that need more than a changed condition. Every
// body is guarded by mutation.On, a constant false outside the wirecheck_mutants build.

// terminalKeptOpen: the AD-55 mutant of state is on, and that terminal status leaves the
// preparation subscription open.
func terminalKeptOpen(state string) bool {
	switch state {
	case proto.StateStarted:
		return mutation.On(mutation.ADCoreStartedKeepsOpen)
	case proto.StateReleased:
		return mutation.On(mutation.ADCoreReleasedKeepsOpen)
	case proto.StateExpired:
		return mutation.On(mutation.ADCoreExpiredKeepsOpen)
	case proto.StateFailed:
		return mutation.On(mutation.ADCoreFailedKeepsOpen)
	}
	return false
}
