package turn

import (
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The Run stream (RS) and cancellation (CA) mutants of the Turn machine that need more than a
// changed condition. Every body is guarded by mutation.On, a constant false outside the
// wirecheck_mutants build: there each returns what the machine decided.

// cancelConfirmation is how long Core waits for a cancellation's receipt (CA-15: 15 s).
func cancelConfirmation() time.Duration {
	if mutation.On(mutation.CACancelConfirmationEarly) {
		return proto.CancellationConfirmationTimeout / 2
	}
	return proto.CancellationConfirmationTimeout
}

// cancelEnvelope is the prompt_cancel of a Run: under the Run ID, its payload only the delivery_id
// (CA-01).
func cancelEnvelope(runID, delivery string) (proto.Envelope, error) {
	switch {
	case mutation.On(mutation.CACancelUnderDeliveryID):
		return proto.NewEnvelope(proto.TypePromptCancel, delivery, &proto.PromptCancelPayload{DeliveryID: delivery})
	case mutation.On(mutation.CACancelWithoutDeliveryID):
		return proto.NewEnvelope(proto.TypePromptCancel, runID, &proto.PromptCancelPayload{})
	case mutation.On(mutation.CACancelPayloadRunID):
		env, err := proto.NewEnvelope(proto.TypePromptCancel, runID, &proto.PromptCancelPayload{DeliveryID: delivery})
		if err == nil {
			env.Payload, err = json.Marshal(map[string]string{"delivery_id": delivery, "run_id": runID})
		}
		return env, err
	}
	return proto.NewEnvelope(proto.TypePromptCancel, runID, &proto.PromptCancelPayload{DeliveryID: delivery})
}

// abandonedCancel is what goes out beside the release of an admission abandoned before start:
// nothing (CA-20.3), or a prompt_cancel for the Run ID.
func abandonedCancel(s *State) []Effect {
	if !mutation.On(mutation.CAAbandonedAlsoCancelled) {
		return nil
	}
	env, err := proto.NewEnvelope(proto.TypePromptCancel, s.Spec.RunID, &proto.PromptCancelPayload{DeliveryID: CancelDeliveryID(s.Spec.RunID)})
	if err != nil {
		return nil
	}
	return []Effect{Send{Envelope: env, BestEffort: true}}
}

// cancelledSnapshot is the observation an applied receipt's Turn is built from: its snapshot
// (CA-18.3), or the stream and its done.
func cancelledSnapshot(s *State, outcome *proto.DonePayload) *proto.DonePayload {
	if mutation.On(mutation.CACancelledKeepsStream) {
		return s.Seen.Done
	}
	return outcome
}

// bentDoneUsage is done.usage as Core records it: it replaces the last snapshot (RS-14.4).
func bentDoneUsage(u proto.Usage, last *proto.Usage) proto.Usage {
	if mutation.On(mutation.RSDoneUsageAdded) && last != nil {
		u = addedUsage(*last, u)
	}
	return zeroFilled(u)
}

// zeroFilled records a missing token count as unknown (RS-14.6), or as 0.
func zeroFilled(u proto.Usage) proto.Usage {
	if !mutation.On(mutation.RSMissingMeasurementRecordedZero) {
		return u
	}
	var zero int32
	if u.InputTokens == nil {
		u.InputTokens = &zero
	}
	if u.OutputTokens == nil {
		u.OutputTokens = &zero
	}
	return u
}
