package daemon

import (
	"encoding/json"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/suspend"
)

// The cn-replay mutants (CN-40.6 to CN-40.10): a daemon whose outbox outlives its connection. Each
// carries the last frame of one kind it sent, or tried to send, on a connection (a frame owed when
// the transport ended is queued into the dead connection all the same) into the next connection,
// and sends it there again right after that connection's first heartbeat.
//
// In the mutants build every daemon keeps those frames (mutation.Enabled), so that a play reaches a
// point only where it could change the verdict: at the first heartbeat of a later connection, with
// a frame of its kind carried. Outside that build nothing is kept and nothing replayed.

// replayKey keys the mutation memory of the last frame of one kind a daemon's connection left.
type replayKey struct {
	d    *Daemon
	kind mutation.Point
}

// replayKinds says, for each cn-replay point that carries a frame of the outbound queue, which
// frames it carries.
var replayKinds = []struct {
	point mutation.Point
	keeps func(proto.Envelope) bool
}{
	{mutation.CNReplayDone, ofType(proto.TypeDone)},
	{mutation.CNReplayCancelReceipt, func(env proto.Envelope) bool { return isAck(env) && cancellationReceipt(env) }},
	{mutation.CNReplaySteerAck, ofType(proto.TypePromptSteerAck)},
	{mutation.CNReplayDecisionAck, func(env proto.Envelope) bool { return isAck(env) && !cancellationReceipt(env) }},
	{mutation.CNReplayPermissionRequest, ofType(proto.TypePermissionRequest)},
	{mutation.CNReplayUserChoice, ofType(proto.TypePromptForUserChoice)},
	{mutation.CNReplayFunctionCall, ofType(proto.TypeFunctionCall)},
	{mutation.CNReplayPrepareResult, ofType(proto.TypeRuntimePrepareResult)},
	{mutation.CNReplayReadResult, ofType(proto.TypeWorkspaceReadResult)},
	{mutation.CNReplayWriteResult, ofType(proto.TypeWorkspaceWriteResult)},
	{mutation.CNReplayExportResult, ofType(proto.TypeWorkspaceExportResult)},
	{mutation.CNReplayQuiesced, ofType(proto.TypeEnvironmentQuiesced)},
	{mutation.CNReplayResumed, ofType(proto.TypeEnvironmentResumed)},
}

func ofType(t string) func(proto.Envelope) bool {
	return func(env proto.Envelope) bool { return env.Type == t }
}

func isAck(env proto.Envelope) bool { return env.Type == proto.TypeInteractionDecisionAck }

// cancellationReceipt tells a prompt_cancel's receipt from the ack of a decision or a function
// result: only a cancellation receipt carries an outcome or a cancellation code.
func cancellationReceipt(env proto.Envelope) bool {
	var p proto.InteractionDecisionAckPayload
	if json.Unmarshal(env.Payload, &p) != nil {
		return false
	}
	return p.Outcome != nil || proto.CancellationAckCodes.Has(p.ErrorCode)
}

// carryFrames makes the connection's outbound queue keep, in the mutants build, the last frame of
// each cn-replay kind it is given, written or not.
func (r *router) carryFrames() {
	if !mutation.Enabled {
		return
	}
	d := r.d
	r.out.carry = func(env proto.Envelope, data []byte) {
		for _, k := range replayKinds {
			if k.keeps(env) {
				mutation.Remember(replayKey{d, k.point}, data)
				return
			}
		}
	}
}

// oweClosedStatus keeps, in the mutants build, the failed connection_closed status of an admission
// the ending connection owned: the local failure that must never go out (CN-40.6).
func (r *router) oweClosedStatus(g *grant, owned bool) {
	if !mutation.Enabled || !owned || g.rec.State != admission.Failed {
		return
	}
	s := g.rec.Status()
	if data, err := proto.MustEnvelope(proto.TypePreparationStatus, g.reqID, &s).Encode(); err == nil {
		mutation.Remember(replayKey{r.d, mutation.CNReplayConnectionClosedStatus}, data)
	}
}

// oweDrainAnswer keeps, in the mutants build, the accepted environment_quiesced a quiesce admitted
// for its drain owes, until its real answer replaces it: a drain the connection's end cuts short is
// never answered (SU-10), and a daemon that answers it anyway does so on the next connection.
func (r *router) oweDrainAnswer(id string, req suspend.Request, effects []suspend.Effect) {
	if !mutation.Enabled || req.Payload == nil {
		return
	}
	for _, eff := range effects {
		if _, drains := eff.(suspend.Drain); !drains {
			continue
		}
		res := proto.EnvironmentSuspendResultPayload{EnvironmentID: req.Payload.EnvironmentID, SuspendID: req.Payload.SuspendID, Accepted: true}
		if data, err := proto.MustEnvelope(proto.TypeEnvironmentQuiesced, id, &res).Encode(); err == nil {
			mutation.Remember(replayKey{r.d, mutation.CNReplayQuiesced}, data)
		}
	}
}

// replayPoints are every cn-replay point, in the order a mutant's frame is looked for.
func replayPoints() []mutation.Point {
	points := make([]mutation.Point, 0, len(replayKinds)+1)
	for _, k := range replayKinds {
		points = append(points, k.point)
	}
	return append(points, mutation.CNReplayConnectionClosedStatus)
}

// replayCarried runs right after the first heartbeat of a connection: every frame the previous
// connection left is forgotten, and the one of the active cn-replay mutant's kind sent again.
func (r *router) replayCarried() {
	if !mutation.Enabled {
		return
	}
	for _, p := range replayPoints() {
		frame := mutation.Recall(replayKey{r.d, p})
		if frame == nil || !mutation.On(p) {
			continue
		}
		if env, err := proto.DecodeEnvelope(frame); err == nil {
			r.out.enqueue(env)
		}
	}
}

// forgetCarried drops what a stopping daemon's last connection left.
func forgetCarried(d *Daemon) {
	if !mutation.Enabled {
		return
	}
	for _, p := range replayPoints() {
		mutation.Recall(replayKey{d, p})
	}
}
