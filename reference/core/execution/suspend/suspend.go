// Package suspend is Core's side of one suspension request (protocol-facts §4.16): an
// environment_quiesce or environment_resume sent on a connection, and how its reply settles it.
// It is a pure machine: Step takes an event and returns the next state and the effects the
// engine carries out (reference/core/execution/suspension.go).
//
// A request ends accepted, refused (accepted:false with a listed code) or unknown: a reply
// that is not an acknowledgement (foreign identities, accepted:true with an error_code, an
// unlisted code, an invalid payload) and a connection that closed before the reply (SU-10) leave
// the Runtime's state unknown, never accepted and never refused.
package suspend

import (
	"encoding/json"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// Kinds of request.
const (
	Quiesce = "quiesce"
	Resume  = "resume"
)

// States of a request's record.
const (
	StatePending  = "pending"
	StateAccepted = "accepted"
	StateRefused  = "refused"
	StateUnknown  = "unknown"
)

// CodeUnconfirmed is the Core-side code of an unknown outcome (never on the wire).
const CodeUnconfirmed = "suspension_unconfirmed"

// MaxOutstanding is how many suspension requests a connection may carry at once (SU-09).
const MaxOutstanding = 2

// Outstanding reports whether one more request may be sent while n are pending (SU-09).
func Outstanding(n int) bool {
	if mutation.On(mutation.SuspendOutstandingUnbounded) {
		return true
	}
	if n == MaxOutstanding-1 && mutation.On(mutation.SUOutstandingAtLimitRefused) {
		return false // the bound read as "at most one outstanding"
	}
	return n < MaxOutstanding
}

// Spec is one request.
type Spec struct {
	Kind          string
	ID            string // the envelope id
	EnvironmentID string
	SuspendID     string
	Rollback      bool
}

// Outcome is how a request settled.
type Outcome struct {
	State     string
	ErrorCode string
	Detail    string
}

// State is where a request stands.
type State struct {
	Spec    Spec
	Sent    bool
	Outcome *Outcome
}

// Done reports whether the request has settled.
func (s State) Done() bool { return s.Outcome != nil }

// New returns a request not yet sent.
func New(spec Spec) State { return State{Spec: spec} }

// Events.
type (
	Event interface{ event() }
	// Begin routes the reply and sends the request.
	Begin struct{}
	// Reply is the reply with the request's id; Invalid is set when its payload broke the
	// wire's validator (then Payload is nil and Raw is what arrived).
	Reply struct {
		Payload *proto.EnvironmentSuspendResultPayload
		Raw     json.RawMessage
		Invalid error
	}
	// Closed: the reply's route ended (the connection closed) before a reply.
	Closed struct{ Err error }
	// SendFailed: the request could not be sent (or its route registered).
	SendFailed struct{ Err error }
)

func (Begin) event()      {}
func (Reply) event()      {}
func (Closed) event()     {}
func (SendFailed) event() {}

// Effects.
type (
	Effect interface{ effect() }
	// Await registers the route of the reply of type Type with id ID (before Send).
	Await struct{ Type, ID string }
	// Send sends the request.
	Send struct{ Envelope proto.Envelope }
	// Finish records the outcome and ends the request's route.
	Finish struct{ Outcome Outcome }
)

func (Await) effect()  {}
func (Send) effect()   {}
func (Finish) effect() {}

// Types returns the request's and its reply's frame types.
func (s Spec) Types() (request, reply string) {
	if s.Kind == Resume {
		return proto.TypeEnvironmentResume, proto.TypeEnvironmentResumed
	}
	return proto.TypeEnvironmentQuiesce, proto.TypeEnvironmentQuiesced
}

// Envelope is the request as sent.
func (s Spec) Envelope() (proto.Envelope, error) {
	typ, _ := s.Types()
	env, err := proto.NewEnvelope(typ, s.ID, &proto.EnvironmentSuspendPayload{Rollback: s.Rollback, EnvironmentID: s.EnvironmentID, SuspendID: s.SuspendID})
	if err != nil {
		return env, err
	}
	return s.mutants(env), nil
}

// Step moves a request by one event.
func Step(s State, ev Event) (State, []Effect) {
	if s.Done() {
		return s, nil // a late reply or close changes nothing
	}
	switch e := ev.(type) {
	case Begin:
		if s.Sent {
			return s, nil
		}
		env, err := s.Spec.Envelope()
		if err != nil {
			return settle(s, Outcome{State: StateRefused, ErrorCode: proto.CodeInvalidRequest, Detail: "not sent: " + err.Error()})
		}
		s.Sent = true
		_, reply := s.Spec.Types()
		return s, []Effect{Await{Type: reply, ID: s.Spec.ID}, Send{Envelope: env}}
	case Reply:
		return settle(s, judge(s.Spec, e))
	case Closed:
		if s.Spec.Kind == Quiesce && mutation.On(mutation.SuspendCloseIsAck) ||
			s.Spec.Kind == Resume && mutation.On(mutation.SUResumeCloseIsAck) {
			return settle(s, Outcome{State: StateAccepted, Detail: "the connection closed"})
		}
		if mutation.On(mutation.SUCloseIsRefusal) {
			return settle(s, Outcome{State: StateRefused, ErrorCode: CodeUnconfirmed, Detail: "the connection closed"})
		}
		return settle(s, Outcome{State: StateUnknown, ErrorCode: CodeUnconfirmed,
			Detail: fmt.Sprintf("the connection closed before the reply: not an acknowledgement (SU-10): %v", e.Err)})
	case SendFailed:
		return settle(s, Outcome{State: StateUnknown, ErrorCode: CodeUnconfirmed, Detail: "the send failed: " + e.Err.Error()})
	}
	return s, nil
}

func settle(s State, o Outcome) (State, []Effect) {
	s.Outcome = &o
	return s, []Effect{Finish{Outcome: o}}
}

// judge reads a reply: an acknowledgement (accepted, or refused with a listed code) or not one.
func judge(spec Spec, r Reply) Outcome {
	p := r.Payload
	if r.Invalid != nil {
		var raw proto.EnvironmentSuspendResultPayload
		if json.Unmarshal(r.Raw, &raw) == nil && (mutated(&raw) || missingTaken(r.Raw)) {
			p = &raw
		} else {
			return notAck("the reply is invalid (SU-02): %v", r.Invalid)
		}
	}
	if p == nil {
		return notAck("the reply has no payload (SU-02)")
	}
	sent := spec.SuspendID
	if mutation.On(mutation.SUCoreReplyJudgedByID) {
		sent = spec.ID
	}
	foreignSuspend := p.SuspendID != sent && !mutation.On(mutation.SuspendForeignIdentityTaken) &&
		!(p.SuspendID == "" && mutation.On(mutation.SUCoreReplyWithoutSuspendIDTaken))
	foreignEnv := p.EnvironmentID != spec.EnvironmentID && !mutation.On(mutation.SUForeignEnvironmentTaken) &&
		!(p.EnvironmentID == "" && mutation.On(mutation.SUCoreReplyWithoutEnvironmentTaken))
	if foreignEnv || foreignSuspend {
		return notAck("the reply names environment_id %q, suspend_id %q, not the request's %q, %q (SU-03)",
			p.EnvironmentID, p.SuspendID, spec.EnvironmentID, spec.SuspendID)
	}
	if p.Accepted {
		return Outcome{State: StateAccepted}
	}
	if p.ErrorCode == proto.CodeResourceBusy && mutation.On(mutation.SUBusyRefusalUnknown) {
		return notAck("resource_busy taken as transient: the Runtime may still quiesce")
	}
	return Outcome{State: StateRefused, ErrorCode: p.ErrorCode}
}

// mutated says whether a mutant takes an invalid reply as an acknowledgement after all.
func mutated(p *proto.EnvironmentSuspendResultPayload) bool {
	switch {
	case p.Accepted && p.ErrorCode != "":
		return mutation.On(mutation.SuspendAcceptedWithCode)
	case !p.Accepted && p.ErrorCode != "" && !proto.KnownSuspensionCode(p.ErrorCode):
		return mutation.On(mutation.SuspendUnknownCodeRefuses)
	}
	return false
}

func notAck(format string, args ...any) Outcome {
	return Outcome{State: StateUnknown, ErrorCode: CodeUnconfirmed, Detail: "not an acknowledgement: " + fmt.Sprintf(format, args...)}
}
