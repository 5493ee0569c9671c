package gateway

import (
	"encoding/json"
	"strings"

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

// lenientStatus is the AD-54.1 and AD-54.2 mutants' decoder of a preparation_status the wire rules
// refuse for its missing handle or its revision 0: Core's check of that member is missing, so the
// frame is decoded as it is and offered to the subscription (whose own check is missing too).
func lenientStatus(env proto.Envelope, perr error) (*proto.Frame, error) {
	msg := perr.Error()
	switch {
	case strings.HasPrefix(msg, "preparation_status.handle:") && mutation.On(mutation.ADCoreEmptyHandleDelivered),
		strings.HasPrefix(msg, "preparation_status.revision:") && mutation.On(mutation.ADCoreRevisionZeroDelivered):
		var p proto.PreparationStatusPayload
		if json.Unmarshal(env.Payload, &p) != nil {
			return nil, perr
		}
		return &proto.Frame{Envelope: env, Payload: &p}, nil
	}
	return nil, perr
}
