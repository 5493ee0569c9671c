package turn

import (
	"slices"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// askDevice starts a claim: the final admission check needs the device's current declaration.
func askDevice(s *State, _ Event) ([]Effect, error) {
	s.Asked = AskedDevice
	return []Effect{CheckDevice{}}, nil
}

// claim is the final admission check and the dispatch of execution_prepare. An offline device
// leaves the Turn unclaimed for a later retry; a DENY ends it, and no other Harness is chosen.
func claim(s *State, ev Event) ([]Effect, error) {
	d := ev.(DeviceChecked)
	if !d.Online {
		return []Effect{note("device offline: the Turn stays unclaimed"), s.scheduleRetry()}, nil
	}
	if d.Unprepared {
		// Nothing was sent for the Turn: it stays queued, for this connection's preparation to
		// complete or for the device's next connection to prepare again.
		return []Effect{note("the connection's Environment preparation is " + d.Preparation + ": the Turn stays unclaimed"), s.scheduleRetry()}, nil
	}
	dec := s.Spec.policy().Evaluate(s.Spec.policyRequest(), d.Heartbeat, d.Known)
	effects := []Effect{Journal{Event: store.Event{Kind: store.EventAdmission, Note: dec.String()}}}
	if dec.Verdict != policy.Allow && mutation.On(mutation.CNRefusedTurnPreparedFirst) {
		effects = append(effects, s.prepare(d.PrepareID)...)
	}
	if dec.Verdict != policy.Allow && !mutation.On(mutation.UndeclaredCapabilityAdmitted) {
		return append(effects, s.finish(&store.Outcome{Status: proto.TurnFailed, Reason: deniedReason(dec),
			Error: "admission denied at the final check: " + dec.String(), Denied: dec.Missing})), nil
	}
	var admitted *proto.AgentKindCapabilities
	if k := d.Heartbeat.Kind(s.Spec.Configuration.AgentKind); k != nil && k.Capabilities != nil {
		c := *k.Capabilities // a copy: the owner keeps this declaration whatever later heartbeats say
		admitted = &c
	}
	s.Admitted = admitted
	if mutation.On(mutation.OptInsWidenedAtClaim) {
		policy.OptIns(&s.Spec.Configuration, admitted)
	}
	s.LearnedHandle, s.LearnedExecutor = "", ""
	return append(effects, s.prepare(s.prepareID(d.PrepareID))...), nil
}

// prepareAgain is the single recovery after executor_unavailable, with a fresh request ID.
func prepareAgain(s *State, ev Event) ([]Effect, error) {
	return s.prepare(ev.(PrepareIDIssued).ID), nil
}

// prepare subscribes to the request's status, commits the claim, then sends execution_prepare
// with the immutable Session configuration and no Run input.
func (s *State) prepare(id string) []Effect {
	subscribe := Subscribe{Stream: StreamPreparation, ID: id}
	effects := []Effect{subscribe}
	if mutation.On(mutation.ADCorePrepareSubscribedAfterSend) {
		effects = nil
	}
	s.PrepareID = id
	s.Claims++
	s.Handle, s.ExecutorID = "", ""
	effects = append(effects, s.moveTo(store.PhasePreparing))
	env, err := proto.NewEnvelope(proto.TypeExecutionPrepare, id,
		&proto.ExecutionPreparePayload{SessionID: s.Spec.SessionID, Configuration: s.Spec.Configuration})
	if err != nil {
		return append(effects, s.fail(proto.ReasonExecutionStateUnavailable, err.Error()))
	}
	effects = append(effects, Send{Envelope: s.prepareMutants(env)})
	if mutation.On(mutation.ADCorePrepareSubscribedAfterSend) {
		effects = append(effects, subscribe)
	}
	return effects
}

// scheduleRetry leaves the Turn unclaimed for the current backoff, then doubles it up to the cap.
func (s *State) scheduleRetry() Effect {
	arm := s.arm(TimerRetry, s.Backoff)
	s.Backoff *= 2
	if s.Backoff > s.Spec.MaxRetryBackoff {
		s.Backoff = s.Spec.MaxRetryBackoff
	}
	return arm
}

func (s *State) arm(t Timer, after time.Duration) Effect {
	s.Timers = s.Timers.With(t)
	return Arm{Timer: t, After: after}
}

// moveTo changes the phase; the Commit makes it durable before anything that depends on it.
func (s *State) moveTo(to string) Effect {
	from := s.Phase
	s.Phase = to
	return Commit{From: from, Record: s.Record}
}

// commit writes the record without a phase move.
func (s *State) commit() Effect { return Commit{From: s.Phase, Record: s.Record} }

func note(text string) Effect {
	return Journal{Event: store.Event{Kind: store.EventNote, Note: text}}
}

// deniedReason is the outcome of a Turn the final check denies: its stored input has images the
// Runtime no longer declares it takes (message_images) is message_input_unsupported (protocol-
// facts §6.2); any other change of the declaration is execution_state_changed.
func deniedReason(dec policy.Decision) string {
	if slices.Contains(dec.Missing, "message_images") && !mutation.On(mutation.ImageInputDenialIsStateChange) {
		return proto.ReasonMessageInputUnsupported
	}
	return proto.ReasonExecutionStateChanged
}
