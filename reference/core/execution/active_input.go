package execution

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Errors of DeliverInput.
var (
	// ErrNotRunning: the Turn has not started, or is cancelling: it takes no input.
	ErrNotRunning = errors.New("the Turn takes no input in its phase")
	// ErrInputConflict: the key was used for other content.
	ErrInputConflict = errors.New("the key was used for other input")
	// ErrInputLimit: the Run has the most inputs a Runtime takes.
	ErrInputLimit = errors.New("the Run has too many inputs")
	// ErrInputUnsupported: the Turn's Runtime did not declare durable input receipts.
	ErrInputUnsupported = errors.New("the Runtime did not declare durable_input_receipts")
)

// MaxInputKeyBytes bounds the caller's idempotency key.
const MaxInputKeyBytes = 256

// inputRequest is DeliverInput's call to the runner.
type inputRequest = call[turn.InputRequested, store.Input]

// DeliverInput gives a running Turn one more active input under the caller's idempotency key: a
// repeated key with the same content returns the input already recorded, never a second one. The
// Turn sends its inputs one at a time (see package turn); the returned record is the input as the
// Turn holds it once the request was stepped (pending, or sent if it went out at once).
func (e *Engine) DeliverInput(turnID, key string, input proto.MessageInput) (store.Input, error) {
	if strings.TrimSpace(key) == "" || len(key) > MaxInputKeyBytes {
		return store.Input{}, fmt.Errorf("%w: the key must be non-blank and at most %d bytes", ErrInvalid, MaxInputKeyBytes)
	}
	if err := input.Validate(); err != nil && !mutation.On(mutation.InInputUnvalidated) {
		return store.Input{}, fmt.Errorf("%w: input: %v", ErrInvalid, err)
	}
	r, err := e.runner(turnID)
	if err != nil {
		return store.Input{}, err
	}
	return ask(r, turnID, r.inputReq, turn.InputRequested{Key: key, Input: input})
}

// A call is an API request a Turn's runner answers from its loop: the event to step, and where
// the answer goes.
type call[E, R any] struct {
	ev    E
	reply chan result[R]
}

type result[R any] struct {
	val R
	err error
}

// ask hands ev to r over ch and waits for the answer; a runner that stops first answers
// ErrFinished. The call counts as work for Quiesce until the runner has handled it.
func ask[E, R any](r *runner, turnID string, ch chan call[E, R], ev E) (R, error) {
	req := call[E, R]{ev: ev, reply: make(chan result[R], 1)}
	var none R
	r.requests.Add(1)
	select {
	case ch <- req:
	case <-r.stopped:
		r.requests.Add(-1)
		return none, fmt.Errorf("turn %s: %w", turnID, ErrFinished)
	}
	select {
	case rep := <-req.reply:
		return rep.val, rep.err
	case <-r.stopped:
		// The loop ended after taking the call: it answered it first, or never will.
		select {
		case rep := <-req.reply:
			return rep.val, rep.err
		default:
			return none, fmt.Errorf("turn %s: %w", turnID, ErrFinished)
		}
	}
}

// runner finds the runner of a Turn, or says why there is none. A Turn whose outcome is recorded
// is finished even while its runner is still on its way out.
func (e *Engine) runner(turnID string) (*runner, error) {
	t, err := e.cfg.Store.Turn(turnID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("turn %s: %w", turnID, ErrNotFound)
	case t.Outcome != nil:
		return nil, fmt.Errorf("turn %s: %w", turnID, ErrFinished)
	}
	e.mu.Lock()
	r := e.runners[turnID]
	e.mu.Unlock()
	if r == nil {
		return nil, fmt.Errorf("turn %s is not running in this process", turnID)
	}
	return r, nil
}

// onInput steps an API input request and answers it.
func (r *runner) onInput(req inputRequest) {
	err := r.feed(req.ev)
	var refused *turn.InputRefused
	var invalid *turn.InvalidTransition
	switch {
	case errors.As(err, &refused):
		err = fmt.Errorf("%w: %s", refusal(refused.Code), refused.Why)
	case errors.As(err, &invalid):
		err = fmt.Errorf("%w (phase %s)", ErrNotRunning, invalid.Phase)
	case err != nil:
		r.log.Error("the Turn refused an input", "error", err)
	}
	r.settle() // the caller hears what is durable
	in, _ := r.state.InputByKey(req.ev.Key)
	req.reply <- result[store.Input]{val: in, err: err}
}

func refusal(code string) error {
	switch code {
	case turn.RefusedConflict:
		return ErrInputConflict
	case turn.RefusedLimit:
		return ErrInputLimit
	default:
		return ErrInputUnsupported
	}
}
