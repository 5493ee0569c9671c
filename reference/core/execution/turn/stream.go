package turn

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Run events fold into the observation until done closes the stream or the stream is lost.

func delta(s *State, ev Event) ([]Effect, error) {
	s.Seen.Deltas = s.Seen.Deltas.Append(ev.(Delta).Text)
	return nil, nil
}

func outputMessage(s *State, ev Event) ([]Effect, error) {
	if m := ev.(OutputMessage); m.Status == proto.MessageCompleted && m.Text != nil {
		s.Seen.LastMessage = *m.Text
	}
	return nil, nil
}

// usage keeps the latest cumulative snapshot: it replaces, never adds.
func usage(s *State, ev Event) ([]Effect, error) {
	u := ev.(Usage).Usage
	if mutation.On(mutation.UsageAdded) && s.Seen.Usage != nil {
		u = addedUsage(*s.Seen.Usage, u)
	}
	u = zeroFilled(u)
	s.Seen.Usage = &u
	return nil, nil
}

// addedUsage is the usage-added mutant's sum of two snapshots (the rule says replace).
func addedUsage(prev, u proto.Usage) proto.Usage {
	add := func(a, b *int32) *int32 {
		if a == nil || b == nil {
			return b
		}
		n := *a + *b
		return &n
	}
	u.InputTokens, u.OutputTokens = add(prev.InputTokens, u.InputTokens), add(prev.OutputTokens, u.OutputTokens)
	return u
}

// engineError is remembered: done follows it and the Turn then fails with engine_failed.
func engineError(s *State, ev Event) ([]Effect, error) {
	e := ev.(EngineError).Error
	s.Seen.Error = &e
	return nil, nil
}

func done(s *State, ev Event) ([]Effect, error) {
	d := ev.(Done)
	s.Seen.Done = d.Done
	if d.AfterShutdown && mutation.On(mutation.DSCoreDoneAfterShutdownCancelled) {
		o := s.merge(d.Done) // the shutdown taken as a cancellation the done confirms
		o.Status, o.DoneObserved = proto.TurnCancelled, true
		return []Effect{s.finish(o)}, nil
	}
	return []Effect{s.finish(s.fromDone())}, nil
}

// doneWhileCancelling is kept for the outcome: the cancellation receipt owns it.
func doneWhileCancelling(s *State, ev Event) ([]Effect, error) {
	s.Seen.Done = ev.(Done).Done
	if mutation.On(mutation.DoneOverridesReceipt) {
		return []Effect{s.finish(s.fromDone())}, nil
	}
	return nil, nil
}

// undecodable fails the Turn only for the frames its outcome is made of.
func undecodable(s *State, ev Event) ([]Effect, error) {
	u := ev.(Undecodable)
	switch u.Type {
	case proto.TypePermissionRequest:
		if mutation.On(mutation.InvalidRequestFailsTurn) {
			return []Effect{s.fail(proto.ReasonInvalidExecutorResult, "undecodable "+u.Type+": "+u.Err.Error())}, nil
		}
	case proto.TypeFunctionCall:
		// The Run waits for the result of a call Core cannot name (protocol-facts §6.2).
		if !mutation.On(mutation.InvalidFunctionCallIgnored) {
			return []Effect{s.fail(proto.ReasonFunctionCallInvalid, "undecodable "+u.Type+": "+u.Err.Error())}, nil
		}
	case proto.TypeError, proto.TypeUsage, proto.TypeDone, proto.TypePromptSteerAck:
		if mutation.On(invalidIgnored[u.Type]) {
			break
		}
		return []Effect{s.fail(proto.ReasonInvalidExecutorResult, "undecodable "+u.Type+": "+u.Err.Error())}, nil
	}
	// Any other frame changes no outcome: it is only noted, under its type (RS-11: a tool_call
	// that does not decode strictly is never taken for a tool call).
	return []Effect{Journal{Event: store.Event{Kind: store.EventNote, Type: u.Type, Note: "ignoring an invalid " + u.Type + ": " + u.Err.Error()}}}, nil
}

// invalidIgnored are the mutants that ignore an undecodable frame of one type (PJ-09).
var invalidIgnored = map[string]mutation.Point{
	proto.TypeError:          mutation.PJInvalidErrorIgnored,
	proto.TypeUsage:          mutation.PJInvalidUsageIgnored,
	proto.TypeDone:           mutation.InvalidDoneIgnored,
	proto.TypePromptSteerAck: mutation.PJInvalidSteerAckIgnored,
}

// Who ended the connection a Run stream was lost with (RunClosed.Cause).
const (
	ClosedByRuntime = "runtime"  // the daemon closed, dropped or cut it
	ClosedByCore    = "core"     // Core closed it: a frame over 4 MiB, the liveness timeout, a failed write
	ClosedReplaced  = "replaced" // a newer connection of the device replaced it
)

// runClosed without done: the outcome is unknown, and nothing is fabricated.
func runClosed(s *State, ev Event) ([]Effect, error) {
	rc := ev.(RunClosed)
	err := rc.Err
	if err == nil {
		return nil, nil // done was delivered and handled
	}
	switch {
	case rc.AfterShutdown && mutation.On(mutation.DSCoreLossAfterShutdownCancels):
		return []Effect{s.cancelled()}, nil // the loss taken as the shutdown's cancellation
	case mutation.On(mutation.CNLostRunEngineFailure):
		return []Effect{s.fail(proto.ReasonEngineFailed, "the daemon connection was lost")}, nil
	case rc.Cause == ClosedByRuntime && mutation.On(mutation.StreamLossCompletes):
		return []Effect{s.finish(s.fromDone())}, nil
	case rc.Cause == ClosedByRuntime && mutation.On(mutation.StreamLossDeviceDisconnected),
		rc.Cause == ClosedByCore && mutation.On(mutation.PJCoreCloseDeviceDisconnected),
		rc.Cause == ClosedReplaced && mutation.On(mutation.PJReplacedDeviceDisconnected):
		return []Effect{s.fail(proto.ReasonDeviceDisconnected, "the Run's event stream ended without done")}, nil
	}
	return []Effect{note("run subscription closed: " + err.Error()),
		s.fail(proto.ReasonEventStreamIncomplete, "the Run's event stream ended without done: "+err.Error())}, nil
}

// runClosedWhileCancelling: the cancellation receipt (or its absence) decides.
func runClosedWhileCancelling(_ *State, ev Event) ([]Effect, error) {
	if err := ev.(RunClosed).Err; err != nil {
		return []Effect{note("run subscription closed: " + err.Error())}, nil
	}
	return nil, nil
}
