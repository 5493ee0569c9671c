package turn

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// effectUnknown lists the reasons after which the native effect is unknown: a failed status then
// proves neither that the Harness failed nor that nothing happened.
var effectUnknown = map[string]bool{
	proto.ReasonDeliveryUnknown:         true,
	proto.ReasonEventStreamIncomplete:   true,
	proto.ReasonCancelUnconfirmed:       true,
	proto.ReasonInvalidExecutorResult:   true,
	proto.ReasonEventPersistenceFailed:  true,
	proto.ReasonInteractionNotSupported: true,
	proto.ReasonInputOutcomeUnknown:     true,
	// The Run may have taken the result, or still waits on a call Core could not answer.
	proto.ReasonFunctionResultUnconfirmed: true,
	proto.ReasonFunctionCallInvalid:       true,
}

// finish ends the Turn with an outcome, written once; the Turn then owns no timer.
func (s *State) finish(o *store.Outcome) Effect {
	s.engineMutants(o)
	if effectUnknown[o.Reason] {
		o.EffectUnknown = true
	}
	if o.Status == proto.TurnFailed && o.Reason == proto.ReasonExecutionInterrupted {
		o.EffectUnknown = store.Dispatched(s.Phase)
	}
	from := s.Phase
	rec := s.unsettled()
	s.Phase, s.Timers = store.PhaseDone, 0
	return Finish{From: from, Outcome: o, Record: rec}
}

func (s *State) fail(reason, msg string) Effect {
	return s.finish(&store.Outcome{Status: proto.TurnFailed, Reason: reason, Error: msg})
}

func (s *State) cancelled() Effect {
	return s.finish(&store.Outcome{Status: proto.TurnCancelled})
}

// fromDone projects the stream that done closed: engine_failed after an error frame (with the
// engine classification), completed otherwise; usage and content merged as §4.7 says.
func (s *State) fromDone() *store.Outcome {
	o := s.merge(s.Seen.Done)
	o.DoneObserved = true
	if e := s.Seen.Error; e != nil && !engineErrorCompletes(e) {
		o.Status, o.Reason, o.Error = proto.TurnFailed, proto.ReasonEngineFailed, e.Error
		if mutation.On(mutation.PJEngineErrorTextLost) {
			o.Error = "the engine failed" // the frame's text not kept
		}
		o.EngineErrorCode, o.EngineHTTPStatus = e.Code, e.HTTPStatus
		if e.Code != "" && mutation.On(mutation.EngineCodeDropped) {
			o.EngineErrorCode = ""
		}
		if e.HTTPStatus != 0 && mutation.On(mutation.EFCoreHTTPStatusNotStored) {
			o.EngineHTTPStatus = 0
		}
		if e.HTTPStatus == 0 && mutation.On(mutation.EFCoreUsageLostAfterUnclassed) {
			o.Usage = nil
		}
		if e.HTTPStatus == 0 && mutation.On(mutation.EFCoreContentLostAfterUnclassd) {
			o.Content = ""
		}
	} else if s.pendingAtEnd() && (!s.CancelRequested || mutation.On(mutation.CAPendingAtDoneAfterCancelFails)) && !mutation.On(mutation.PendingInputCompletes) {
		// An input not yet accepted when the stream ends: whether the Turn consumed it is unknown.
		// After prompt_cancel the cancellation receipt owns the outcome instead.
		o.Status, o.Reason = proto.TurnFailed, proto.ReasonInputOutcomeUnknown
		o.Error = "input " + s.Inputs[s.InputCursor].ID + " was not accepted when the Run ended (" + s.Inputs[s.InputCursor].State + ")"
	} else if o.Content == "" && mutation.On(mutation.PJEmptyDoneFails) {
		// An empty result taken for no result.
		o.Status, o.Reason, o.Error = proto.TurnFailed, proto.ReasonInvalidExecutorResult, "done carried no content"
	} else {
		o.Status = proto.TurnCompleted
	}
	return o
}

// engineErrorCompletes: the mutants that let done complete a Turn after an error frame, one for a
// classified error frame (engine-error-completes), one for an unclassified one.
func engineErrorCompletes(e *proto.ErrorPayload) bool {
	if e.Code != "" {
		return mutation.On(mutation.EngineErrorCompletes)
	}
	return mutation.On(mutation.PJUnclassifiedErrorCompletes)
}

// merge builds the observed result from a done payload (or a cancellation snapshot): a missing
// usage keeps the last usage snapshot; empty content, model or metadata are filled from earlier
// observations.
func (s *State) merge(d *proto.DonePayload) *store.Outcome {
	o := &store.Outcome{}
	if d == nil {
		d = &proto.DonePayload{}
	}
	o.Content, o.Transcript, o.SourceCompletedAtMS = d.Content, d.Transcript, d.SourceCompletedAtMS
	if o.Content == "" && !mutation.On(mutation.RSEmptyContentNotFilled) {
		o.Content = s.Seen.Deltas.String()
	}
	if o.Content == "" && !mutation.On(mutation.RSEmptyContentNotFilled) {
		o.Content = s.Seen.LastMessage
	}
	last := s.Seen.Usage
	switch {
	case d.Usage != nil && !d.Usage.IsZero():
		u := bentDoneUsage(*d.Usage, last)
		if u.Model == "" && last != nil && !mutation.On(mutation.RSModelNotFilled) {
			u.Model = last.Model
		}
		o.Usage = &u
	case last != nil && !mutation.On(mutation.RSDoneWithoutUsageForgets):
		u := *last
		o.Usage = &u
	}
	if len(d.Metadata) > 0 {
		o.Metadata = map[string]string{}
		for k, v := range d.Metadata {
			o.Metadata[k] = v
		}
	}
	return o
}

// engineMutants are EF-06's wrong projections: the classification is subordinate to the terminal
// status and Core's own reason, so only done after an error frame makes engine_failed (fromDone).
func (s *State) engineMutants(o *store.Outcome) {
	e := s.Seen.Error
	if e == nil || o.Reason == proto.ReasonEngineFailed {
		return
	}
	var point mutation.Point
	switch {
	case o.Status == proto.TurnCancelled:
		point = mutation.EngineErrorFailsCancelled
	case o.Reason == proto.ReasonEventStreamIncomplete:
		point = mutation.EngineErrorHidesCoreError
	case o.Reason == proto.ReasonCancelUnconfirmed && o.CancelReceipt != nil:
		point = mutation.EFCoreErrorHidesRefusedReceipt
	case o.Reason == proto.ReasonCancelUnconfirmed:
		point = mutation.EFCoreErrorHidesCancelTimeout
	case o.Reason == proto.ReasonCancelOutcomeUnavailable:
		point = mutation.EFCoreErrorHidesOutcomeUnavailable
	}
	if point != "" && mutation.On(point) {
		o.Status, o.Reason, o.Error = proto.TurnFailed, proto.ReasonEngineFailed, e.Error
		o.EngineErrorCode, o.EngineHTTPStatus = e.Code, e.HTTPStatus
	}
}
