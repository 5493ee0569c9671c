// Package envprep is the reference Core's side of runtime_prepare as a pure state machine
// (protocol-facts.md §4.2, rules RP-14 … RP-18): the device's preparation, one operation after
// the other, each one transfer with a fresh ID, on every connection before work is admitted.
//
//	Step(state, event) → (state, effects, error)
//
// For each operation Core sends begin and expects ready; then, for a body, ≤ 64 KiB chunks, each
// awaiting received with the cumulative offset; then commit, expecting completed with the declared
// size. A zero-size file, initialize and finalize send no chunk. Every receipt is checked with
// proto's validator and against what Core expects: a wrong outcome, offset or size, or a code
// the validator does not list, is unknown (runtime_preparation_unconfirmed), never a rejection.
// Any terminal or invalid receipt ends the preparation; nothing is sent again. The exchange of a
// transfer is bounded at 195 s; the deadline and a disconnect are unknown too.
//
// Step does no I/O. The executor (package execution) carries out the effects in order: it
// answers NewTransferID with TransferIDIssued, registers the receipt route (Await) before the
// begin it leads to is sent, arms the one timer, and records Progress and Finish.
package envprep

import (
	"fmt"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// ExchangeTimeout bounds one transfer's exchange, from its begin to its completed (RP-18).
const ExchangeTimeout = 195 * time.Second

// Phases of the machine.
const (
	PhaseIdle      = "idle"
	PhaseReady     = "awaiting-ready"
	PhaseReceived  = "awaiting-received"
	PhaseCompleted = "awaiting-completed"
	PhaseDone      = "done"
)

// State is one connection's preparation.
type State struct {
	Ops      []Op
	Index    int    // the operation in progress (len(Ops) once every one completed)
	Transfer string // its transfer ID
	Phase    string
	Sent     int64 // bytes of the current body confirmed received
	Expect   int64 // the offset (awaiting received) or size (awaiting completed) Core expects
	Result   *store.PreparationResult

	mut mutantSteps // what a mutant sent ahead of the machine (mutants_rp.go); zero otherwise
}

// New returns the preparation of ops, not started.
func New(ops []Op) State { return State{Ops: ops, Phase: PhaseIdle} }

// Events.
type (
	// Start begins the preparation.
	Start struct{}
	// TransferIDIssued answers NewTransferID: a fresh canonical UUID.
	TransferIDIssued struct{ ID string }
	// Receipt is a runtime_prepare_result routed to the current transfer: its payload, or the
	// rule it broke.
	Receipt struct {
		Payload *proto.RuntimePrepareResultPayload
		Invalid error
	}
	// Deadline: the exchange's 195 s elapsed.
	Deadline struct{}
	// Closed: the connection closed (or the receipt route ended) before the transfer did.
	Closed struct{ Err error }
	// SendFailed: a frame could not be queued.
	SendFailed struct{ Err error }
)

// Event is one input of Step.
type Event interface{ event() }

func (Start) event()            {}
func (TransferIDIssued) event() {}
func (Receipt) event()          {}
func (Deadline) event()         {}
func (Closed) event()           {}
func (SendFailed) event()       {}

// Effects.
type (
	// NewTransferID asks for a fresh transfer ID (answered by TransferIDIssued).
	NewTransferID struct{}
	// Await registers the receipt route of a transfer; refused while another is registered on
	// the connection (RP-17: one transfer at a time).
	Await struct{ TransferID string }
	// Release removes the receipt route of a transfer.
	Release struct{ TransferID string }
	// Send queues one runtime_prepare frame: Envelope, or for a chunk, Chunk (Envelope zero). A
	// chunk is left to the host to encode, since base64-encoding 64 KiB is the costliest step of
	// a transfer: the host can encode the next chunk (NextChunk) while the Runtime works on this
	// one, off the critical path of a stop-and-wait transfer.
	Send struct {
		Envelope proto.Envelope
		Chunk    *Chunk
	}
	// Arm starts the exchange timer; Disarm stops it.
	Arm    struct{ After time.Duration }
	Disarm struct{}
	// Progress records that an operation's transfer began.
	Progress struct{ Operation int }
	// Finish records the result; the preparation owns nothing after it.
	Finish struct{ Result store.PreparationResult }
)

// Effect is one output of Step.
type Effect interface{ effect() }

// Chunk is one chunk of the current transfer's body.
type Chunk struct {
	TransferID string
	Offset     int64
	Data       []byte // aliases the operation's body: never written

	begin *proto.RuntimePreparePayload // the chunk-carries-begin mutant's base payload; nil otherwise
}

// Frame encodes the chunk's runtime_prepare envelope carrying trace (a traceparent; empty: none),
// and the frame it is sent as (proto.EncodeFrame: one pass for a chunk).
func (c Chunk) Frame(trace string) (proto.Envelope, []byte, error) {
	p := &proto.RuntimePreparePayload{Step: proto.StepChunk, Offset: c.Offset, Data: c.Data}
	mutateChunk(c, p)
	if mutation.On(mutation.RPCoreDataBase64URL) {
		return base64URLFrame(c.TransferID, trace, p)
	}
	return proto.EncodeFrame(proto.TypeRuntimePrepare, c.TransferID, trace, p)
}

// NextChunk is the chunk Step will send when the chunk now awaiting its received is confirmed as
// expected; false when none would follow (commit would) or no chunk is awaited.
func (s State) NextChunk() (Chunk, bool) {
	if s.Phase != PhaseReceived || s.Index >= len(s.Ops) {
		return Chunk{}, false
	}
	return s.chunkAt(s.Expect)
}

// chunkAt is the chunk of the current body starting at offset, if any byte is left.
func (s State) chunkAt(offset int64) (Chunk, bool) {
	body := s.Ops[s.Index].Content
	if offset >= int64(len(body)) {
		return Chunk{}, false
	}
	end := min(offset+chunkBytes(), int64(len(body)))
	return s.mutantChunk(Chunk{TransferID: s.Transfer, Offset: offset, Data: body[offset:end]}), true
}

func (NewTransferID) effect() {}
func (Await) effect()         {}
func (Release) effect()       {}
func (Send) effect()          {}
func (Arm) effect()           {}
func (Disarm) effect()        {}
func (Progress) effect()      {}
func (Finish) effect()        {}

// Step applies one event.
func Step(s State, ev Event) (State, []Effect, error) {
	s.Ops = append([]Op(nil), s.Ops...) // the caller's state stays as it was
	if s.Phase == PhaseDone {
		return s, nil, fmt.Errorf("the preparation is over (%s): %T is not accepted", s.Result.State, ev)
	}
	switch e := ev.(type) {
	case Start:
		if s.Phase != PhaseIdle || s.Transfer != "" {
			return s, nil, fmt.Errorf("the preparation has started already")
		}
		return s, s.next(), nil
	case TransferIDIssued:
		if s.Phase != PhaseIdle {
			return s, nil, fmt.Errorf("a transfer ID in phase %s", s.Phase)
		}
		return s, s.begin(e.ID), nil
	case Receipt:
		if s.Phase == PhaseIdle {
			return s, nil, fmt.Errorf("a receipt with no transfer in progress")
		}
		return s, s.receipt(e), nil
	case Deadline:
		resent := s.resentAtDeadline()
		return s, append(resent, s.unknown(fmt.Sprintf("no receipt completed the transfer within %v", ExchangeTimeout))...), nil
	case Closed:
		if mutation.On(mutation.PrepareDisconnectIgnored) {
			return s, nil, nil
		}
		return s, s.unknown(fmt.Sprintf("the connection closed before the transfer completed: %v", e.Err)), nil
	case SendFailed:
		return s, s.unknown(fmt.Sprintf("a frame could not be sent: %v", e.Err)), nil
	}
	return s, nil, fmt.Errorf("unknown event %T", ev)
}

// next starts the next operation, or finishes once every one completed.
func (s *State) next() []Effect {
	if s.Index >= len(s.Ops) {
		return s.finish(store.PreparationResult{State: store.PreparationCompleted, Outcome: proto.OutcomeCompleted})
	}
	s.Phase, s.Transfer, s.Sent, s.Expect, s.mut = PhaseIdle, "", 0, 0, mutantSteps{}
	return []Effect{NewTransferID{}}
}

// begin opens the current operation's transfer: route first, then the bound, then begin.
func (s *State) begin(id string) []Effect {
	s.Transfer, s.Phase = id, PhaseReady
	op := s.Ops[s.Index]
	b := op.Begin
	effects := []Effect{Progress{Operation: s.Index}, Await{TransferID: id}}
	if !mutation.On(mutation.PrepareExchangeUnbounded) {
		effects = append(effects, Arm{After: exchangeTimeout()})
	}
	return append(append(effects, s.send(&b)), s.chunkBeforeReady()...)
}

func (s *State) send(p *proto.RuntimePreparePayload) Effect {
	env, err := proto.NewEnvelope(proto.TypeRuntimePrepare, s.Transfer, p)
	if err != nil {
		panic(fmt.Sprintf("envprep: encoding a runtime_prepare: %v", err)) // only validated values are sent
	}
	return Send{Envelope: env}
}

// receipt checks a receipt against the validator and against what Core expects now.
func (s *State) receipt(r Receipt) []Effect {
	if r.Invalid != nil {
		return s.refuse("an invalid receipt: " + r.Invalid.Error())
	}
	p := r.Payload
	if err := p.Validate(); err != nil {
		if mutation.On(mutation.PrepareUnlistedCodeRejected) && p.Outcome == proto.OutcomeRejected {
			return s.end(store.PreparationRejected, p, "")
		}
		if p.Outcome == proto.OutcomeFailed && (p.ExitCode < 0 || p.ExitCode > 255) && mutation.On(mutation.RPCoreExitCodeUnbounded) {
			return s.end(store.PreparationFailed, p, "")
		}
		if p.Outcome == proto.OutcomeFailed && mutation.On(mutation.RPCoreFailedCodeUnchecked) {
			return s.end(store.PreparationFailed, p, "")
		}
		if p.Outcome == proto.OutcomeUnknown && mutation.On(mutation.RPCoreUnknownCodeUnchecked) {
			return s.end(store.PreparationUnknown, p, "the Runtime could not confirm the operation")
		}
		return s.refuse("an invalid receipt: runtime_prepare_result." + err.Error())
	}
	switch p.Outcome {
	case proto.OutcomeRejected:
		if mutation.On(mutation.RPCoreRejectedGoesOn) {
			return s.goOn()
		}
		return s.end(store.PreparationRejected, p, "")
	case proto.OutcomeFailed:
		if mutation.On(mutation.RPCoreFailedGoesOn) {
			return s.goOn()
		}
		return s.end(store.PreparationFailed, p, "")
	case proto.OutcomeUnknown:
		if mutation.On(mutation.RPCoreUnknownGoesOn) {
			return s.goOn()
		}
		return s.end(store.PreparationUnknown, p, "the Runtime could not confirm the operation")
	}
	want := map[string]string{PhaseReady: proto.OutcomeReady, PhaseReceived: proto.OutcomeReceived, PhaseCompleted: proto.OutcomeCompleted}[s.Phase]
	if p.Outcome != want {
		if p.Outcome == proto.OutcomeCompleted && mutation.On(mutation.RPCoreWrongOutcomeCompletes) {
			return s.goOn() // taken as the transfer's completion
		}
		return s.refuse(fmt.Sprintf("%s while Core awaited %s", p.Outcome, want))
	}
	switch s.Phase {
	case PhaseReady:
		if s.mut.early { // the first chunk went out with begin: its received comes next
			s.mut.early, s.Phase = false, PhaseReceived
			return nil
		}
		return s.sendBody()
	case PhaseReceived:
		if p.Offset != s.expectedOffset() && !mutation.On(mutation.PrepareWrongOffsetAccepted) {
			return s.refuse(fmt.Sprintf("received offset %d; Core sent %d bytes", p.Offset, s.Expect))
		}
		s.Sent = s.Expect
		return s.sendBody()
	default: // completed
		if p.SizeBytes != s.expectedSize() && !mutation.On(mutation.RPCoreCompletedSizeUnchecked) {
			return s.refuse(fmt.Sprintf("completed size_bytes %d; the transfer declared %d", p.SizeBytes, s.Ops[s.Index].Begin.SizeBytes))
		}
		effects := []Effect{Disarm{}, Release{TransferID: s.Transfer}}
		s.Index++
		return append(effects, s.next()...)
	}
}

// refuse ends the preparation unknown for a receipt that breaks its shape or what Core expects
// (RP-15).
func (s *State) refuse(detail string) []Effect {
	if mutation.On(mutation.RPCoreInvalidReceiptGoesOn) {
		return s.goOn()
	}
	return s.unknown(detail)
}

// sendBody sends the next chunk of the body, or commit once every byte is confirmed.
func (s *State) sendBody() []Effect {
	body := s.Ops[s.Index].Content
	if len(body) == 0 && s.Phase == PhaseReady && s.emptyChunkSent() {
		s.Phase, s.Expect = PhaseReceived, 0
		return []Effect{s.send(&proto.RuntimePreparePayload{Step: proto.StepChunk})}
	}
	if s.Sent >= int64(len(body)) {
		if trailing := s.trailingChunk(); trailing != nil {
			return trailing
		}
		s.Phase, s.Expect = PhaseCompleted, int64(len(body))
		if s.mut.committed { // the commit went out with the last chunk
			return nil
		}
		effects := []Effect{s.send(s.commit())}
		if mutation.On(mutation.PrepareTransfersOverlap) && s.Index+1 < len(s.Ops) {
			effects = append(effects, s.overlap())
		}
		return effects
	}
	chunk, _ := s.chunkAt(s.Sent)
	s.Phase, s.Expect = PhaseReceived, chunk.Offset+int64(len(chunk.Data))
	if s.mut.streamed { // already sent
		return nil
	}
	return append([]Effect{Send{Chunk: &chunk}}, s.aheadOfReceipts(chunk)...)
}

// unknown ends the preparation unconfirmed (RP-15, RP-18).
func (s *State) unknown(detail string) []Effect {
	return s.end(store.PreparationUnknown, &proto.RuntimePrepareResultPayload{Outcome: proto.OutcomeUnknown,
		ErrorCode: proto.CodeRuntimePreparationUnconfirmed}, detail)
}

// end stops the transfer: nothing of it is sent again (RP-16).
func (s *State) end(state string, p *proto.RuntimePrepareResultPayload, detail string) []Effect {
	effects := []Effect{Disarm{}}
	if s.Transfer != "" {
		effects = append(effects, Release{TransferID: s.Transfer})
	}
	if state == store.PreparationRejected && mutation.On(mutation.PrepareRejectedRetried) {
		return append(effects, s.next()...)
	}
	r := store.PreparationResult{State: state, Outcome: p.Outcome, ErrorCode: p.ErrorCode, ExitCode: p.ExitCode, Detail: detail}
	return append(effects, s.finish(r)...)
}

func (s *State) finish(r store.PreparationResult) []Effect {
	r.Operation, r.TransferID = s.Index, s.Transfer
	s.Phase, s.Result = PhaseDone, &r
	return []Effect{Finish{Result: r}}
}

// overlap is the overlapping-transfers mutant's second transfer: the next operation's begin, sent
// while the current one awaits completed, under an ID derived from the current one.
func (s *State) overlap() Effect {
	id := []byte(s.Transfer)
	if id[len(id)-1] == '0' {
		id[len(id)-1] = '1'
	} else {
		id[len(id)-1] = '0'
	}
	b := s.Ops[s.Index+1].Begin
	env, err := proto.NewEnvelope(proto.TypeRuntimePrepare, string(id), &b)
	if err != nil {
		panic(err)
	}
	return Send{Envelope: env}
}
