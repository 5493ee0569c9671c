package envprep

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The machine's steps under the runtime_prepare mutants (RP). Every one acts only once
// mutation.On says so, a constant false outside the wirecheck_mutants build.

// mutantSteps is what a mutant sent ahead of the machine for the current transfer.
type mutantSteps struct {
	early     bool // the first chunk went out with begin (RP-14.1)
	streamed  bool // every chunk went out at once (RP-14.2)
	committed bool // commit went out with the last chunk (RP-14.4)
	trailed   bool // the trailing empty chunk went out (RP-09.3)
}

// chunkBytes is the size Core cuts bodies into.
func chunkBytes() int64 {
	if mutation.On(mutation.RPCoreChunk65537) {
		return proto.TransferChunkBytes + 1
	}
	return proto.TransferChunkBytes
}

// exchangeTimeout is the bound of one transfer's exchange.
func exchangeTimeout() time.Duration {
	if mutation.On(mutation.RPCoreExchangeBoundEarly) {
		return ExchangeTimeout / 2
	}
	return ExchangeTimeout
}

// mutantChunk gives a chunk the begin it is built from, under RP-01.2's mutant.
func (s State) mutantChunk(c Chunk) Chunk {
	if mutation.On(mutation.RPCoreChunkCarriesBegin) {
		b := s.Ops[s.Index].Begin
		c.begin = &b
	}
	return c
}

// mutateChunk bends a chunk's payload on its way to the frame.
func mutateChunk(c Chunk, p *proto.RuntimePreparePayload) {
	if c.begin != nil {
		b := *c.begin
		b.Step, b.Offset, b.Data = proto.StepChunk, p.Offset, p.Data
		*p = b
	}
	if mutation.On(mutation.RPCoreChunkOffsetIsEnd) {
		p.Offset += int64(len(p.Data))
	}
}

// base64URLFrame is a chunk's frame with its data in unpadded base64url (RP-09.6's mutant).
func base64URLFrame(id, trace string, p *proto.RuntimePreparePayload) (proto.Envelope, []byte, error) {
	env, err := proto.NewEnvelope(proto.TypeRuntimePrepare, id, p)
	if err != nil {
		return env, nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(env.Payload, &m); err != nil {
		return env, nil, err
	}
	m["data"], _ = json.Marshal(base64.RawURLEncoding.EncodeToString(p.Data))
	if env.Payload, err = json.Marshal(m); err != nil {
		return env, nil, err
	}
	env.Trace = trace
	raw, err := env.Encode()
	return env, raw, err
}

// commit is the commit payload of the current transfer.
func (s *State) commit() *proto.RuntimePreparePayload {
	p := &proto.RuntimePreparePayload{Step: proto.StepCommit}
	if mutation.On(mutation.RPCoreCommitCarriesBegin) {
		b := s.Ops[s.Index].Begin
		b.Step = proto.StepCommit
		p = &b
	}
	body := s.Ops[s.Index].Content
	if len(body) > 0 && mutation.On(mutation.RPCoreCommitCarriesOffset) {
		p.Offset = int64(len(body))
	}
	if len(body) > 0 && mutation.On(mutation.RPCoreCommitCarriesData) {
		last := (int64(len(body)) - 1) / proto.TransferChunkBytes * proto.TransferChunkBytes
		p.Data = body[last:]
	}
	return p
}

// emptyChunkSent: a transfer without a body sends a chunk without data (RP-14.6, RP-14.7).
func (s *State) emptyChunkSent() bool {
	if s.Ops[s.Index].Begin.Action == proto.ActionFile {
		return mutation.On(mutation.PrepareEmptyChunkSent)
	}
	return mutation.On(mutation.RPCoreHeaderEmptyChunk)
}

// chunkBeforeReady sends the first chunk with begin (RP-14.1).
func (s *State) chunkBeforeReady() []Effect {
	if len(s.Ops[s.Index].Content) == 0 || !mutation.On(mutation.RPCoreChunkBeforeReady) {
		return nil
	}
	c, _ := s.chunkAt(0)
	s.mut.early, s.Expect = true, c.Offset+int64(len(c.Data))
	return []Effect{Send{Chunk: &c}}
}

// aheadOfReceipts sends, after chunk, what the mutants send before its received: every other
// chunk (RP-14.2), or the commit after the last chunk (RP-14.4).
func (s *State) aheadOfReceipts(chunk Chunk) []Effect {
	body := s.Ops[s.Index].Content
	end := chunk.Offset + int64(len(chunk.Data))
	var effects []Effect
	if end < int64(len(body)) && !s.mut.streamed && mutation.On(mutation.RPCoreChunksStreamed) {
		s.mut.streamed = true
		for off := end; off < int64(len(body)); {
			c, _ := s.chunkAt(off)
			effects = append(effects, Send{Chunk: &c})
			off = c.Offset + int64(len(c.Data))
		}
	}
	if end == int64(len(body)) && mutation.On(mutation.RPCoreCommitBeforeLastReceived) {
		s.mut.committed = true
		effects = append(effects, s.send(s.commit()))
	}
	return effects
}

// trailingChunk sends one chunk without data after the body (RP-09.3), once.
func (s *State) trailingChunk() []Effect {
	n := int64(len(s.Ops[s.Index].Content))
	if n == 0 || s.mut.trailed || !mutation.On(mutation.RPCoreTrailingEmptyChunk) {
		return nil
	}
	s.mut.trailed = true
	s.Phase, s.Expect = PhaseReceived, n
	return []Effect{Send{Chunk: &Chunk{TransferID: s.Transfer, Offset: n}}}
}

// expectedOffset is the offset Core expects the awaited received to carry.
func (s *State) expectedOffset() int64 {
	if mutation.On(mutation.RPCoreExpectsChunkStart) {
		return s.Sent // where the chunk started
	}
	return s.Expect
}

// expectedSize is the size_bytes Core expects completed to carry.
func (s *State) expectedSize() int64 {
	if mutation.On(mutation.RPCoreExpectsNoSize) {
		return 0
	}
	return s.Ops[s.Index].Begin.SizeBytes
}

// goOn ends the current transfer and goes on with the next operation, whatever ended it
// (RP-15.1, RP-16.1 … RP-16.4).
func (s *State) goOn() []Effect {
	effects := []Effect{Disarm{}}
	if s.Transfer != "" {
		effects = append(effects, Release{TransferID: s.Transfer})
	}
	s.Index++
	return append(effects, s.next()...)
}

// resentAtDeadline is the transfer's last frame, sent again when the 195 s bound passes (RP-16.5).
func (s *State) resentAtDeadline() []Effect {
	if s.Transfer == "" || !mutation.On(mutation.RPCoreResendAtDeadline) {
		return nil
	}
	switch s.Phase {
	case PhaseReady:
		b := s.Ops[s.Index].Begin
		return []Effect{s.send(&b)}
	case PhaseReceived:
		if c, ok := s.chunkAt(s.Sent); ok {
			return []Effect{Send{Chunk: &c}}
		}
	case PhaseCompleted:
		return []Effect{s.send(s.commit())}
	}
	return nil
}
