package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/input"
	"github.com/wirecheck/wirecheck/reference/daemon/interact"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/rtprepare"
)

// The mutation points that need more than a changed condition. Every body is guarded by
// mutation.On, a constant false outside the wirecheck_mutants build: there they do nothing.

// cancelledRun keys the mutation memory of a Run that Core cancelled.
type cancelledRun struct{ rn *run }

// mutateStart bends an execution_start before the admission record sees it.
func mutateStart(g *grant, ev *admission.StartRequested) {
	if mutation.On(mutation.StartExecutorMismatchAccepted) {
		ev.ExecutorID = g.rec.ExecutorID
	}
	if mutation.On(mutation.StartConflictRepublishes) && g.rec.StartHash != "" {
		ev.Hash = g.rec.StartHash
	}
	if mutation.On(mutation.RunConflictIgnored) {
		ev.RunActive = false
	}
	if mutation.On(mutation.StartAfterExpiryAccepted) {
		ev.Now = g.rec.ExpiresAt.Add(-1)
	}
	mutateStartAD(g, ev)
}

// mutatePublished bends a preparation_status the record published.
func mutatePublished(s *proto.PreparationStatusPayload) {
	if mutation.On(mutation.ReadyWithoutRevisionBump) && s.State == proto.StateReady && s.Revision > 1 {
		s.Revision--
	}
	if mutation.On(mutation.ReleasedWithoutRevisionBump) && s.State == proto.StateReleased && s.Revision > 1 {
		s.Revision--
	}
	if mutation.On(mutation.ExpiredDeadlineExtended) && s.State == proto.StateExpired && s.ExpiresAt != 0 {
		s.ExpiresAt += time.Minute.Milliseconds()
	}
	if mutation.On(mutation.StartingWithoutRunID) && s.State == proto.StateStarting {
		s.RunID = ""
	}
	mutatePublishedAD(s)
}

// mutateRejected bends a rejection, which must carry revision 0.
func mutateRejected(s *proto.PreparationStatusPayload) {
	if mutation.On(mutation.RejectionMovesRevision) {
		s.Revision++
	}
	mutateRejectedAD(s)
}

// mutateEvents bends a Turn's event stream on its way to the wire.
func mutateEvents(rn *run, in <-chan harness.Event) <-chan harness.Event {
	if !mutation.On(mutation.FirstEventsSwapped) && !mutation.On(mutation.EventsAfterCancellation) &&
		!mutation.On(mutation.ErrorClassificationDropped) {
		return in
	}
	out := make(chan harness.Event)
	go func() {
		defer close(out)
		var held *harness.Event
		swapped := !mutation.On(mutation.FirstEventsSwapped)
		for ev := range in {
			if ev.Type == proto.TypeError && mutation.On(mutation.ErrorClassificationDropped) {
				ev.Payload = withoutClassification(ev.Payload)
			}
			switch {
			case swapped:
				out <- ev
			case held == nil:
				held = &ev
			default:
				out <- ev
				out <- *held
				swapped = true
			}
		}
		if !swapped && held != nil {
			out <- *held
		}
		if mutation.Recall(cancelledRun{rn}) != nil {
			// The interrupted Turn goes on speaking.
			out <- harness.Event{Type: proto.TypeDelta, Payload: &proto.DeltaPayload{Delta: "after the cancellation", Sequence: 1 << 20}}
		}
	}()
	return out
}

// replayLastFrame re-sends, on a new connection, the last frame the previous one remembered under
// owner: r.d for a Run frame or receipt, lastStatus{r.d} for a preparation_status.
func (r *router) replayLastFrame(owner any) {
	frame := mutation.Recall(owner)
	if frame == nil {
		return
	}
	if env, err := proto.DecodeEnvelope(frame); err == nil {
		r.out.enqueue(env)
	}
}

// lastStatus keys the mutation memory of the last preparation_status a daemon sent.
type lastStatus struct{ d *Daemon }

// sentStatus passes a preparation_status on its way to the wire, remembering it for the status
// replay mutant.
func (r *router) sentStatus(env proto.Envelope) proto.Envelope {
	if mutation.On(mutation.StatusReplayAfterReconnect) {
		if data, err := env.Encode(); err == nil {
			mutation.Remember(lastStatus{r.d}, data)
		}
	}
	return env
}

// heldDone holds, per cancelled Run, the done that waits for the receipt (receipt-before-done).
var heldDone sync.Map

// receiptBeforeDone cancels rn and sends the receipt as soon as native settlement returns, while
// the stream's done waits for it.
func (r *router) receiptBeforeDone(rn *run, id, deliveryID string) {
	hold := make(chan struct{})
	heldDone.Store(rn, hold)
	r.goOwned(func() {
		defer close(hold)
		ctx, cancel := clock.WithTimeout(context.Background(), r.d.cfg.Clock, proto.CancellationConfirmationTimeout)
		defer cancel()
		outcome, err := rn.cancelNative(ctx)
		receipt := &proto.InteractionDecisionAckPayload{DeliveryID: deliveryID}
		switch {
		case err != nil:
			receipt.ErrorCode = proto.CodeCancelFailed
		case outcome == nil:
			receipt.ErrorCode = proto.CodeCancelOutcomeUnavailable
		default:
			receipt.Applied, receipt.Outcome = true, outcome
		}
		r.ack(id, receipt)
	})
}

// holdDone makes a cancelled Run's done wait for its receipt (receipt-before-done).
func holdDone(rn *run) {
	if !mutation.On(mutation.ReceiptBeforeDone) {
		return
	}
	if hold, ok := heldDone.LoadAndDelete(rn); ok {
		<-hold.(chan struct{})
	}
}

// withoutClassification keeps an error's text and drops the engine failure code and HTTP status.
func withoutClassification(payload any) any {
	switch p := payload.(type) {
	case *proto.ErrorPayload:
		return &proto.ErrorPayload{Error: p.Error}
	case proto.ErrorPayload:
		return proto.ErrorPayload{Error: p.Error}
	}
	return payload
}

// permanentTakenForTransient reports whether a permanent refusal is retried as if it were transient.
func permanentTakenForTransient(err error) bool {
	var retired *RetiredError
	switch {
	case errors.As(err, &retired):
		return mutation.On(mutation.RetiredCloseRetried)
	case errors.Is(err, ErrIncompatibleVersion):
		return mutation.On(mutation.RetryAfterIncompatibleVersion)
	}
	return mutation.On(mutation.RetryAfterUnauthorized)
}

// mutateKinds bends the advertisement of a heartbeat.
func mutateKinds(kinds []proto.SupportedAgentKind) []proto.SupportedAgentKind {
	if !mutation.On(mutation.HeartbeatEmptyKind) || len(kinds) == 0 {
		return kinds
	}
	bent := slices.Clone(kinds)
	bent[0].Kind = ""
	return bent
}

// mutateSteer bends a prompt_steer, or the Run's input record, before the input machine decides.
func mutateSteer(m *input.Run, s *input.Steer) {
	if mutation.On(mutation.SteeringImpliedByDurable) && s.DurableReceipts {
		s.Steering = true // durable receipts taken to imply plain steering
	}
	rec := m.Records[s.InputID]
	if rec != nil && rec.Phase == input.Final && rec.Hash == s.Hash && rec.Durable == s.Durable && storedRewritten(*rec.Receipt) {
		delete(m.Records, s.InputID) // forgotten: the repeat is written again
		m.Order = slices.DeleteFunc(m.Order, func(id string) bool { return id == s.InputID })
	}
	if mutation.On(mutation.InputConflictIgnored) && rec != nil {
		s.Hash = rec.Hash // the content difference is not seen (durable_receipt still is)
	}
	if active := m.Records[m.Active]; active != nil && m.Active != s.InputID && m.Records[s.InputID] == nil {
		if active.Phase == input.Writing && mutation.On(mutation.BusyNotReported) ||
			active.Phase == input.Written && mutation.On(mutation.InWrittenBusyIgnored) {
			m.Active = "" // the new input is written beside the one in flight
		}
	}
	if mutation.On(mutation.InputLimitIgnored) && rec == nil && len(m.Records) >= proto.MaxSteeringInputs {
		delete(m.Records, m.Order[0]) // the oldest input is forgotten to make room
		m.Order = m.Order[1:]
	}
}

// mutateReceipt bends a prompt_steer_ack on its way out.
func mutateReceipt(a *proto.PromptSteerAckPayload) {
	if mutation.On(mutation.WrittenAsAccepted) && a.Written {
		a.Written, a.Accepted = false, true
	}
	if a.ErrorCode == proto.CodeRejected && mutation.On(mutation.InRejectionCodeOwnName) {
		a.ErrorCode = proto.ReasonInputPrefix + proto.CodeRejected // Core's failure reason, not a receipt code
	}
}

// storedRewritten reports whether a mutant forgets an input's stored last receipt, so an identical
// repeat is written again: an accepted one (IN-16.1), a definite refusal (IN-16.2) or an
// outcome_unknown (IN-16.3).
func storedRewritten(stored proto.PromptSteerAckPayload) bool {
	switch {
	case stored.Accepted:
		return mutation.On(mutation.StoredReceiptRewritten)
	case stored.ErrorCode == proto.CodeRejected || stored.ErrorCode == proto.CodeContractViolation:
		return mutation.On(mutation.InStoredRefusalReoffered)
	case stored.ErrorCode == proto.CodeOutcomeUnknown:
		return mutation.On(mutation.InStoredUnknownRewritten)
	}
	return false
}

// inputReplay keys the mutation memory of an input receipt carried into the next connection.
type inputReplay struct{ d *Daemon }

// rememberWrittenInputs keeps, for the next connection, an accepted receipt of every input that
// was written but not yet accepted when the transport ended.
func (r *router) rememberWrittenInputs(runs []*run) {
	for _, rn := range runs {
		rn.inputs.mu.Lock()
		for _, rec := range rn.inputs.m.Records {
			if rec.Phase == input.Written {
				env := proto.MustEnvelope(proto.TypePromptSteerAck, rn.id, &proto.PromptSteerAckPayload{InputID: rec.ID, Accepted: true})
				if data, err := env.Encode(); err == nil {
					mutation.Remember(inputReplay{r.d}, data)
				}
			}
		}
		rn.inputs.mu.Unlock()
	}
}

// replayInputReceipt sends, on a new connection, the receipt remembered from the previous one.
func (r *router) replayInputReceipt() {
	if frame := mutation.Recall(inputReplay{r.d}); frame != nil {
		if env, err := proto.DecodeEnvelope(frame); err == nil {
			r.out.enqueue(env)
		}
	}
}

// mutateAnswer bends an interaction answer before the machine decides it.
func mutateAnswer(m *interact.Machine, a *interact.Answer) {
	if a.Key.Family == harness.Permission && mutation.On(mutation.ReplayAnsweredAsNew) {
		m.Forget(a.Key)
	}
	if prior, ok := m.Fingerprint(a.Key); ok && mutation.On(mutation.ConflictAnsweredAsReplay) {
		a.Fingerprint = prior
	}
	if mutation.On(mutation.UndeclaredInteractionsServed) {
		a.Declared = true
	}
}

// mutateOutcome bends how the native side took an answer.
func mutateOutcome(o interact.Outcome) interact.Outcome {
	if mutation.On(mutation.NativeFailureAsApplied) && o == interact.Failed {
		return interact.Applied
	}
	return o
}

// mutateSettled bends what a settled answer leaves pending.
func mutateSettled(m *interact.Machine, a interact.Answer, o interact.Outcome) {
	if mutation.On(mutation.NotReadyConsumes) && o == interact.NotReady {
		m.Withdrawn(a.Key)
	}
}

// mutatePrepareFrame bends a runtime_prepare frame before the transfer machine sees it.
func mutatePrepareFrame(m *rtprepare.Conn, f *rtprepare.Frame) {
	t := m.Slot
	if f.Payload == nil || t == nil || t.ID != f.ID || t.Phase != rtprepare.Pending {
		return
	}
	switch f.Payload.Step {
	case proto.StepChunk:
		if mutation.On(mutation.PrepareOffsetNotChecked) {
			p := *f.Payload
			p.Offset = t.Received
			f.Payload = &p
		}
	case proto.StepCommit:
		if mutation.On(mutation.PrepareSHANotChecked) {
			t.Begin.SHA256 = t.Sum()
		}
	case proto.StepBegin:
		if mutation.On(mutation.PrepareDuplicateBeginAnswered) {
			delete(m.Seen, f.ID) // no longer known as this transfer: the held slot answers capacity
		}
	}
}

// dropShutdown reports whether a device_shutdown mutant drops this request as malformed: a handler
// that decodes the body into a required {reason} (DS-01).
func dropShutdown(env proto.Envelope) bool {
	body := bytes.TrimSpace(env.Payload)
	if len(body) == 0 || string(body) == "null" {
		return mutation.On(mutation.DSBodylessShutdownDropped)
	}
	var p struct {
		Reason *string `json:"reason"`
	}
	if json.Unmarshal(body, &p) == nil && p.Reason == nil {
		return mutation.On(mutation.DSReasonlessShutdownDropped)
	}
	return false
}

// keepOnShutdown reports whether a device_shutdown mutant leaves this admission record open.
func keepOnShutdown(rec admission.Record) bool {
	switch {
	case rec.ReadOnly:
		return mutation.On(mutation.DSReadOnlyPreparationsKept)
	case rec.State == admission.Preparing:
		return mutation.On(mutation.DSPreparingKept)
	case rec.State == admission.Ready:
		return mutation.On(mutation.DeviceShutdownKeepsPreparations)
	}
	return false
}

// answerShutdown is the device_shutdown mutants' answer: an error frame for a request that has
// none (DS-04, DS-05).
func (r *router) answerShutdown(env proto.Envelope, text string) {
	id := env.ID
	if id == "" {
		id = proto.TypeDeviceShutdown
	}
	r.out.enqueue(proto.MustEnvelope(proto.TypeError, id, &proto.ErrorPayload{Error: text}))
}

// shutdownRuns marks, for the device_shutdown mutants, the Runs a shutdown cancelled.
var shutdownRuns sync.Map

func shutdownCancelled(rn *run) {
	if mutation.On(mutation.DSDoneBeforeSettlement) || mutation.On(mutation.DSNoEmptyDone) {
		shutdownRuns.Store(rn, true)
	}
}

// shutdownDoneWithheld reports whether a device_shutdown mutant withholds the done the pump would
// send for rn: it went out at the shutdown already, or the Turn produced no terminal frame (empty).
func shutdownDoneWithheld(rn *run, empty bool) bool {
	if _, ok := shutdownRuns.Load(rn); !ok {
		return false
	}
	return mutation.On(mutation.DSDoneBeforeSettlement) || empty && mutation.On(mutation.DSNoEmptyDone)
}

// engineCodeMutants are the EF-01 Runtime mutants: an adapter that sends one accepted code as
// another (or drops it), instead of unchanged.
var engineCodeMutants = map[string]struct {
	point mutation.Point
	to    string
}{
	proto.EngineAuthenticationError:   {mutation.EFRTAuthenticationAsInvalidRequest, proto.EngineInvalidRequest},
	proto.EngineRateLimitExceeded:     {mutation.EFRTRateLimitAsUsageLimit, proto.EngineUsageLimitExceeded},
	proto.EngineUsageLimitExceeded:    {mutation.EFRTUsageLimitAsRateLimit, proto.EngineRateLimitExceeded},
	proto.EngineServerOverloaded:      {mutation.EFRTOverloadedAsServerError, proto.EngineServerError},
	proto.EngineServerError:           {mutation.EFRTServerErrorAsOverloaded, proto.EngineServerOverloaded},
	proto.EngineInvalidRequest:        {mutation.EFRTInvalidRequestRenamed, "bad_request"},
	proto.EngineResourceNotFound:      {mutation.EFRTNotFoundRenamed, "not_found"},
	proto.EngineRequestTimeout:        {mutation.EFRTTimeoutAsConnectionFailed, proto.EngineConnectionFailed},
	proto.EngineContextLengthExceeded: {mutation.EFRTContextLengthAsInvalidRequest, proto.EngineInvalidRequest},
	proto.EngineCyberPolicy:           {mutation.EFRTCyberPolicyDropped, ""},
	proto.EngineConnectionFailed:      {mutation.EFRTConnectionFailedAsTimeout, proto.EngineRequestTimeout},
}

// bendEngineError is the EF Runtime mutants' error frame: the classification the adapter mapped,
// bent on its way to the wire.
func bendEngineError(payload any) any {
	p, ok := payload.(*proto.ErrorPayload)
	if !ok {
		return payload
	}
	bent := *p
	if m, ok := engineCodeMutants[p.Code]; ok && mutation.On(m.point) {
		bent.Code = m.to
		if m.to != proto.EngineConnectionFailed {
			bent.HTTPStatus = 0
		}
	}
	if p.Code == "" {
		if mutation.On(mutation.EFRTUnclassifiedDefaulted) {
			bent.Code = proto.EngineServerError // a default category for what the adapter could not map
		} else if mutation.On(mutation.EFRTCodeFromProse) {
			for _, c := range slices.Sorted(maps.Keys(proto.EngineCodes)) {
				if strings.Contains(p.Error, c) {
					bent.Code = c // a category read out of the error's text
					break
				}
			}
		}
	}
	if p.Code == proto.EngineConnectionFailed {
		if p.HTTPStatus == 100 && mutation.On(mutation.EFRTStatus100Dropped) ||
			p.HTTPStatus == 599 && mutation.On(mutation.EFRTStatus599Dropped) {
			bent.HTTPStatus = 0 // the range checked as 101–599 or 100–598
		}
	}
	if bent == *p {
		return payload
	}
	return &bent
}
