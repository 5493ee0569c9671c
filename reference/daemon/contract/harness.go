package contract

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/environment"
	"github.com/wirecheck/wirecheck/reference/daemon/harness"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// Harness is the contract Harness. Capabilities is its declaration; every timer reads Clock.
type Harness struct {
	Clock clock.Clock
	Caps  proto.AgentKindCapabilities
}

// New returns a contract Harness declaring caps.
func New(c clock.Clock, caps proto.AgentKindCapabilities) *Harness {
	return &Harness{Clock: c, Caps: caps}
}

func (h *Harness) Kind() string                              { return Kind }
func (h *Harness) Version() string                           { return "contract-1" }
func (h *Harness) Available() bool                           { return true }
func (h *Harness) Capabilities() proto.AgentKindCapabilities { return h.Caps }
func (h *Harness) sleep(ctx context.Context, ms int) error {
	return clock.Sleep(ctx, h.Clock, time.Duration(ms)*time.Millisecond)
}

// sleepHeld is sleep whose wake holds a virtual clock (clock.SleepHeld) until the Turn next
// blocks or its end is taken up.
func (h *Harness) sleepHeld(ctx context.Context, ms int) (*clock.Hold, error) {
	return clock.SleepHeld(ctx, h.Clock, time.Duration(ms)*time.Millisecond)
}

// ErrSetup is the scripted native setup failure.
var ErrSetup = errors.New("contract: scripted native setup failure")

// NewExecutor runs the scripted native setup.
func (h *Harness) NewExecutor(ctx context.Context, cfg *proto.PromptRequestPayload) (harness.Executor, error) {
	script, err := Parse(cfg.AgentOptions)
	if err != nil {
		return nil, err
	}
	e := &Executor{h: h, script: script, nativeSession: script.NativeSession, env: harness.EnvironmentFrom(ctx),
		observeMessages: cfg.ObserveMessages}
	if e.nativeSession == "" {
		e.nativeSession = cfg.AgentSessionID
	}
	if script.Setup != nil {
		if err := h.sleep(ctx, script.Setup.DelayMS); err != nil {
			return e, err
		}
		if script.Setup.Fail {
			return e, ErrSetup
		}
	}
	return e, nil
}

// Executor runs the Turns of one scripted configuration.
type Executor struct {
	h             *Harness
	script        *Script
	nativeSession string
	env           *environment.Environment // the Runtime's bound Environment (nil: none)
	// observeMessages: the configuration set observe_messages, so deltas are message items (§13).
	observeMessages bool
	mu              sync.Mutex
	closed          int
}

// ErrClose is the scripted cleanup failure.
var ErrClose = errors.New("contract: scripted close failure")

// Close takes close_delay_ms first; the wait is not interruptible (native cleanup runs to its end).
func (e *Executor) Close(context.Context) error {
	_ = e.h.sleep(context.Background(), e.script.CloseDelayMS)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed++
	if e.script.CloseFails {
		return ErrClose
	}
	return nil
}

// Closes reports how many times Close was called (tests check "closed exactly once").
func (e *Executor) Closes() int { e.mu.Lock(); defer e.mu.Unlock(); return e.closed }

func (e *Executor) NativeSessionID() string { return e.nativeSession }

func (e *Executor) Start(ctx context.Context, runID string, input proto.MessageInput) (harness.Turn, error) {
	ts := e.script.Turn
	if ts == nil {
		ts = &TurnScript{}
	}
	if ts.StartFails {
		return nil, harness.ErrNoTurn
	}
	t := &Turn{e: e, runID: runID, script: ts, events: make(chan harness.Event, 16), cancel: make(chan struct{}), settled: make(chan struct{}),
		pending: map[interactionKey]*waiting{}, outcomes: map[string]string{}, delivered: map[interactionKey]int{}, inputs: map[string]int{},
		ended: clock.HandoffFrom(ctx)}
	if ts.Input != nil && ts.Input.ReadyMS > 0 {
		t.readyAt = e.h.Clock.Now().Add(time.Duration(ts.Input.ReadyMS) * time.Millisecond)
		go t.awaitReady(e.h.Clock.NewTimer(time.Duration(ts.Input.ReadyMS) * time.Millisecond))
	}
	if err := e.h.sleep(ctx, ts.StartDelayMS); err != nil {
		// The Turn exists but its start was cancelled: it is cancelled at once, emits nothing and
		// settles as cancellation scripts it. The Turn is returned with the error.
		t.aborted = true
		t.once.Do(func() { close(t.cancel) })
		t.running = clock.HoldFor(e.h.Clock)
		go t.run()
		return t, err
	}
	t.running = clock.HoldFor(e.h.Clock)
	go t.run()
	return t, nil
}

// Turn is one scripted Turn. Its goroutine ends when the Turn settles.
type Turn struct {
	e      *Executor
	runID  string
	script *TurnScript
	events chan harness.Event
	cancel chan struct{} // closed when cancellation is requested
	once   sync.Once
	// running holds a virtual clock while run's goroutine is under way: from Start until it first
	// blocks (the timer of a first delay_ms is armed in it, and the started status goes out
	// meanwhile), and from each wake of a delay (or of the cancellation's settlement) until it
	// blocks again; a Turn that ends holding it gives it to ended.
	running *clock.Hold
	// ended is the Runtime's clock.Handoff (Start's context), which takes up the Turn's end.
	ended *clock.Handoff
	// cancelHold holds a virtual clock from the cancellation request until run has armed the
	// settlement's timer (cancel.settle_ms): an advance right after prompt_cancel must find it.
	cancelHold *clock.Hold
	settled    chan struct{} // closed when native work has settled
	result     harness.Result
	// aborted: the start was cancelled (turn.start_delay_ms); the Turn emits nothing.
	aborted bool
	// readyAt is turn.input.ready_ms after native start returned: input is written from then.
	readyAt time.Time
	// mu guards the interactions (those awaiting an answer, and the outcomes done reports), the
	// native deliveries and cancelHold.
	mu       sync.Mutex
	pending  map[interactionKey]*waiting
	outcomes map[string]string
	// delivered counts the answers handed to the native side per interaction the Turn emitted,
	// and inputs the native writes attempted per input_id (turn.report_deliveries).
	delivered map[interactionKey]int
	inputs    map[string]int
}

// awaitReady waits on timer, armed for readyAt, until it fires (or until the Turn settles). The clock alone decides
// readiness (isReady); the timer shows a virtual clock that the Turn waits for that moment, so an
// `advance` past it moves at once instead of waiting to see whether a timer comes due.
func (t *Turn) awaitReady(timer clock.Timer) {
	defer timer.Stop()
	select {
	case <-timer.C():
	case <-t.settled:
	}
}

func (t *Turn) isReady() bool { return !t.e.h.Clock.Now().Before(t.readyAt) }

func (t *Turn) Events() <-chan harness.Event { return t.events }
func (t *Turn) Result() harness.Result       { return t.result }

func (t *Turn) run() {
	defer close(t.settled)
	defer close(t.events)
	defer func() { t.ended.Give(t.running) }()
	cancelled := t.aborted || t.emitAll()
	if !cancelled && t.script.WaitForCancel {
		t.running.Release()
		<-t.cancel
		cancelled = true
	}
	if cancelled {
		// A cancelled Turn produces no terminal frame; it settles after the scripted delay.
		cs := t.e.script.Cancel
		settle := 0
		if cs != nil {
			settle = cs.SettleMS
		}
		t.mu.Lock()
		hold := t.cancelHold
		t.mu.Unlock()
		// The settlement's timer is what both the cancellation and the Turn's start wait for.
		t.running, _ = t.e.h.sleepHeld(clock.WithHold(clock.WithHold(context.Background(), t.running), hold), settle)
		t.result = harness.Result{Reusable: t.e.script.reusable()}
		return
	}
	done := &proto.DonePayload{Content: t.script.Content, Usage: t.script.Usage, Metadata: t.script.Metadata}
	t.mu.Lock()
	extra := maps.Clone(t.outcomes)
	if t.script.ReportDeliveries {
		maps.Copy(extra, t.deliveries())
	}
	t.mu.Unlock()
	if t.script.Inspect != nil {
		if extra == nil {
			extra = map[string]string{}
		}
		maps.Copy(extra, inspect(t.e.env, t.script.Inspect))
	}
	if len(extra) > 0 {
		// A copy: the script's map serves every Turn of the Executor.
		md := maps.Clone(done.Metadata)
		if md == nil {
			md = map[string]string{}
		}
		maps.Copy(md, extra)
		done.Metadata = md
	}
	if t.e.nativeSession != "" {
		if done.Metadata == nil {
			done.Metadata = map[string]string{}
		}
		if _, ok := done.Metadata[proto.MetaAgentSessionID]; !ok {
			done.Metadata[proto.MetaAgentSessionID] = t.e.nativeSession
		}
	}
	t.result = harness.Result{Done: done, Reusable: t.e.script.reusable()}
}

// emitAll emits the scripted events in order; it reports whether cancellation interrupted them.
func (t *Turn) emitAll() bool {
	var seq uint64
	msg := messages{turn: t}
	for _, step := range t.script.Events {
		if step.Delta == nil && step.DelayMS == nil && msg.close() {
			return true
		}
		var ev harness.Event
		switch {
		case step.DelayMS != nil:
			ctx, stop := context.WithCancel(clock.WithHold(context.Background(), t.running))
			go func() {
				select {
				case <-t.cancel:
					stop()
				case <-ctx.Done():
				}
			}()
			woke, err := t.e.h.sleepHeld(ctx, *step.DelayMS)
			stop()
			t.running = woke
			if err != nil {
				return true
			}
			continue
		case step.Permission != nil || step.UserChoice != nil || step.FunctionCall != nil:
			if t.interact(step) {
				return true
			}
			continue
		case step.Delta != nil:
			seq++
			itemID, cancelled := msg.add(*step.Delta)
			if cancelled {
				return true
			}
			ev = harness.Event{Type: proto.TypeDelta, Payload: &proto.DeltaPayload{ItemID: itemID, Delta: *step.Delta, Sequence: seq}}
		case step.Thinking != nil:
			ev = harness.Event{Type: proto.TypeThinking, Payload: &proto.ThinkingPayload{Text: *step.Thinking}}
		case step.OutputMessage != nil:
			ev = harness.Event{Type: proto.TypeOutputMessage, Payload: step.OutputMessage}
		case step.ToolCall != nil:
			ev = harness.Event{Type: proto.TypeToolCall, Payload: step.ToolCall}
		case step.Usage != nil:
			ev = harness.Event{Type: proto.TypeUsage, Payload: &proto.UsagePayload{Usage: *step.Usage}}
		case step.Error != nil:
			ev = harness.Event{Type: proto.TypeError, Payload: step.Error}
		default:
			// A sub-agent observation: a copy, since the script serves every Turn of the Executor.
			typ, p := step.subagent()
			ev = harness.Event{Type: typ, Payload: copySubagent(p)}
		}
		if !t.emit(ev) {
			return true
		}
	}
	return msg.close()
}

// emit sends one event; it reports false when cancellation came first.
func (t *Turn) emit(ev harness.Event) bool {
	select {
	case t.events <- ev:
		return true
	default:
		t.running.Release() // the Runtime is not taking events: this waits for it, not for the clock
	}
	select {
	case t.events <- ev:
		return true
	case <-t.cancel:
		return false
	}
}

// messages makes each run of consecutive delta steps (delay_ms steps between them included) one
// native message item when the configuration set observe_messages (docs/contract-harness.md §13):
// output_message in_progress, the deltas naming it in item_id, output_message completed with the
// full text. Without observe_messages deltas carry no item_id and no output_message is emitted.
type messages struct {
	turn *Turn
	n    int    // messages of the Turn so far
	id   string // the open message ("" if none)
	text strings.Builder
}

// add opens a message if none is open and appends a delta's text; it returns the item ID the delta
// names and whether cancellation interrupted the start frame.
func (m *messages) add(delta string) (string, bool) {
	if !m.turn.e.observeMessages && !mutation.On(mutation.RSMessagesWithoutOptIn) {
		return "", false
	}
	if m.id == "" {
		m.n++
		m.id = fmt.Sprintf("%s-msg-%d", m.turn.runID, m.n)
		m.text.Reset()
		if !mutation.On(mutation.MessageStartNotReported) &&
			!m.turn.emit(harness.Event{Type: proto.TypeOutputMessage, Payload: &proto.OutputMessagePayload{ID: m.id, Status: "in_progress"}}) {
			return "", true
		}
	}
	m.text.WriteString(delta)
	if mutation.On(mutation.MessageDeltaWithoutItemID) {
		return "", false
	}
	return m.id, false
}

// close completes the open message, if any; it reports whether cancellation came first.
func (m *messages) close() bool {
	if m.id == "" {
		return false
	}
	text := m.text.String()
	if mutation.On(mutation.MessageCompletedWithoutText) {
		text = ""
	}
	done := &proto.OutputMessagePayload{ID: m.id, Status: "completed", Text: &text}
	m.id = ""
	return !m.turn.emit(harness.Event{Type: proto.TypeOutputMessage, Payload: done})
}

// Cancel requests cancellation and waits for native settlement.
func (t *Turn) Cancel(ctx context.Context) (*proto.DonePayload, error) {
	cs := t.e.script.Cancel
	if cs != nil && cs.Fail {
		return nil, errors.New("contract: scripted cancellation failure")
	}
	t.once.Do(func() {
		t.mu.Lock()
		t.cancelHold = clock.HoldFor(t.e.h.Clock)
		t.mu.Unlock()
		close(t.cancel)
	})
	t.mu.Lock()
	hold := t.cancelHold
	t.mu.Unlock()
	defer hold.Release() // a Turn that settled on its own never armed the settlement
	clock.Armed(ctx)     // the caller's bound is armed
	select {
	case <-t.settled:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if cs == nil || cs.Outcome == nil {
		return nil, nil
	}
	return cs.Outcome, nil
}

// errBrokenWrite is the scripted broken native write (write_fails).
var errBrokenWrite = errors.New("contract: scripted broken native write")

// WriteInput writes one active input as turn.input scripts it (docs/contract-harness.md §3.2).
func (t *Turn) WriteInput(ctx context.Context, inputID string, _ proto.MessageInput) (<-chan error, error) {
	t.mu.Lock()
	t.inputs[inputID]++ // a native write attempt, whatever comes of it
	t.mu.Unlock()
	is := t.script.Input
	b := is.behaviour(inputID)
	switch {
	case is != nil && is.Unimplemented:
		return nil, harness.ErrInputUnimplemented
	case !t.isReady():
		return nil, harness.ErrInputNotReady
	case b.Reject:
		return nil, harness.ErrInputRejected
	case b.WriteHangs:
		clock.Armed(ctx) // the Runtime's bound on the write is armed: it is what ends this
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err := t.e.h.sleep(ctx, b.WriteMS); err != nil {
		return nil, err
	}
	if b.WriteFails {
		return nil, errBrokenWrite
	}
	verdict := make(chan error, 1)
	// The acceptance timer is armed before WriteInput returns, not in the goroutine: the written
	// receipt goes out on return, and an advance that follows it must find the timer.
	var accept clock.Timer
	if !b.NoAccept && b.AcceptMS > 0 {
		accept = t.e.h.Clock.NewTimer(time.Duration(b.AcceptMS) * time.Millisecond)
	}
	go t.consume(b, accept, verdict)
	return verdict, nil
}

// consume confirms (or refuses) a written input accept_ms after its write, unless the Turn settles
// first: a settled Turn consumes nothing more.
func (t *Turn) consume(b InputBehaviour, accept clock.Timer, verdict chan<- error) {
	if accept != nil {
		defer accept.Stop()
	}
	answer := error(nil)
	if b.RejectLate {
		answer = harness.ErrInputRejected
	}
	if b.NoAccept {
		<-t.settled
		verdict <- harness.ErrInputNotConsumed
		return
	}
	select {
	case <-t.settled:
		verdict <- harness.ErrInputNotConsumed
		return
	default:
	}
	if accept == nil {
		verdict <- answer
		return
	}
	select {
	case <-accept.C():
		verdict <- answer
	case <-t.settled:
		verdict <- harness.ErrInputNotConsumed
	}
}
