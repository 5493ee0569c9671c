package script

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// From returns the direction of frames sent by peer.
func From(peer proto.Peer) Direction {
	if peer == proto.Core {
		return scenarios.CoreToRuntime
	}
	return scenarios.RuntimeToCore
}
