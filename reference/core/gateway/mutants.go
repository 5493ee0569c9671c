package gateway

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The replay mutants: a gateway that carries a frame of one connection into the next. Every body
// is guarded by mutation.On, a constant false outside the wirecheck_mutants build.

// replayKey names a device's connections within one Gateway.
type replayKey struct {
	g        *Gateway
	deviceID string
}

// replayed holds, per device, the last frame of the type the active replay mutant carries over.
var replayed sync.Map

// replayedType is the frame type the active replay mutant re-sends after a reconnect, or "".
func replayedType() string {
	switch {
	case mutation.On(mutation.StartResentAfterReconnect):
		return proto.TypeExecutionStart
	case mutation.On(mutation.CancelResentAfterReconnect):
		return proto.TypePromptCancel
	case mutation.On(mutation.DecisionResentAfterReconnect):
		return proto.TypePermissionDecision
	case mutation.On(mutation.PrepareResentAfterReconnect):
		return proto.TypeRuntimePrepare
	case mutation.On(mutation.SUQuiesceResentAfterReconnect):
		return proto.TypeEnvironmentQuiesce
	case mutation.On(mutation.WSCoreReadResentAfterReconnect):
		return proto.TypeWorkspaceRead
	case mutation.On(mutation.WSCoreExportResentAfterReconnect):
		return proto.TypeWorkspaceExport
	case mutation.On(mutation.ADCorePrepareResentAfterReconnect):
		return proto.TypeExecutionPrepare
	}
	return ""
}

// rememberSent keeps the frame s sends for the replay mutants.
func (s *Session) rememberSent(env proto.Envelope, raw []byte) {
	s.rememberCancelled(env, raw)
	if t := replayedType(); t != "" && env.Type == t {
		replayed.Store(replayKey{s.g, s.deviceID}, raw)
	}
	if env.Type == proto.TypeDeviceShutdown {
		s.shutdownSentMutants()
	}
}

// shutdownSent holds, for the device_shutdown mutants, the devices Core sent device_shutdown to.
var shutdownSent sync.Map

// ShutdownSent reports whether a device_shutdown mutant marked deviceID: nothing is marked but
// under those mutants.
func ShutdownSent(deviceID string) bool {
	_, ok := shutdownSent.Load(deviceID)
	return ok
}

// shutdownSentMutants: Core takes its own device_shutdown as the end of the device's Runs (DS-06).
func (s *Session) shutdownSentMutants() {
	if mutation.On(mutation.DSCoreDoneAfterShutdownCancelled) || mutation.On(mutation.DSCoreLossAfterShutdownCancels) {
		shutdownSent.Store(s.deviceID, true)
	}
	if !mutation.On(mutation.DSCoreShutdownEndsRuns) {
		return
	}
	s.mu.Lock()
	runs := make([]*RunSubscription, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.s.end(errShutdownSent)
	}
}

var errShutdownSent = errors.New("core sent device_shutdown: the Run is over")

// replayOnReconnect re-sends, on the device's new connection, the frame its previous one sent.
func (s *Session) replayOnReconnect() {
	s.restartCancelled()
	shutdownSent.Delete(s.deviceID) // a device_shutdown mutant's mark ends with the connection it was sent on
	if replayedType() == "" {
		return
	}
	if raw, ok := replayed.LoadAndDelete(replayKey{s.g, s.deviceID}); ok {
		select {
		case s.queue <- raw.([]byte):
		default:
		}
	}
}

// anyDecisionWaiter is the ack-routed-without-delivery-id mutant's route: an ack whose delivery_id
// nobody waits for goes to a decision's waiter anyway. Called with s.mu held.
func (s *Session) anyDecisionWaiter() *AckWaiter {
	for id, w := range s.acks {
		if strings.HasPrefix(id, "decision:") {
			return w
		}
	}
	return nil
}

// lenientAck decodes an interaction_decision_ack as plain JSON, without its shape rules (the
// AckDecodedLeniently mutant: CA-13).
func lenientAck(env proto.Envelope) (*proto.Frame, error) {
	var p proto.InteractionDecisionAckPayload
	if err := json.Unmarshal(env.Payload, &p); err != nil {
		return nil, err
	}
	return &proto.Frame{Envelope: env, Payload: &p}, nil
}

// lenientToolCall is the tool_call mutants' decoder (RS-11): a tool_call whose only fault lies in
// the clause of the strict decoding the active mutant drops is taken as a valid tool call.
func lenientToolCall(env proto.Envelope, perr error) (*proto.Frame, error) {
	msg := perr.Error()
	payload := env.Payload
	if raw := observationMemberDropped(env, msg); raw != nil {
		payload = raw
	} else if !toolCallFaultDropped(msg) {
		return nil, perr
	}
	var p proto.ToolCallPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, perr
	}
	return &proto.Frame{Envelope: env, Payload: &p}, nil
}

// writeTimeout is the per-frame write timeout (CN-42: 10 s), or the one a write-timeout mutant
// puts in its place.
func writeTimeout() time.Duration {
	switch {
	case mutation.On(mutation.CN42WriteTimeoutLonger):
		return time.Minute
	case mutation.On(mutation.CN42WriteTimeoutShorter):
		return 5 * time.Second
	}
	return proto.WriteTimeout
}

// preparationBuffer is a preparation subscription's buffer (AD-53: 16 frames), or the unbounded
// one of the mutant that never overflows.
func preparationBuffer() int {
	if mutation.On(mutation.AD53BufferUnbounded) {
		return 1 << 16
	}
	return proto.PreparationSubscriptionFrames
}

// overflowDropped is the mutant whose full preparation subscription drops the frame and stays
// open instead of closing with an overflow error.
func (p *PreparationSubscription) overflowDropped() bool {
	return mutation.On(mutation.AD53OverflowKeepsOpen) && len(p.s.ch) == cap(p.s.ch)
}
