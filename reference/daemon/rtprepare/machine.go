// Package rtprepare is the pure per-connection state machine of runtime_prepare transfers
// (protocol-facts §4.2): which receipt each frame gets, when bytes are staged, when a transfer is
// closed without applying, when it is applied, and who owns the connection's one transfer slot. It
// does no I/O and reads no clock: the daemon feeds it decoded frames and the apply outcome, arms the
// 120 s bound it asks for, and carries out the effects in order.
package rtprepare

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mutation/prepshape"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Phase is where one transfer ID stands on this connection.
type Phase string

const (
	Pending  Phase = "pending"  // begun: chunks are staged, nothing applied
	Applying Phase = "applying" // committed: the apply runs
	Owned    Phase = "owned"    // the apply ended unconfirmed: the slot stays owned (RP-24)
	Spent    Phase = "spent"    // its terminal result is decided: no later frame is answered
)

// Transfer is the transfer that holds the connection's slot.
type Transfer struct {
	ID       string
	Begin    proto.RuntimePreparePayload
	Received int64
	Phase    Phase
	sum      hash.Hash
}

// Conn is the runtime_prepare state of one connection. Memory is per connection: a new connection
// starts from the zero value (with Serving set).
type Conn struct {
	// Serving: the Runtime has an Environment. Without one every frame is
	// runtime_preparation_unsupported (RP-25).
	Serving bool
	// Slot is the transfer holding the connection's one slot: pending, applying or owned.
	Slot *Transfer
	// Seen is every transfer ID begun on this connection (an expired one is forgotten).
	Seen map[string]Phase
	// reapply keeps completed initializations for the repeated-commit mutant (RP-24.9).
	reapply map[string]proto.RuntimePreparePayload
}

// Frame is one runtime_prepare frame. Err is its decoding or validation error (Payload is nil then).
type Frame struct {
	ID      string
	Payload *proto.RuntimePreparePayload
	Err     error
	// Busy: a Run, an Executor or an owned admission exists (checked for begin, RP-21).
	Busy bool
	// Mismatch: begin names another Environment or Session than the bound one (RP-21).
	Mismatch bool
}

// ApplyOutcome is how applying a committed transfer ended.
type ApplyOutcome string

const (
	Completed   ApplyOutcome = "completed"   // installed
	Failed      ApplyOutcome = "failed"      // a definite failure (exit 1–255, invalid capability content, missing sources)
	Refused     ApplyOutcome = "refused"     // refused before anything changed (an unsafe destination)
	Unconfirmed ApplyOutcome = "unconfirmed" // killed, bounded, or could not tell: the slot stays owned
)

// Applied reports the end of the apply of ID.
type Applied struct {
	ID       string
	Outcome  ApplyOutcome
	ExitCode int // with Failed, when a command exited 1–255
}

// Expired: the 120 s bound of ID passed while it was pending (RP-23).
type Expired struct{ ID string }

// Event is a Frame, Applied or Expired.
type Event interface{ event() }

func (Frame) event()   {}
func (Applied) event() {}
func (Expired) event() {}

// Effect is what the daemon must do, in order.
type Effect interface{ String() string }

// Reply sends a runtime_prepare_result (id = transfer ID) within the 5 s send budget.
type Reply struct {
	ID     string
	Result proto.RuntimePrepareResultPayload
}

// Arm starts the 120 s bound of a transfer just begun; it fires Expired.
type Arm struct{ ID string }

// Stage appends the chunk's bytes to the transfer's staged body and to Digest, the transfer's
// running SHA-256 that commit checks. Hashing is the host's, with the copy, so that it can run
// after the received goes out and beside the next chunk (the daemon's prepareEffects); the host
// writes every Stage's bytes to Digest in order, and has written them all before it applies any
// frame but a chunk (a commit reads the digest).
type Stage struct {
	ID     string
	Data   []byte
	Digest io.Writer
}

// Apply applies the committed transfer: the staged body is complete and verified. The bound stops.
type Apply struct{ ID string }

// Close ends the transfer's resources: staged bytes dropped, its bound stopped. Nothing is applied.
type Close struct{ ID string }

func (r Reply) String() string {
	p := r.Result
	s := "reply " + p.Outcome
	if p.Offset != 0 {
		s += fmt.Sprintf(" offset=%d", p.Offset)
	}
	if p.SizeBytes != 0 {
		s += fmt.Sprintf(" size=%d", p.SizeBytes)
	}
	if p.ErrorCode != "" {
		s += " " + p.ErrorCode
	}
	if p.ExitCode != 0 {
		s += fmt.Sprintf(" exit=%d", p.ExitCode)
	}
	return s
}
func (a Arm) String() string   { return "arm" }
func (s Stage) String() string { return fmt.Sprintf("stage %d bytes", len(s.Data)) }
func (a Apply) String() string { return "apply" }
func (c Close) String() string { return "close" }

// Sum is the SHA-256 of the bytes received so far, in lowercase hex.
func (t *Transfer) Sum() string { return hex.EncodeToString(t.sum.Sum(nil)) }

// Busy reports whether a transfer holds the slot: execution is then resource_unavailable.
func (c *Conn) Busy() bool { return c.Slot != nil }

// Apply feeds one event and returns the effects in order.
func (c *Conn) Apply(ev Event) []Effect {
	if c.Seen == nil {
		c.Seen = map[string]Phase{}
	}
	switch ev := ev.(type) {
	case Frame:
		return c.frame(ev)
	case Applied:
		return c.applied(ev)
	case Expired:
		if t := c.Slot; t != nil && t.ID == ev.ID && t.Phase == Pending {
			// Closed without a result: the ID is forgotten, so a later chunk or commit for it is
			// resource_unavailable.
			c.Slot = nil
			delete(c.Seen, ev.ID)
			return []Effect{Close(ev)} // the same one-field shape: the expired transfer is the one closed
		}
	}
	return nil
}

func reply(id, outcome, code string) Reply {
	return Reply{ID: id, Result: proto.RuntimePrepareResultPayload{Outcome: outcome, ErrorCode: code}}
}

func (c *Conn) frame(f Frame) []Effect {
	if !proto.CanonicalUUID(f.ID) && !idAnswered(f.ID) {
		return nil // no reply can name it (RP-11)
	}
	if !c.Serving {
		code := proto.CodeRuntimePreparationUnsupported
		switch {
		case f.Payload == nil:
		case f.Payload.Step == proto.StepBegin && mutation.On(mutation.RPUnsupportedAsUnavailable):
			code = proto.CodeResourceUnavailable
		case f.Payload.Step != proto.StepBegin && mutation.On(mutation.RPUnsupportedAfterLookup):
			code = proto.CodeResourceUnavailable // the transfer looked up first: none
		}
		return []Effect{reply(f.ID, proto.OutcomeRejected, code)}
	}
	phase, seen := c.Seen[f.ID]
	if effects, ok := c.reapplied(f, phase); ok {
		return effects
	}
	if seen && phase != Pending {
		// Committed, closed or owned: its result is decided (or being decided) and no later frame
		// may read as it (a late malformed frame can never claim the commit was rejected).
		return nil
	}
	if f.Err != nil {
		if seen && mutation.On(mutation.RPInvalidFrameKeepsTransfer) {
			return []Effect{reply(f.ID, proto.OutcomeRejected, proto.CodeInvalidRequest)} // the transfer stays open
		}
		if seen {
			return c.closeSlot(proto.CodeInvalidRequest)
		}
		return []Effect{reply(f.ID, proto.OutcomeRejected, proto.CodeInvalidRequest)}
	}
	p := f.Payload
	switch p.Step {
	case proto.StepBegin:
		switch {
		case seen:
			if t := c.Slot; mutation.On(mutation.RPDuplicateBeginRestarts) {
				t.Received, t.sum = 0, sha256.New()
				return []Effect{Close{f.ID}, Arm{f.ID}} // restarted from 0 bytes, its bound re-armed
			}
			return nil // a duplicate begin (RP-20)
		case c.Slot != nil:
			return c.capacity(f.ID)
		case f.Mismatch || f.Busy:
			return []Effect{reply(f.ID, proto.OutcomeRejected, proto.CodeResourceUnavailable)}
		}
		c.Slot = &Transfer{ID: f.ID, Begin: *p, Phase: Pending, sum: sha256.New()}
		c.Seen[f.ID] = Pending
		return []Effect{Arm{f.ID}, reply(f.ID, proto.OutcomeReady, "")}
	case proto.StepChunk:
		if !seen {
			if mutation.On(mutation.RPUnknownChunkUnanswered) {
				return nil
			}
			return []Effect{reply(f.ID, proto.OutcomeRejected, proto.CodeResourceUnavailable)}
		}
		t := c.Slot
		overflow := t.Received+int64(len(p.Data)) > t.Begin.SizeBytes && !mutation.On(mutation.RPOverflowStaged)
		if p.Offset != t.Received || overflow {
			return c.closeSlot(proto.CodeInvalidRequest) // a gap, a repeat or an overflow (RP-22)
		}
		t.Received += int64(len(p.Data))
		r := Reply{ID: f.ID, Result: proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeReceived, Offset: t.Received}}
		if mutation.On(mutation.RPReceivedOffsetIsChunkStart) {
			r.Result.Offset = p.Offset
		}
		if mutation.On(mutation.RPReceivedCarriesSize) {
			r.Result.SizeBytes = t.Begin.SizeBytes
		}
		return []Effect{Stage{f.ID, p.Data, t.sum}, r} // the frame's own bytes: the daemon reuses them once staged and hashed
	default: // commit
		if !seen {
			if mutation.On(mutation.RPUnknownCommitInvalidRequest) {
				return []Effect{reply(f.ID, proto.OutcomeRejected, proto.CodeInvalidRequest)}
			}
			return []Effect{reply(f.ID, proto.OutcomeRejected, proto.CodeResourceUnavailable)}
		}
		t := c.Slot
		digested := HasBody(t.Begin.Action) || mutation.On(mutation.RPHeaderDigestChecked)
		if t.Received != t.Begin.SizeBytes && mutation.On(mutation.RPShortCommitWrongCode) {
			return c.closeSlot(proto.CodeRuntimePreparationRejected)
		}
		if t.Received != t.Begin.SizeBytes || (digested && t.Sum() != t.Begin.SHA256) {
			return c.closeSlot(proto.CodeInvalidRequest) // RP-22: nothing is applied
		}
		t.Phase = Applying
		c.Seen[f.ID] = Applying
		return []Effect{Apply{f.ID}}
	}
}

// closeSlot closes the pending transfer without applying and rejects it with code.
func (c *Conn) closeSlot(code string) []Effect {
	t := c.Slot
	c.Slot = nil
	c.Seen[t.ID] = Spent
	r := reply(t.ID, proto.OutcomeRejected, code)
	if t.Received > 0 && mutation.On(mutation.RPRejectedCarriesOffset) {
		r.Result.Offset = t.Received
	}
	return []Effect{Close{t.ID}, r}
}

// HasBody reports whether a transfer of this action carries a body (file, skill, plugin).
func HasBody(action string) bool {
	return action == proto.ActionFile || action == proto.ActionSkill || action == proto.ActionPlugin
}

func (c *Conn) applied(a Applied) []Effect {
	t := c.Slot
	if t == nil || t.ID != a.ID || t.Phase != Applying {
		return nil
	}
	var r Reply
	switch a.Outcome {
	case Completed:
		r = Reply{ID: t.ID, Result: proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeCompleted, SizeBytes: t.Begin.SizeBytes}}
		if mutation.On(mutation.RPCompletedWithoutSize) {
			r.Result.SizeBytes = 0
		}
		if mutation.On(mutation.RPCompletedCarriesOffset) {
			r.Result.Offset = t.Received
		}
		if t.Begin.Action == proto.ActionInitialize && mutation.On(mutation.RPRepeatedCommitReapplies) {
			if c.reapply == nil {
				c.reapply = map[string]proto.RuntimePreparePayload{}
			}
			c.reapply[t.ID] = t.Begin
		}
	case Failed:
		code := proto.CodeRuntimePreparationFailed
		if t.Begin.Action == proto.ActionFinalize && mutation.On(mutation.RPMissingSourceWrongCode) {
			code = proto.CodeRuntimePreparationRejected
		}
		r = reply(t.ID, proto.OutcomeFailed, code)
		r.Result.ExitCode = a.ExitCode
		if mutation.On(mutation.RPFailedKeepsSlot) {
			t.Phase, c.Seen[t.ID] = Owned, Owned
			return []Effect{Close{t.ID}, r}
		}
	case Refused:
		code := proto.CodeRuntimePreparationRejected
		if mutation.On(mutation.RPRefusedApplyUnlistedCode) {
			code = "unsafe_destination"
		}
		r = reply(t.ID, proto.OutcomeRejected, code)
	default:
		// Uncertain: the slot stays owned for the rest of the connection (RP-24).
		r = reply(t.ID, proto.OutcomeUnknown, proto.CodeRuntimePreparationUnconfirmed)
		mutateUnconfirmed(t, &r)
		if mutation.On(mutation.RPUnconfirmedFreesSlot) {
			break
		}
		t.Phase, c.Seen[t.ID] = Owned, Owned
		return []Effect{Close{t.ID}, r}
	}
	c.Slot = nil
	c.Seen[t.ID] = Spent
	return []Effect{Close{t.ID}, r}
}

// String renders the connection for tests.
func (c *Conn) String() string {
	var b strings.Builder
	if !c.Serving {
		b.WriteString("unsupported")
	} else if t := c.Slot; t != nil {
		fmt.Fprintf(&b, "slot=%s %s %s %d/%d", short(t.ID), t.Phase, t.Begin.Action, t.Received, t.Begin.SizeBytes)
	} else {
		b.WriteString("free")
	}
	for _, id := range slices.Sorted(maps.Keys(c.Seen)) {
		fmt.Fprintf(&b, " %s:%s", short(id), c.Seen[id])
	}
	return b.String()
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// The mutants' own steps (RP): each acts only once mutation.On says so.

// idAnswered: an RP-11 mutant answers a frame whose id is no canonical UUID.
func idAnswered(id string) bool {
	n := prepshape.NormalizeUUID(id)
	switch {
	case id == "":
		return false
	case n == proto.NilUUID:
		return mutation.On(mutation.RPNilIDAnswered)
	case proto.CanonicalUUID(n):
		return mutation.On(mutation.RPNonCanonicalIDAnswered)
	}
	return mutation.On(mutation.RPNonUUIDIDAnswered)
}

// capacity refuses a begin while the slot is held (RP-20).
func (c *Conn) capacity(id string) []Effect {
	code := proto.CodeRuntimePreparationCapacity
	if mutation.On(mutation.RPCapacityAsResourceUnavailable) {
		code = proto.CodeResourceUnavailable
	}
	if mutation.On(mutation.RPCapacityUnderPendingID) {
		id = c.Slot.ID
	}
	effects := []Effect{reply(id, proto.OutcomeRejected, code)}
	if t := c.Slot; t.Phase == Pending && mutation.On(mutation.RPCapacityClosesPending) {
		c.Slot = nil
		delete(c.Seen, t.ID)
		effects = append([]Effect{Close{t.ID}}, effects...)
	}
	return effects
}

// reapplied is RP-24.9's mutant: a repeated commit of a completed initialization applies it again.
func (c *Conn) reapplied(f Frame, phase Phase) ([]Effect, bool) {
	b, ok := c.reapply[f.ID]
	if !ok || phase != Spent || c.Slot != nil || f.Payload == nil || f.Payload.Step != proto.StepCommit ||
		!mutation.On(mutation.RPRepeatedCommitReapplies) {
		return nil, false
	}
	c.Slot = &Transfer{ID: f.ID, Begin: b, Phase: Applying, sum: sha256.New()}
	c.Seen[f.ID] = Applying
	return []Effect{Arm{f.ID}, Apply{f.ID}}, true
}

// mutateUnconfirmed bends the unknown answer to an uncertain apply.
func mutateUnconfirmed(t *Transfer, r *Reply) {
	if mutation.On(mutation.PrepareUnconfirmedReleasesSlot) {
		r.Result.Outcome, r.Result.ErrorCode = proto.OutcomeFailed, proto.CodeRuntimePreparationFailed // the slot stays owned
	}
	if mutation.On(mutation.RPUnknownWrongCode) {
		r.Result.ErrorCode = proto.CodeRuntimePreparationFailed
	}
	if mutation.On(mutation.RPUnknownOutcomeSpelledUnconfirmed) {
		r.Result.Outcome = "unconfirmed"
	}
	if i := t.Begin.Initialization; i != nil && i.Action == proto.InitSetup && mutation.On(mutation.RPUnknownCarriesExitCode) {
		r.Result.ExitCode = 137
	}
}
