package contract

import (
	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
)

// UnavailableKind is the kind a Runtime may advertise `available: false` for good
// (docs/contract-harness.md §1.1), so that a scenario can ask it for a Run of an advertised kind
// that cannot run (RS-04.2).
const UnavailableKind = "contract-unavailable"

// Unavailable is the contract Harness advertised as UnavailableKind, never available. A Runtime
// must not run it; the reference would run its scripts like kind contract's if it did, so a Runtime
// that ignores availability shows on the wire (a Turn instead of an error and an empty done).
type Unavailable struct{ *Harness }

// NewUnavailable returns the Harness of UnavailableKind. It declares environment_none and
// preparation only: what the scenarios that ask for it require (a prompt_request or an
// execution_prepare with disable_execution_environment), so that availability is the only rule
// such a request breaks, and nothing another kind's declaration could be read through (an
// interaction no Run emitted is judged against every kind's).
func NewUnavailable(c clock.Clock) Unavailable {
	return Unavailable{New(c, proto.MustDeclareCapabilities("environment_none", "preparation"))}
}

func (Unavailable) Kind() string    { return UnavailableKind }
func (Unavailable) Available() bool { return false }
