package gateway

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The Run stream (RS) and cancellation (CA) mutants of the gateway: how Core decodes Run frames
// and receipts, routes receipts and replays a start. Every body is guarded by mutation.On, a
// constant false outside the wirecheck_mutants build.

// lenientRunFrame is the RS-10 mutants' decoder: a delta, thinking or done whose only fault lies
// in the clause the active mutant drops is taken as valid.
func lenientRunFrame(env proto.Envelope, perr error) (*proto.Frame, error) {
	msg := perr.Error()
	var m map[string]json.RawMessage
	if json.Unmarshal(env.Payload, &m) != nil || m == nil {
		return nil, perr
	}
	var payload proto.Validator
	switch {
	case env.Type == proto.TypeDelta && mutation.On(mutation.RSDeltaTextAliasAccepted) && msg == "delta.delta: is required" && m["text"] != nil:
		var p proto.DeltaPayload
		if json.Unmarshal(m["text"], &p.Delta) != nil {
			return nil, perr
		}
		_ = json.Unmarshal(m["sequence"], &p.Sequence)
		payload = &p
	case env.Type == proto.TypeDelta && mutation.On(mutation.RSDeltaSequenceUnchecked) && strings.HasPrefix(msg, "delta.sequence:"):
		var p proto.DeltaPayload
		if json.Unmarshal(m["delta"], &p.Delta) != nil {
			return nil, perr
		}
		payload = &p
	case env.Type == proto.TypeThinking && mutation.On(mutation.RSThinkingTextUnchecked) && strings.HasPrefix(msg, "thinking.text:"):
		var p proto.ThinkingPayload
		_ = json.Unmarshal(m["text"], &p.Text)
		payload = &p
	case env.Type == proto.TypeDone && mutation.On(mutation.RSDoneContentUnchecked) && strings.HasPrefix(msg, "done.content:"):
		var content string
		_ = json.Unmarshal(m["content"], &content)
		delete(m, "content")
		p, ok := looseDone(m)
		if !ok {
			return nil, perr
		}
		p.Content = content
		payload = p
	case env.Type == proto.TypeDone && mutation.On(mutation.RSDoneMetadataUnchecked) && strings.HasPrefix(msg, "done.metadata"):
		var md map[string]any
		_ = json.Unmarshal(m["metadata"], &md)
		kept := map[string]string{}
		for k, v := range md {
			if s, ok := v.(string); ok {
				kept[k] = s
			}
		}
		delete(m, "metadata")
		p, ok := looseDone(m)
		if !ok {
			return nil, perr
		}
		p.Metadata = kept
		payload = p
	default:
		return nil, perr
	}
	return &proto.Frame{Envelope: env, Payload: payload}, nil
}

func looseDone(m map[string]json.RawMessage) (*proto.DonePayload, bool) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	var p proto.DonePayload
	if json.Unmarshal(raw, &p) != nil {
		return nil, false
	}
	return &p, true
}

// toolCallFaultDropped reports whether the active RS-11 mutant drops the clause msg names.
func toolCallFaultDropped(msg string) bool {
	return mutation.On(mutation.ToolCallUnknownMembersAccepted) && strings.HasSuffix(msg, ": unknown member") ||
		mutation.On(mutation.ToolCallStageUnchecked) && strings.HasPrefix(msg, "tool_call.stage:") ||
		mutation.On(mutation.ToolCallArgsNotObjectAccepted) && strings.HasPrefix(msg, "tool_call.args:") ||
		mutation.On(mutation.RSToolResultNotObjectAccepted) && strings.HasPrefix(msg, "tool_call.result:") ||
		mutation.On(mutation.ToolObservationUnchecked) && strings.HasPrefix(msg, "tool_call.observation.kind:") ||
		mutation.On(mutation.RSObservationStatusUnchecked) && strings.HasPrefix(msg, "tool_call.observation.status:") ||
		mutation.On(mutation.RSToolCallIDUnchecked) && (strings.HasPrefix(msg, "tool_call.id:") || strings.HasPrefix(msg, "tool_call.name:"))
}

// observationMemberDropped is RS-11.8's mutant: an observation member of the wrong type is
// dropped and the tool_call taken. It returns the payload without that member, or nil.
func observationMemberDropped(env proto.Envelope, msg string) json.RawMessage {
	const prefix = "tool_call.observation."
	if !mutation.On(mutation.RSObservationTypesUnchecked) || !strings.HasPrefix(msg, prefix) || strings.HasSuffix(msg, ": unknown member") {
		return nil
	}
	member, _, _ := strings.Cut(strings.TrimPrefix(msg, prefix), ":")
	member, _, _ = strings.Cut(member, ".")
	if member == "kind" || member == "status" {
		return nil
	}
	var m map[string]json.RawMessage
	var obs map[string]json.RawMessage
	if json.Unmarshal(env.Payload, &m) != nil || json.Unmarshal(m["observation"], &obs) != nil {
		return nil
	}
	delete(obs, member)
	raw, err := json.Marshal(obs)
	if err != nil {
		return nil
	}
	m["observation"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// lenientAckBent is the CA-13 mutants' decoder: an interaction_decision_ack whose only fault lies
// in the clause the active mutant drops is taken as valid.
func lenientAckBent(env proto.Envelope, perr error) (*proto.Frame, error) {
	msg := perr.Error()
	switch {
	case mutation.On(mutation.AckDecodedLeniently) && msg == "interaction_decision_ack.applied: is required",
		mutation.On(mutation.CAAppliedAckCodeAccepted) && strings.HasPrefix(msg, "interaction_decision_ack.error_code: must be empty when applied"),
		mutation.On(mutation.CAUnlistedAckCodeAccepted) && strings.HasPrefix(msg, "interaction_decision_ack.error_code: must be a listed"):
		return lenientAck(env)
	case mutation.On(mutation.CAInvalidOutcomeAccepted) && strings.HasPrefix(msg, "interaction_decision_ack.outcome."):
		var m map[string]json.RawMessage
		var outcome map[string]json.RawMessage
		if json.Unmarshal(env.Payload, &m) != nil || json.Unmarshal(m["outcome"], &outcome) != nil || outcome == nil {
			return nil, perr
		}
		var content string
		if json.Unmarshal(outcome["content"], &content) != nil {
			outcome["content"] = json.RawMessage(`""`)
		}
		raw, err := json.Marshal(outcome)
		if err != nil {
			return nil, perr
		}
		m["outcome"] = raw
		loose := env
		if loose.Payload, err = json.Marshal(m); err != nil {
			return nil, perr
		}
		f, err := lenientAck(loose)
		if err != nil {
			return nil, perr
		}
		f.Envelope = env
		return f, nil
	}
	return nil, perr
}

// ackRoute is the waiter an interaction_decision_ack settles: the one holding its delivery_id
// (CA-14), or the one a routing mutant picks. Called with s.mu held.
func (s *Session) ackRoute(envID, deliveryID string) *AckWaiter {
	w := s.acks[deliveryID]
	switch {
	case w == nil && deliveryID != strings.TrimSpace(deliveryID) && mutation.On(mutation.CAAckDeliveryIDTrimmed):
		return s.acks[strings.TrimSpace(deliveryID)]
	case w == nil && mutation.On(mutation.CAUnheldAckSettlesDecision):
		return s.anyDecisionWaiter()
	case w != nil && mutation.On(mutation.AckRoutedByInteraction):
		// routed by its envelope id first: a receipt under a Run ID goes to that Run's cancellation
		if c := s.acks["cancel:"+envID]; c != nil {
			return c
		}
	}
	return w
}

// duplicateAckReplaced is CA-14.3's mutant: a second waiter for a pending delivery_id replaces the
// first instead of being refused.
func duplicateAckReplaced() bool { return mutation.On(mutation.CADuplicateDeliveryReplaced) }

// lostReceipt is, per device, the last execution_start a connection sent and whether a
// prompt_cancel for its Run followed it (CA-19.2).
type lostReceipt struct {
	start     []byte
	runID     string
	cancelled bool
}

var lostReceipts sync.Map // replayKey -> *lostReceipt

// rememberCancelled keeps a start and the cancellation of its Run for CA-19.2's mutant.
func (s *Session) rememberCancelled(env proto.Envelope, raw []byte) {
	if !mutation.Built {
		return
	}
	key := replayKey{s.g, s.deviceID}
	switch env.Type {
	case proto.TypeExecutionStart: // kept in every play of the mutants build: the point is asked at the cancellation
		var p struct {
			RunID string `json:"run_id"`
		}
		_ = json.Unmarshal(env.Payload, &p)
		lostReceipts.Store(key, &lostReceipt{start: append([]byte(nil), raw...), runID: p.RunID})
	case proto.TypePromptCancel:
		if !mutation.On(mutation.CALostReceiptRestarts) {
			return
		}
		if v, ok := lostReceipts.Load(key); ok && v.(*lostReceipt).runID == env.ID {
			lostReceipts.Store(key, &lostReceipt{start: v.(*lostReceipt).start, runID: env.ID, cancelled: true})
		}
	}
}

// restartCancelled re-sends, on the device's new connection, the start of a Run whose
// cancellation was sent on the previous one (CA-19.2's mutant).
func (s *Session) restartCancelled() {
	if !mutation.Built {
		return
	}
	// only the mutant marks a start cancelled (rememberCancelled), where its point is asked
	if v, ok := lostReceipts.LoadAndDelete(replayKey{s.g, s.deviceID}); ok && v.(*lostReceipt).cancelled {
		select {
		case s.queue <- v.(*lostReceipt).start:
		default:
		}
	}
}
