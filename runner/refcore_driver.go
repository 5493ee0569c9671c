package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/internal/sockwatch"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
	"github.com/wirecheck/wirecheck/scriptedruntime"
)

// refCoreDriver is the CoreDriver of the reference Core in process. A core step's frame (resolved
// against the bindings so far) says what Core must do:
//
//	execution_prepare    start a Turn with that configuration, unless a Turn is still in flight
//	                     (then Core sends it on its own: a retry). The Turn's input is taken from
//	                     the scenario's next execution_start step (Begin looks ahead).
//	execution_start      nothing: Core starts by itself once the admission is ready
//	execution_release    cancel the Turn before start (Core abandons the admission)
//	prompt_cancel        cancel the Turn of that Run
//	prompt_steer         deliver active input to the Turn of that Run (see steer in refcore_input.go):
//	                     a new input_id delivers it and every later new one, as a caller queues
//	                     them; an input_id already delivered is a resend Core makes on its own
//	permission_decision, prompt_for_user_choice_decision, function_result
//	                     answer the interaction through the API (see answer in
//	                     refcore_interactions.go): the payload without delivery_id and call_id is
//	                     the caller's answer; Core sends it, one decision at a time
//	device_shutdown      shut the device down
//	runtime_prepare      nothing: Core prepares every connection on its own, as Begin configured
//	                     it (see refcore_prepare.go); the first one starts the scenario's Turn
//	workspace_*, and execution_prepare with workspace_read_only
//	                     a caller's workspace read, write or export (see refcore_workspace.go)
//	environment_quiesce, environment_resume
//	                     a caller's suspend or resume (see refcore_suspend.go)
//
// check.preparation reads the preparation result Core recorded last. A check whose run is still an unbound placeholder (Core chose the Run ID but never sent it,
// because the Turn ended before start) names the Turn the scenario started.
// disconnect {by: core, code: 4001} retires the device; another code closes its connection with
// it; stopped: true shuts Core's gateway down (it closes every connection as it chooses); no code
// means Core closes on its own (an invalid heartbeat, the liveness timeout). Checks
// read the Turn records and the capability snapshot, waiting (bounded by ctx) for them to hold.
// advance moves the Core's virtual clock. restart closes the Core (core.Close: its runners stop
// before its connections close, as at a process exit) and opens a new one over the same bbolt
// file, clocks and listener; Open reconciles what the stopped one left in flight.
type refCoreDriver struct {
	Core  *core.Core
	Clock *clock.Fake
	// Transport runs Core's per-frame write deadline (nil: the wall clock's).
	Transport *clock.Fake
	// Sockets watches the connections Core accepted (nil: none are watched).
	Sockets  *sockwatch.Watcher
	DeviceID string
	// restart stops Core and starts a new one over the same records (referenceCore.restart);
	// nil: this Core cannot be restarted.
	restart func() (*core.Core, error)

	sc     *scenarios.Scenario
	turnID string
	inputs map[string]bool // the input_id templates delivered through the API
	// cancelled are the Turns a check.cancel cancelled through the API: a later execution_release
	// or prompt_cancel step is then what Core sends for that cancellation, not another one.
	cancelled map[string]bool
	// answered are the interactions answered through the API (see answer in
	// refcore_interactions.go).
	answered map[string]bool
	// prepTriggered: the first runtime_prepare step was seen (see refcore_prepare.go).
	prepTriggered bool
	// prepRefused is Core's refusal of the preparation the scenario's frames describe, which
	// fails the first runtime_prepare step (refcore_prepare.go).
	prepRefused error
	// ops are the workspace operations started through the API, by their frames' id as written;
	// readOnly says Core has made a read-only preparation (refcore_workspace.go).
	ops      map[string]string
	readOnly bool
	refusals int
	// suspensions are the suspension requests made through the API, by their frame's id as
	// written; suspendEnv the Environment last named (refcore_suspend.go).
	suspensions map[string]string
	suspendEnv  string
}

// Begin keeps the scenario so later triggers can look ahead.
func (d *refCoreDriver) Begin(_ context.Context, sc *scenarios.Scenario) error {
	d.sc, d.turnID, d.prepTriggered, d.prepRefused = sc, "", false, nil
	d.inputs, d.answered, d.cancelled = map[string]bool{}, map[string]bool{}, map[string]bool{}
	d.ops, d.readOnly, d.refusals = map[string]string{}, false, 0
	d.suspensions, d.suspendEnv = map[string]string{}, ""
	return d.configurePreparation(sc)
}

// Advance moves the Core's clock, once Core has handled everything already routed to its Turns
// (so the clock never overtakes a timer Core is about to arm). That wait is for an event, bounded
// only by driverWait: a Core still busy then is noted on the driver's log and the clock moves.
func (d *refCoreDriver) Advance(dur time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), driverWait)
	defer cancel()
	if err := d.Core.Quiesce(ctx); err != nil {
		slog.Warn("the reference Core did not handle what was routed to its Turns before the clock moved", "advance", dur, "err", err)
	}
	d.Clock.Advance(dur)
}

// AdvanceTransport moves Core's transport clock (the scripted Runtime calls it with an advance
// step while it has stopped reading) once a write deadline falls due in that span: a write blocked
// on the stalled socket has armed one.
func (d *refCoreDriver) AdvanceTransport(dur time.Duration) {
	if d.Transport != nil {
		d.Transport.AdvanceWhenDue(dur, time.Second)
	}
}

// AwaitReadAll returns once every connection Core accepted has a read waiting on an empty receive
// queue: Core has routed every frame the scripted Runtime sent (advance).
func (d *refCoreDriver) AwaitReadAll(ctx context.Context) error {
	if d.Sockets == nil {
		return errors.ErrUnsupported
	}
	return d.Sockets.AwaitReadAll(ctx)
}

// AwaitBlockedWrite returns once a write of Core is blocked in its kernel (await_stall): its
// per-frame write deadline was armed before the write began, so the advance that follows finds it.
func (d *refCoreDriver) AwaitBlockedWrite(ctx context.Context) error {
	if d.Sockets == nil {
		return errors.ErrUnsupported
	}
	return d.Sockets.AwaitBlockedWrite(ctx)
}

// Trigger makes the reference Core send the frames of a core step.
func (d *refCoreDriver) Trigger(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) error {
	for _, f := range st.Frames() {
		if err := d.trigger(ctx, f, b); err != nil {
			return err
		}
	}
	return nil
}

func (d *refCoreDriver) trigger(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) error {
	if handled, err := d.workspaceTrigger(ctx, st, b); handled || err != nil {
		return err
	}
	if handled, err := d.suspendTrigger(ctx, st, b); handled || err != nil {
		return err
	}
	switch st.Frame.Type {
	case proto.TypeExecutionPrepare:
		if d.turnID != "" {
			if t, err := d.Core.Turn(d.turnID); err == nil && t.Outcome == nil {
				return nil // the Turn is in flight: Core prepares again on its own
			}
		}
		return d.startTurn(ctx, st, b)
	case proto.TypeExecutionStart:
		return nil
	case proto.TypeRuntimePrepare:
		return d.triggerPrepare(ctx, st, b)
	case proto.TypeExecutionRelease:
		if d.turnID == "" {
			return errors.New("execution_release before any Turn was started")
		}
		if d.cancelled[d.turnID] {
			return nil // a check.cancel asked for it: Core releases once it knows the handle
		}
		return d.Core.CancelTurn(d.turnID)
	case proto.TypePromptCancel:
		id, err := resolveString(st.Frame.ID, b)
		if err != nil {
			return err
		}
		t, err := d.Core.TurnByRun(id)
		if err != nil {
			return fmt.Errorf("prompt_cancel for run %s: %w", id, err)
		}
		if d.cancelled[t.ID] {
			return nil
		}
		return d.Core.CancelTurn(t.ID)
	case proto.TypePromptSteer:
		return d.steer(st, b)
	case proto.TypePermissionDecision, proto.TypePromptForUserChoiceDecision, proto.TypeFunctionResult:
		return d.answer(ctx, st, b)
	case proto.TypeDeviceShutdown:
		var p proto.DeviceShutdownPayload
		if st.Frame.Payload != nil {
			if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
				return err
			}
		}
		return d.Core.ShutdownDevice(d.DeviceID, p.Reason)
	case proto.TypePromptRequest:
		return fmt.Errorf("the reference Core starts every Turn through preparation; prompt_request is never a fallback: %w", scriptedruntime.ErrNotApplicable)
	}
	return fmt.Errorf("the reference Core does not send %s yet (a later issue adds that family): %w", st.Frame.Type, scriptedruntime.ErrNotApplicable)
}

func (d *refCoreDriver) startTurn(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) error {
	var p struct {
		Configuration json.RawMessage `json:"configuration"`
	}
	if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
		return err
	}
	var cfg proto.PromptRequestPayload
	if err := json.Unmarshal(p.Configuration, &cfg); err != nil {
		return fmt.Errorf("the configuration of %s: %w", st.Pos, err)
	}
	cfg = callerConfiguration(cfg)
	env := store.EnvironmentNone
	if cfg.LocalEnvironment != nil {
		env = store.EnvironmentSelfHosted
	}
	input, err := d.lookaheadInput(st, b)
	if err != nil {
		return err
	}
	if err := d.awaitCapabilities(ctx); err != nil {
		return err
	}
	t, err := d.Core.StartTurn(execution.StartRequest{DeviceID: d.DeviceID, Configuration: cfg, Environment: env, Input: input})
	if err != nil {
		return err
	}
	d.turnID = t.ID
	return nil
}

// lookaheadInput takes the input of the first execution_start after st, else the scenario's
// turn_input var, else a default text.
func (d *refCoreDriver) lookaheadInput(st *scenarios.Step, b *scenarios.Bindings) (proto.MessageInput, error) {
	for _, later := range d.sc.Steps {
		if later.Index <= st.Index {
			continue
		}
		for _, f := range later.Frames() {
			if f.From != proto.Core || f.Frame.Type != proto.TypeExecutionStart || f.Frame.Payload == nil {
				continue
			}
			var p struct {
				Input proto.MessageInput `json:"input"`
			}
			if err := decodeTemplate(f.Frame.Payload, b, &p); err != nil {
				return nil, err
			}
			return p.Input, nil
		}
	}
	if v, ok := d.sc.Vars["turn_input"]; ok {
		// A Turn that never starts has no execution_start to read its input from: the scenario's
		// turn_input var gives it.
		var in proto.MessageInput
		if err := decodeTemplate(v, b, &in); err != nil {
			return nil, fmt.Errorf("vars.turn_input: %w", err)
		}
		return in, nil
	}
	return proto.TextInput("hello"), nil
}

// awaitCapabilities waits until the device is connected and has heartbeated: device selection
// needs a snapshot, and nothing may be inferred before one.
func (d *refCoreDriver) awaitCapabilities(ctx context.Context) error {
	for {
		changed := d.Core.Changed()
		if _, known := d.Core.Capabilities(d.DeviceID); known {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("device %s never declared its capabilities", d.DeviceID)
		}
	}
}

// awaitOnline waits until Core has a live connection of the device.
func (d *refCoreDriver) awaitOnline(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, driverWait)
	defer cancel()
	for {
		changed := d.Core.Changed()
		if d.Core.Online(d.DeviceID) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("the reference Core has no connection of device %s to close (waited %v)", d.DeviceID, driverWait)
		}
	}
}

// Disconnect makes the reference Core close the Runtime's transport.
func (d *refCoreDriver) Disconnect(ctx context.Context, c *scenarios.CloseSpec) error {
	if c.Stopped {
		d.Core.CloseConnections() // Core shuts down: it closes on its own, as it chooses
		return nil
	}
	if c.Code == 0 {
		return nil // Core closes on its own; the scripted Runtime checks that it did
	}
	// The daemon's upgrade completes before Core has registered its Session: a close ordered in
	// between would find no connection to close.
	if err := d.awaitOnline(ctx); err != nil {
		return err
	}
	switch c.Code {
	case proto.CloseRuntimeDeleted:
		return d.Core.RetireDevice(d.DeviceID)
	default:
		return d.Core.CloseDevice(d.DeviceID, c.Code, c.Reason)
	}
}

// Restart stops the reference Core as a process exit does and starts a new one over the same
// bbolt file; the driver drives the new one from then on. What the driver keeps of the scenario
// (the Turn it started, the operations by their keys) is a caller's, and stays: those records are
// durable.
func (d *refCoreDriver) Restart(context.Context) error {
	if d.restart == nil {
		return fmt.Errorf("this reference Core is not restartable: %w", scriptedruntime.ErrNotApplicable)
	}
	c, err := d.restart()
	if err != nil {
		return fmt.Errorf("the reference Core did not start again: %w", err)
	}
	d.Core = c
	return nil
}

// Check answers a Core-side check from the reference Core's records.
func (d *refCoreDriver) Check(ctx context.Context, c *scenarios.Check, b *scenarios.Bindings) error {
	if c.Input != nil && c.Input.Gives != nil {
		return d.inputGiven(ctx, c.Input, b)
	}
	for {
		changed := d.Core.Changed()
		ok, state, err := d.holds(c, b)
		if err != nil || ok {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("%s does not hold: %s", c, state)
		}
	}
}

// holds reports whether a check holds now; err is set when it can no longer hold.
func (d *refCoreDriver) holds(c *scenarios.Check, b *scenarios.Bindings) (bool, string, error) {
	switch {
	case c.Capabilities != nil:
		var k *proto.SupportedAgentKind
		if hb, known := d.Core.Capabilities(d.DeviceID); known {
			k = hb.Kind(c.Capabilities.Kind)
		}
		ok, got := c.Capabilities.Judge(k)
		return ok, got, nil
	case c.Workspace != nil:
		return d.workspaceHolds(c.Workspace, b)
	case c.Suspension != nil:
		return d.suspensionHolds(c.Suspension, b)
	case c.Subagents != nil:
		return d.subagentsHold(c.Subagents, b)
	case c.Journal != nil:
		return d.journalHolds(c.Journal, b)
	case c.Interaction != nil:
		return d.answerRefused(c.Interaction, b)
	case c.Interactions != nil:
		return d.interactionsHold(c.Interactions, b)
	case c.Decision != nil:
		return d.decisionHolds(c.Decision, b)
	case c.Start != nil:
		return d.startRefused(c.Start, b)
	case c.Admission != nil:
		return d.admissionHolds(c.Admission)
	case c.Cancel != nil:
		return d.cancelHolds(c.Cancel, b)
	case c.Input != nil:
		return d.inputRefused(c.Input, b)
	case c.Turn != nil:
		t, missing, err := d.turnOf(c.Turn.Run, b)
		if t == nil {
			return false, missing, err
		}
		if t.Outcome == nil {
			return false, "the Turn is in phase " + t.Phase, nil
		}
		o := t.Outcome
		got := fmt.Sprintf("status %s, reason %q, engine %q, preparation code %q (%s)", o.Status, o.Reason, o.EngineErrorCode, o.PreparationErrorCode, o.Error)
		engineOK := o.EngineErrorCode == c.Turn.Engine
		if m := c.Turn.EngineOneOf; m != nil {
			engineOK = slices.Contains(m.OneOf, scenarios.Value(o.EngineErrorCode))
		}
		if o.Status != c.Turn.Status || o.Reason != c.Turn.Reason || !engineOK ||
			(c.Turn.PreparationCode != "" && o.PreparationErrorCode != c.Turn.PreparationCode) {
			return false, got, fmt.Errorf("the Turn's outcome is %s", got)
		}
		if err := outcomeRecord(c.Turn, o, b); err != nil {
			return false, got, fmt.Errorf("the Turn's outcome (%s): %w", got, err)
		}
		return true, got, nil
	case c.Preparation != nil:
		return d.preparationHolds(c.Preparation, b)
	}
	return false, "", fmt.Errorf("unknown check: %w", scriptedruntime.ErrNotApplicable)
}

// cancelHolds answers check.cancel: the first time, a caller cancels the Turn through the API
// (which must take it); the check holds once the Turn's record says so: the cancellation is
// requested, or (a Turn that had sent nothing) the Turn has ended already.
func (d *refCoreDriver) cancelHolds(c *scenarios.CancelCheck, b *scenarios.Bindings) (bool, string, error) {
	t, missing, err := d.turnOf(c.Run, b)
	if t == nil {
		return false, missing, err
	}
	if !d.cancelled[t.ID] {
		if err := d.Core.CancelTurn(t.ID); err != nil {
			return false, "", fmt.Errorf("the reference Core refused to cancel Turn %s: %w", t.ID, err)
		}
		d.cancelled[t.ID] = true
		return false, "the cancellation was just requested", nil
	}
	if !t.CancelRequested && t.Outcome == nil {
		return false, "the Turn has not recorded the cancellation, in phase " + t.Phase, nil
	}
	return true, "cancel requested", nil
}

// outcomeRecord compares the outcome's usage snapshot and content with the check, when it names them.
func outcomeRecord(c *scenarios.TurnCheck, o *store.Outcome, b *scenarios.Bindings) error {
	if c.Content != nil && o.Content != *c.Content {
		return fmt.Errorf("content is %q, want %q", o.Content, *c.Content)
	}
	if c.Error != nil && o.Error != *c.Error {
		return fmt.Errorf("error is %q, want the error frame's text %q (clause PJ-08.2)", o.Error, *c.Error)
	}
	if c.EngineHTTPStatus != nil && o.EngineHTTPStatus != *c.EngineHTTPStatus {
		return fmt.Errorf("engine_http_status is %d, want %d (rule EF-03)", o.EngineHTTPStatus, *c.EngineHTTPStatus)
	}
	if c.Usage == nil {
		return nil
	}
	if o.Usage == nil {
		return errors.New("usage: no snapshot recorded")
	}
	raw, err := json.Marshal(o.Usage)
	if err != nil {
		return err
	}
	got, err := scenarios.DecodeJSON(raw)
	if err != nil {
		return err
	}
	if m := readOnly(b).Match(c.Usage, got); m != nil {
		m.Path = strings.TrimSuffix("usage."+m.Path, ".")
		return fmt.Errorf("%w (recorded %s)", m, raw)
	}
	return nil
}

// readOnly copies the bindings so resolving a template never binds a Core-chosen value early.
func readOnly(b *scenarios.Bindings) *scenarios.Bindings {
	out := scenarios.NewBindings()
	for k, raw := range b.Snapshot() {
		v, err := scenarios.DecodeJSON([]byte(raw))
		if err == nil {
			out.Bind(k, v)
		}
	}
	return out
}

// keep leaves an unbound placeholder as it is written: Core chooses that value itself.
func keep(name, _ string) scenarios.Value { return "${" + name + "}" }

func decodeTemplate(tmpl scenarios.Value, b *scenarios.Bindings, out any) error {
	v, err := readOnly(b).Resolve(tmpl, keep, nil)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

func resolveString(tmpl scenarios.Value, b *scenarios.Bindings) (string, error) {
	var s string
	if err := decodeTemplate(tmpl, b, &s); err != nil {
		return "", err
	}
	return s, nil
}

// subagentsHold answers check.subagents: the sub-agent frames the Turn of the Run recorded, in
// order, against the check's list. It waits while the Turn runs (frames may still come) and fails
// once the Turn has ended without them.
func (d *refCoreDriver) subagentsHold(c *scenarios.SubagentsCheck, b *scenarios.Bindings) (bool, string, error) {
	t, missing, err := d.turnOf(c.Run, b)
	if t == nil {
		return false, missing, err
	}
	recorded := t.Subagents
	if recorded == nil {
		recorded = []store.SubagentEvent{}
	}
	raw, err := json.Marshal(recorded)
	if err != nil {
		return false, "", err
	}
	got, err := scenarios.DecodeJSON(raw)
	if err != nil {
		return false, "", err
	}
	m := readOnly(b).Match(scenarios.Value(c.Frames), got)
	if m == nil {
		return true, "", nil
	}
	m.Path = "subagents" + m.Path // the list's own path is "", an element's "[i]..."
	state := fmt.Sprintf("%s (recorded %s)", m, raw)
	if t.Outcome != nil {
		return false, state, fmt.Errorf("the Turn ended with other sub-agent frames: %s", state)
	}
	return false, state, nil
}

// startRefused answers check.start: a caller starts a Turn now with the check's configuration
// (an Environment of type none unless it binds local_environment, a text input), and Core must
// refuse it inside itself with the check's API code (api.go: invalid_turn, admission_denied).
func (d *refCoreDriver) startRefused(c *scenarios.StartCheck, b *scenarios.Bindings) (bool, string, error) {
	var cfg proto.PromptRequestPayload
	if err := decodeTemplate(c.Configuration, b, &cfg); err != nil {
		return false, "", fmt.Errorf("check.start.configuration: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), interactionWait)
	defer cancel()
	if err := d.awaitCapabilities(ctx); err != nil {
		return false, "", err
	}
	env := store.EnvironmentNone
	if cfg.LocalEnvironment != nil {
		env = store.EnvironmentSelfHosted
	}
	t, err := d.Core.StartTurn(execution.StartRequest{DeviceID: d.DeviceID, Configuration: cfg, Environment: env, Input: proto.TextInput("hello")})
	var denied *execution.DeniedError
	got := "internal"
	switch {
	case err == nil:
		return false, "", fmt.Errorf("the reference Core started Turn %s (run %s) instead of refusing it with %s", t.ID, t.RunID, c.Code)
	case errors.As(err, &denied):
		got = "admission_denied"
	case errors.Is(err, execution.ErrDeviceOffline):
		got = "device_offline"
	case errors.Is(err, execution.ErrInvalid):
		got = "invalid_turn"
	}
	if got != c.Code {
		return false, "", fmt.Errorf("the reference Core refused the start with %s (%v), want %s", got, err, c.Code)
	}
	if denied != nil && len(c.Missing) > 0 && !slices.Equal(denied.Decision.Missing, c.Missing) {
		return false, "", fmt.Errorf("the reference Core denied the start for missing %v, want %v", denied.Decision.Missing, c.Missing)
	}
	return true, "refused " + got, nil
}
