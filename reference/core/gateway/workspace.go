package gateway

import (
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// workspaceResults are the result types routed to a WorkspaceWaiter by (type, id); the
// suspension replies route the same way (one waiter per request id).
var workspaceResults = map[string]bool{
	proto.TypeEnvironmentQuiesced:   true,
	proto.TypeEnvironmentResumed:    true,
	proto.TypeWorkspaceReadResult:   true,
	proto.TypeWorkspaceWriteResult:  true,
	proto.TypeWorkspaceExportResult: true,
}

type workKey struct{ typ, id string }

// WorkspaceWaiter receives the results of one workspace operation (a read, a write's receipts, an
// export's chunks) in order, until the operation closes it or the connection ends
// (ErrSessionClosed: the outcome is unknown).
type WorkspaceWaiter struct {
	Type, ID string
	s        *stream
}

// Events is closed when the waiter ends; then read Err.
func (w *WorkspaceWaiter) Events() <-chan Event { return w.s.ch }

// Err says why Events closed: nil after Close, ErrSessionClosed or ErrSubscriberOverflow.
func (w *WorkspaceWaiter) Err() error { return w.s.error() }

// Close ends the waiter: later results of the operation are dropped.
func (w *WorkspaceWaiter) Close() { w.s.end(nil) }

// Delivered counts what the waiter has put on Events, its close included.
func (w *WorkspaceWaiter) Delivered() uint64 { return w.s.deliveries() }

// workspaceBuffer holds the receipts of one operation: Core sends one request at a time and the
// Runtime answers each once, so a few frames are the most that can queue.
const workspaceBuffer = 16

// AwaitWorkspace routes the results of type resultType with envelope id to a waiter; register it
// before sending the operation's first request. A duplicate is refused locally.
func (s *Session) AwaitWorkspace(resultType, id string) (*WorkspaceWaiter, error) {
	if !workspaceResults[resultType] {
		return nil, fmt.Errorf("%s is not a workspace result", resultType)
	}
	k := workKey{resultType, id}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	if s.works == nil {
		s.works = map[workKey]*WorkspaceWaiter{}
	}
	if _, dup := s.works[k]; dup {
		return nil, fmt.Errorf("%s %s: %w", resultType, id, ErrDuplicate)
	}
	w := &WorkspaceWaiter{Type: resultType, ID: id}
	w.s = newStream(workspaceBuffer, func() {
		s.mu.Lock()
		if s.works[k] == w {
			delete(s.works, k)
		}
		s.mu.Unlock()
	})
	s.works[k] = w
	return w, nil
}

// dispatchWorkspace routes a workspace result; an invalid payload is delivered with the rule it
// broke (the operation decides: never a rejection). It reports whether env was a workspace result.
func (s *Session) dispatchWorkspace(env proto.Envelope, frame *proto.Frame, perr error) bool {
	if !workspaceResults[env.Type] {
		return false
	}
	if perr != nil {
		if f, ok := lenientWorkspaceResult(env); ok {
			frame, perr = f, nil
		}
	} else if err := workspaceResultAtLimit(env, frame); err != nil {
		frame, perr = nil, err
	}
	if mutation.On(mutation.LongTraceReplyDropped) && env.Type == proto.TypeWorkspaceReadResult && len(env.Trace) > proto.TraceEchoMaxChars {
		s.log.Debug("dropping a read reply with a trace over 256 characters", "id", env.ID)
		return true
	}
	s.mu.Lock()
	w := s.works[workKey{env.Type, env.ID}]
	if w == nil && (env.Type == proto.TypeEnvironmentQuiesced || env.Type == proto.TypeEnvironmentResumed) {
		w = suspensionReplyByType(s.works, env.Type)
	}
	s.mu.Unlock()
	if w == nil {
		s.log.Debug("dropping a workspace result nobody waits for", "type", env.Type, "id", env.ID)
		return true
	}
	ev := Event{Envelope: env, Frame: frame, Invalid: perr, Seq: s.inbound}
	if perr != nil {
		ev.Frame = nil
	}
	w.s.deliver(ev, false)
	return true
}

// endWorkspace ends every waiter when the connection closes.
func endWorkspace(works map[workKey]*WorkspaceWaiter) {
	for _, w := range works {
		w.s.end(ErrSessionClosed)
	}
}

// suspensionReplyByType is the su-reply-unknown-id-taken mutant's routing: a suspension reply whose
// id names no outstanding request goes to a waiter of its type anyway.
func suspensionReplyByType(works map[workKey]*WorkspaceWaiter, typ string) *WorkspaceWaiter {
	for k, w := range works {
		if k.typ == typ && mutation.On(mutation.SUReplyUnknownIDTaken) {
			return w
		}
	}
	return nil
}
