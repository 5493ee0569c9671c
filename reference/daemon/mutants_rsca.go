package daemon

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The Run stream (RS) and cancellation (CA) mutation points that need more than a changed
// condition. Every body is guarded by mutation.On, a constant false outside the wirecheck_mutants
// build: there they do nothing and every helper returns its input.

// bentRun is what the RS/CA mutants remember of one Run (run.bent, nil unless a mutant acted).
type bentRun struct {
	mu          sync.Mutex
	lastUsage   *proto.Usage   // the last usage frame the Turn produced (cumulative, as produced)
	sawError    bool           // RS-08.1: an error frame went out
	held        *harness.Event // RS-07.5: the Turn's last event, sent after done
	closedEarly bool           // CA-04.1, CA-06.2, CA-09.4: the Run's done already went out
	timedOut    bool           // CA-09.3: the cancellation was answered cancel_timeout
	cancelled   bool           // CA-04.3, CA-05.3: the Run was cancelled
}

func bentOf(rn *run) *bentRun {
	if b := rn.bent.Load(); b != nil {
		return b
	}
	rn.bent.CompareAndSwap(nil, &bentRun{})
	return rn.bent.Load()
}

// bendStream bends a Turn's events on their way to the pump (RS-07.5, RS-08, RS-12, RS-13.3,
// RS-14). Each point is asked only at the events its mutant acts on.
func bendStream(rn *run, in <-chan harness.Event) <-chan harness.Event {
	if !mutation.Built {
		return in
	}
	out := make(chan harness.Event)
	go func() {
		defer close(out)
		var pending *harness.Event
		for ev := range in {
			ev = bendEvent(rn, ev)
			if pending != nil {
				if mutation.On(mutation.RSMessageCompletedEarly) && completedMessage(ev) && pending.Type == proto.TypeDelta {
					out <- ev // the message completes before its last delta
					out <- *pending
					pending = nil
					continue
				}
				out <- *pending
				pending = nil
			}
			held := plainRunEvent(ev.Type) && (mutation.On(mutation.RSEventAfterDone) ||
				ev.Type == proto.TypeError && mutation.On(mutation.RSFinalErrorDropped) ||
				ev.Type == proto.TypeDelta && mutation.On(mutation.RSMessageCompletedEarly))
			if held {
				pending = &ev
				continue
			}
			out <- ev
		}
		switch {
		case pending == nil:
		case pending.Type == proto.TypeError && mutation.On(mutation.RSFinalErrorDropped):
			// the done closes the stream in the last error's place
		case mutation.On(mutation.RSEventAfterDone):
			b := bentOf(rn)
			b.mu.Lock()
			b.held = pending
			b.mu.Unlock()
		default:
			out <- *pending
		}
	}()
	return out
}

func plainRunEvent(typ string) bool {
	switch typ {
	case proto.TypeDelta, proto.TypeThinking, proto.TypeOutputMessage, proto.TypeToolCall, proto.TypeUsage, proto.TypeError:
		return true
	}
	return false
}

func completedMessage(ev harness.Event) bool {
	m, ok := ev.Payload.(*proto.OutputMessagePayload)
	return ok && ev.Type == proto.TypeOutputMessage && m.Status == proto.MessageCompleted
}

// bendEvent bends one event's payload; the script's payloads serve every Turn, so a bent one is a copy.
func bendEvent(rn *run, ev harness.Event) harness.Event {
	switch ev.Type {
	case proto.TypeError:
		if mutation.On(mutation.RSErrorEndsStream) {
			b := bentOf(rn)
			b.mu.Lock()
			b.sawError = true
			b.mu.Unlock()
		}
	case proto.TypeUsage:
		u := usageOf(ev.Payload)
		if u == nil || !(mutation.On(mutation.RSUsageIncrements) || mutation.On(mutation.RSDoneUsageIncrement)) {
			return ev
		}
		b := bentOf(rn)
		b.mu.Lock()
		prev := b.lastUsage
		b.lastUsage = u
		b.mu.Unlock()
		if mutation.On(mutation.RSUsageIncrements) && prev != nil {
			return harness.Event{Type: ev.Type, Payload: &proto.UsagePayload{Usage: usageIncrement(*u, prev)}}
		}
	case proto.TypeToolCall:
		tc, ok := ev.Payload.(*proto.ToolCallPayload)
		if !ok {
			return ev
		}
		switch {
		case mutation.On(mutation.RSObservationStripped) && rn.observeTools && tc.Observation != nil:
			c := *tc
			c.Observation = nil
			return harness.Event{Type: ev.Type, Payload: &c}
		case mutation.On(mutation.RSObservationSynthesized) && !rn.observeTools && tc.Observation == nil:
			c := *tc
			c.Observation = &proto.ToolObservation{Kind: tc.Name, Status: tc.Stage}
			return harness.Event{Type: ev.Type, Payload: &c}
		}
	}
	return ev
}

func usageOf(payload any) *proto.Usage {
	switch p := payload.(type) {
	case *proto.UsagePayload:
		u := p.Usage
		return &u
	case proto.UsagePayload:
		return &p.Usage
	}
	return nil
}

// usageIncrement is u minus prev for the token counts both carry.
func usageIncrement(u proto.Usage, prev *proto.Usage) proto.Usage {
	sub := func(a, b *int32) *int32 {
		if a == nil || b == nil {
			return a
		}
		n := *a - *b
		return &n
	}
	u.InputTokens, u.OutputTokens = sub(u.InputTokens, prev.InputTokens), sub(u.OutputTokens, prev.OutputTokens)
	if u.Tokens != nil && prev.Tokens != nil {
		t := *u.Tokens
		t.InputTokens -= prev.Tokens.InputTokens
		t.CachedInputTokens -= prev.Tokens.CachedInputTokens
		t.OutputTokens -= prev.Tokens.OutputTokens
		t.ReasoningOutputTokens -= prev.Tokens.ReasoningOutputTokens
		t.TotalTokens -= prev.Tokens.TotalTokens
		u.Tokens = &t
	}
	return u
}

// bentRunFrameID is the envelope id a Run event goes out under (RS-07.1).
func bentRunFrameID(rn *run, ev harness.Event) string {
	if mutation.On(mutation.RSToolCallUnderCallID) && ev.Type == proto.TypeToolCall {
		if tc, ok := ev.Payload.(*proto.ToolCallPayload); ok && tc.ID != "" {
			return tc.ID
		}
	}
	return rn.id
}

// bentDone decides the done the pump sends (nil: none). produced reports whether the Turn
// produced a terminal frame of its own. Its points are asked where their mutants set run.bent.
func bentDone(rn *run, done *proto.DonePayload, produced bool) *proto.DonePayload {
	b := rn.bent.Load()
	if b == nil {
		return done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closedEarly:
		return nil // the done already went out
	case b.sawError && mutation.On(mutation.RSErrorEndsStream):
		return nil
	case b.timedOut && mutation.On(mutation.CATimeoutDropsDone):
		return nil
	case b.cancelled && !rn.direct && !produced && mutation.On(mutation.CACancelledTurnWithoutDone):
		return nil
	case b.cancelled && rn.direct && mutation.On(mutation.CADirectCancelledWithoutDone):
		return nil
	}
	if done.Usage != nil && b.lastUsage != nil && mutation.On(mutation.RSDoneUsageIncrement) {
		d := *done
		u := usageIncrement(*done.Usage, b.lastUsage)
		d.Usage = &u
		return &d
	}
	return done
}

// eventDropped reports whether the pump drops a Turn's event: a mutant closed its Run early.
func eventDropped(rn *run) bool {
	b := rn.bent.Load()
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closedEarly
}

// afterDone sends what a mutant holds back until the Run's done went out (RS-07.5), and remembers
// the done for the cancellation of a finished Run (CA-03).
func (r *router) afterDone(rn *run, done *proto.DonePayload) {
	r.rememberDone(rn.id, done)
	b := rn.bent.Load()
	if b == nil {
		return
	}
	b.mu.Lock()
	held := b.held
	b.held = nil
	b.mu.Unlock()
	if held != nil {
		if env, err := proto.NewEnvelope(held.Type, rn.id, held.Payload); err == nil {
			_ = r.sendRun(rn, env)
		}
	}
}

// finishedKey names a Run whose done went out on a connection (the mutation memory of CA-03).
type finishedKey struct {
	r  *router
	id string
}

// rememberDone keeps a Run's done, once it went out, for the CA-03 mutants (nothing outside
// the mutants build).
func (r *router) rememberDone(runID string, done *proto.DonePayload) {
	if !mutation.Built {
		return
	}
	if raw, err := json.Marshal(done); err == nil {
		mutation.Remember(finishedKey{r, runID}, raw)
	}
}

// inactiveCancelBent answers a prompt_cancel with delivery_id for a Run that is not active as a
// mutant does; it reports whether it did (CA-03).
func (r *router) inactiveCancelBent(runID, deliveryID string) bool {
	if !mutation.On(mutation.UnknownRunCancelSilent) && !mutation.On(mutation.CAFinishedRunCancelApplied) {
		return false
	}
	raw := mutation.Recall(finishedKey{r, runID})
	if raw != nil {
		mutation.Remember(finishedKey{r, runID}, raw)
	}
	var done proto.DonePayload
	switch {
	case mutation.On(mutation.UnknownRunCancelSilent) && raw == nil:
		return true // an unknown Run: silent
	case mutation.On(mutation.CAFinishedRunCancelApplied) && raw != nil && json.Unmarshal(raw, &done) == nil:
		r.ack(runID, &proto.InteractionDecisionAckPayload{DeliveryID: deliveryID, Applied: true, Outcome: &done})
		return true
	}
	return false
}

// inactiveCode is the code of a receipt for a Run that is not active.
func inactiveCode() string {
	if mutation.On(mutation.CARunInactiveAsNotPending) {
		return proto.CodeNotPending
	}
	return proto.CodeRunInactive
}

// cancelDecoded bends how a prompt_cancel decodes (CA-01.2, CA-01.3).
func cancelDecoded(env proto.Envelope, p *proto.PromptCancelPayload, err error) (*proto.PromptCancelPayload, error) {
	if err != nil && mutation.On(mutation.CAInvalidCancelServed) {
		var loose struct {
			DeliveryID any `json:"delivery_id"`
		}
		if json.Unmarshal(env.Payload, &loose) == nil {
			id, _ := loose.DeliveryID.(string)
			return &proto.PromptCancelPayload{DeliveryID: id}, nil
		}
	}
	if err == nil && mutation.On(mutation.CAPayloadlessCancelDropped) {
		if raw := bytes.TrimSpace(env.Payload); len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
			return nil, errPayloadless
		}
	}
	return p, err
}

type payloadlessError struct{}

func (payloadlessError) Error() string { return "prompt_cancel without a payload" }

var errPayloadless error = payloadlessError{}

// cancelledBent notes a Run's cancellation for the mutants and acts on those that act at once
// (CA-01.1, CA-04.1). It reports false when the cancellation is ignored (CA-02.1).
func (r *router) cancelledBent(rn *run, deliveryID string) bool {
	if deliveryID == "" && mutation.On(mutation.CALegacyCancelIgnored) {
		return false
	}
	if mutation.On(mutation.CACancelledTurnWithoutDone) || mutation.On(mutation.CADirectCancelledWithoutDone) {
		b := bentOf(rn)
		b.mu.Lock()
		b.cancelled = true
		b.mu.Unlock()
	}
	if mutation.On(mutation.CACancelCancelsEveryRun) {
		r.mu.Lock()
		var others []*run
		for _, o := range r.runs {
			if o != rn {
				others = append(others, o)
			}
		}
		r.mu.Unlock()
		for _, o := range others {
			o.abortStart()
			r.goOwned(func() { _, _ = o.cancelNative(r.ctx) })
		}
	}
	if mutation.On(mutation.CADoneBeforeSettlement) && !rn.direct {
		r.closeEarly(rn)
	}
	return true
}

// closeEarly sends the Run's empty done now; the pump then drops the Turn's events and done.
func (r *router) closeEarly(rn *run) {
	b := bentOf(rn)
	b.mu.Lock()
	if b.closedEarly {
		b.mu.Unlock()
		return
	}
	b.closedEarly = true
	b.mu.Unlock()
	r.sendDone(rn, &proto.DonePayload{})
}

// cancelConfirmation is the cancellation confirmation timeout (CA-09: 15 s).
func cancelConfirmation() time.Duration {
	if mutation.On(mutation.CAConfirmationTimerEarly) {
		return proto.CancellationConfirmationTimeout / 2
	}
	return proto.CancellationConfirmationTimeout
}

// cancelFailedBent acts on a native cancellation that failed (CA-06.2).
func (r *router) cancelFailedBent(rn *run) {
	if mutation.On(mutation.CAFailedCancelClosesRun) {
		r.closeEarly(rn)
	}
}

// cancelTimedOutBent acts on a cancellation answered cancel_timeout (CA-09.3, CA-09.4, CA-12.2).
func (r *router) cancelTimedOutBent(rn *run, runID, deliveryID string) {
	if mutation.On(mutation.CATimeoutDropsDone) {
		b := bentOf(rn)
		b.mu.Lock()
		b.timedOut = true
		b.mu.Unlock()
	}
	if mutation.On(mutation.CATimeoutClosesStream) {
		r.closeEarly(rn)
	}
	if mutation.On(mutation.CATimedOutCancelAppliedLater) {
		r.goOwned(func() {
			select {
			case <-rn.started:
			case <-r.ctx.Done():
				return
			}
			if rn.turn == nil {
				return
			}
			outcome, err := rn.turn.Cancel(r.ctx) // returns once the Turn settled
			if err != nil || outcome == nil {
				return
			}
			<-rn.finished
			r.ack(runID, &proto.InteractionDecisionAckPayload{DeliveryID: deliveryID, Applied: true, Outcome: outcome})
		})
	}
}

// bentOutcome bends the snapshot an applied receipt carries (CA-05.2, CA-11).
func bentOutcome(rn *run, outcome *proto.DonePayload) *proto.DonePayload {
	if outcome == nil {
		return nil
	}
	if mutation.On(mutation.CADirectReceiptWithoutOutcome) && rn.direct {
		return nil
	}
	if mutation.On(mutation.CAAbortedStartWithoutOutcome) {
		rn.startMu.Lock()
		aborted := rn.startAborted && !rn.direct
		rn.startMu.Unlock()
		if aborted {
			return nil
		}
	}
	o := *outcome
	switch {
	case mutation.On(mutation.CAOutcomeContentDropped):
		o.Content = ""
	case mutation.On(mutation.CAOutcomeIdentityDropped) && o.Metadata != nil:
		md := map[string]string{}
		for k, v := range o.Metadata {
			if k != proto.MetaAgentSessionID {
				md[k] = v
			}
		}
		o.Metadata = md
	case mutation.On(mutation.CAOutcomeUsageDropped):
		o.Usage = nil
	default:
		return outcome
	}
	return &o
}

// bendFrame bends the shape of a frame on its way to the wire (RS-10, RS-11, RS-14.5, CA-13).
// Only the points of the frame's type are asked.
func bendFrame(env proto.Envelope) proto.Envelope {
	if !mutation.Built || !frameBent(env) {
		return env
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(env.Payload))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return env
	}
	switch env.Type {
	case proto.TypeDelta:
		switch {
		case mutation.On(mutation.RSDeltaTextAsText):
			m["text"] = m["delta"]
			delete(m, "delta")
		case mutation.On(mutation.RSDeltaSequenceAsString):
			if n, ok := m["sequence"].(json.Number); ok {
				m["sequence"] = n.String()
			}
		}
	case proto.TypeThinking:
		m["delta"] = m["text"]
		delete(m, "text")
	case proto.TypeDone:
		switch {
		case mutation.On(mutation.RSEmptyDoneContentOmitted):
			if m["content"] == "" {
				delete(m, "content")
			}
		case mutation.On(mutation.RSDoneMetadataAsString):
			if m["metadata"] != nil {
				if raw, err := json.Marshal(m["metadata"]); err == nil {
					m["metadata"] = string(raw)
				}
			}
		case mutation.On(mutation.RSMissingMeasurementZero):
			if u, ok := m["usage"].(map[string]any); ok {
				zeroMissing(u)
			}
		}
	case proto.TypeUsage:
		zeroMissing(m)
	case proto.TypeToolCall:
		bendToolCall(env.ID, m)
	case proto.TypeInteractionDecisionAck:
		switch {
		case mutation.On(mutation.CAReceiptEchoesEnvelopeID):
			m["delivery_id"] = env.ID
		case mutation.On(mutation.CAUnappliedAckOmitsApplied):
			if m["applied"] == false {
				delete(m, "applied")
			}
		case mutation.On(mutation.CAOutcomeAsDoneEnvelope):
			if m["outcome"] != nil {
				m["outcome"] = map[string]any{"type": proto.TypeDone, "id": env.ID, "payload": m["outcome"]}
			}
		case mutation.On(mutation.CAReceiptUnderDeliveryID):
			if id, ok := m["delivery_id"].(string); ok && id != "" {
				env.ID = id
			}
		}
	}
	if raw, err := json.Marshal(m); err == nil {
		env.Payload = raw
	}
	return env
}

// frameBent reports whether a mutant that bends the shape of env is on; a done's points are asked
// only when it carries what their mutant changes.
func frameBent(env proto.Envelope) bool {
	has := func(member string) bool { return bytes.Contains(env.Payload, []byte(`"`+member+`"`)) }
	switch env.Type {
	case proto.TypeDelta:
		return mutation.On(mutation.RSDeltaTextAsText) || mutation.On(mutation.RSDeltaSequenceAsString)
	case proto.TypeThinking:
		return mutation.On(mutation.RSThinkingTextAsDelta)
	case proto.TypeDone:
		return bytes.Contains(env.Payload, []byte(`"content":""`)) && mutation.On(mutation.RSEmptyDoneContentOmitted) ||
			has("metadata") && mutation.On(mutation.RSDoneMetadataAsString) ||
			has("usage") && mutation.On(mutation.RSMissingMeasurementZero)
	case proto.TypeUsage:
		return mutation.On(mutation.RSMissingMeasurementZero)
	case proto.TypeToolCall:
		return mutation.On(mutation.RSToolCallRunIDAdded) || mutation.On(mutation.RSToolCallAfterWithoutName) ||
			mutation.On(mutation.RSToolStageRenamed) || mutation.On(mutation.RSToolArgsAsString) ||
			mutation.On(mutation.RSToolResultAsString) || mutation.On(mutation.RSObservationKindOmitted) ||
			mutation.On(mutation.RSObservationStatusOmitted) || mutation.On(mutation.RSObservationExitCodeAsString)
	case proto.TypeInteractionDecisionAck:
		return mutation.On(mutation.CAReceiptEchoesEnvelopeID) || mutation.On(mutation.CAUnappliedAckOmitsApplied) ||
			mutation.On(mutation.CAOutcomeAsDoneEnvelope) || mutation.On(mutation.CAReceiptUnderDeliveryID)
	}
	return false
}

// zeroMissing sends the token counts a usage snapshot lacks as 0 (RS-14.5).
func zeroMissing(u map[string]any) {
	for _, k := range []string{"input_tokens", "output_tokens"} {
		if _, ok := u[k]; !ok {
			u[k] = 0
		}
	}
}

// bendToolCall bends a tool_call payload (RS-11).
func bendToolCall(runID string, m map[string]any) {
	asString := func(k string) {
		if v, ok := m[k]; ok {
			if raw, err := json.Marshal(v); err == nil {
				m[k] = string(raw)
			}
		}
	}
	obs, _ := m["observation"].(map[string]any)
	switch {
	case mutation.On(mutation.RSToolCallRunIDAdded):
		m["run_id"] = runID
	case mutation.On(mutation.RSToolCallAfterWithoutName) && m["stage"] == proto.ToolStageAfter:
		delete(m, "name")
	case mutation.On(mutation.RSToolStageRenamed):
		switch m["stage"] {
		case proto.ToolStageBefore:
			m["stage"] = "start"
		case proto.ToolStageAfter:
			m["stage"] = "end"
		}
	case mutation.On(mutation.RSToolArgsAsString):
		asString("args")
	case mutation.On(mutation.RSToolResultAsString):
		asString("result")
	case mutation.On(mutation.RSObservationKindOmitted) && obs != nil:
		delete(obs, "kind")
	case mutation.On(mutation.RSObservationStatusOmitted) && obs != nil:
		delete(obs, "status")
	case mutation.On(mutation.RSObservationExitCodeAsString) && obs != nil:
		if n, ok := obs["exit_code"].(json.Number); ok {
			obs["exit_code"] = n.String()
		}
	}
}

// directRunBent acts on a prompt_request Run that was just admitted (RS-02.1).
func (r *router) directRunBent(rn *run, executorID string) {
	if mutation.On(mutation.RSDirectRunPublishesStatus) {
		_ = r.sendRun(rn, proto.MustEnvelope(proto.TypePreparationStatus, rn.id, &proto.PreparationStatusPayload{
			ExecutorID: executorID, Handle: "direct-" + rn.id, Revision: 1, State: proto.StateStarted, RunID: rn.id}))
	}
}

// failedStartBent acts on a native start without a Turn (RS-02.2).
func (r *router) failedStartBent(rn *run) {
	if mutation.On(mutation.RSFailedStartRunsDirect) {
		r.failRun(rn.id, rn.trace, "native start failed")
	}
}

// optionsAfterSetup is RS-05.9's late check: the options the kind does not declare are refused
// only once native setup ran.
func optionsAfterSetup(cfg *proto.PromptRequestPayload, caps proto.AgentKindCapabilities) string {
	if !mutation.On(mutation.RSOptionsCheckedAfterSetup) {
		return ""
	}
	return checkOptions(cfg, caps)
}

// directBusyLocked reports whether the workspace is busy for a prompt_request (RS-05.5 to RS-05.7):
// a runtime_prepare transfer, a workspace write or an export holds it.
func (r *router) directBusyLocked() bool {
	transfer := r.prepareBusyLocked() && !mutation.On(mutation.RSTransferPendingRunsDirect)
	ws := r.workspaceBusyLocked(busyPrompt)
	if ws && ((r.wso.m.Writing() && mutation.On(mutation.RSWriteBusyRunsDirect)) || (r.wso.m.Exporting() && mutation.On(mutation.RSExportBusyRunsDirect))) {
		ws = false
	}
	return transfer || ws
}
