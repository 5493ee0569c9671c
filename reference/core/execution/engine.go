package execution

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/turn"
	"github.com/wirecheck/wirecheck/reference/core/gateway"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Stream is a subscription as the engine consumes it.
type Stream interface {
	Events() <-chan gateway.Event
	Err() error
	Close()
	// Delivered counts the events put on Events and its close: what the runner has not taken
	// yet is still being handled, whatever the channel's length says.
	Delivered() uint64
}

// Conn is one live daemon connection as the engine uses it.
type Conn interface {
	Capabilities() (*proto.HeartbeatPayload, bool)
	Send(ctx context.Context, env proto.Envelope) error
	SubscribeDurable(runID string) (Stream, error)
	SubscribePreparation(requestID string) (Stream, error)
	AwaitAck(deliveryID string) (Stream, error)
}

// Connections finds a device's live connection.
type Connections interface {
	Conn(deviceID string) (Conn, bool)
}

// Config configures an Engine.
type Config struct {
	Store  *store.Store
	Conns  Connections
	Policy *policy.Policy
	Clock  clock.Clock
	Logger *slog.Logger
	// RetryBackoff is the first wait before a Turn left unclaimed (preparation_capacity, device
	// offline) is claimed again; it doubles up to MaxRetryBackoff. Defaults 1 s and 30 s.
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// OnChange is called after every committed change of a Turn.
	OnChange func(turnID string)
	// OnEvent is called after a frame received for a Turn has been journalled (committed):
	// in-process observers see it only once it is durable.
	OnEvent func(turnID string, ev store.Event)
}

// Engine owns every running Turn.
type Engine struct {
	cfg    Config
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	runners map[string]*runner
	closed  bool
	parked  chan struct{} // closed and replaced whenever a runner parks

	env environments // the connections' Environment preparations (environment.go)
	ws  workspaces   // workspace operations (workspace.go)
	su  suspensions  // suspension requests (suspension.go)
}

// Errors of Start and Cancel.
var (
	ErrDeviceOffline = errors.New("the device has no live connection")
	ErrInvalid       = errors.New("invalid Turn request")
	ErrNotFound      = errors.New("no such Turn")
	ErrFinished      = errors.New("the Turn already has an outcome")
	ErrClosed        = errors.New("the engine is closed")
)

// DeniedError is a DENY at device selection: no Turn was recorded, no other Harness is chosen.
type DeniedError struct{ Decision policy.Decision }

func (e *DeniedError) Error() string { return "admission denied: " + e.Decision.String() }

// New returns an Engine.
func New(cfg Config) *Engine {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Policy == nil {
		cfg.Policy = policy.New()
	}
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = time.Second
	}
	if cfg.MaxRetryBackoff == 0 {
		cfg.MaxRetryBackoff = 30 * time.Second
	}
	if cfg.OnChange == nil {
		cfg.OnChange = func(string) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Engine{cfg: cfg, log: cfg.Logger, ctx: ctx, cancel: cancel, runners: map[string]*runner{}, parked: make(chan struct{}),
		env: environments{byDevice: map[string]connPrep{}, preparers: map[*preparer]struct{}{}}}
}

// Reconcile settles the Turns a previous process left in flight (see ReconcileOutcome). Call it
// once, before starting anything.
func (e *Engine) Reconcile() ([]store.InFlight, error) {
	settled, err := e.cfg.Store.ReconcileWith(ReconcileSettlement)
	if len(settled) > 0 {
		e.log.Warn("settled the Turns a previous process left in flight", "turns", len(settled))
		e.cfg.OnChange("")
	}
	return settled, err
}

// Close stops every runner. Turns still in flight keep their committed phase: the next Reconcile
// settles them.
func (e *Engine) Close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
}

// StartRequest starts one Turn on a device.
type StartRequest struct {
	DeviceID string
	// Configuration is the Agent configuration as Core resolved it (PromptRequestPayload-shaped,
	// agent_options passed through unchanged). Core sets what it owns: the Session's state key,
	// strict resume, the environment opt-in, and no Run identity or input.
	Configuration proto.PromptRequestPayload
	Environment   string
	Input         proto.MessageInput
	// Trace is the traceparent of the admission that asked for the Turn (empty when tracing is
	// off): the Turn's span is its child.
	Trace string
}

// Start records a Session and a queued Turn and runs it. Admission is evaluated here (device
// selection) and again right before the Turn is claimed.
func (e *Engine) Start(req StartRequest) (*store.Turn, error) {
	e.mu.Lock()
	closed := e.closed
	e.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if err := req.Input.Validate(); err != nil {
		return nil, fmt.Errorf("%w: input: %v", ErrInvalid, err)
	}
	if !policy.KnownEnvironment(req.Environment) {
		return nil, fmt.Errorf("%w: environment %q must be none, openai_hosted or self_hosted", ErrInvalid, req.Environment)
	}
	if mutation.On(mutation.InputTextTrimmed) {
		req.Input = trimmedInput(req.Input)
	}
	if mutation.On(mutation.ImagePaddingStripped) {
		req.Input = unpaddedImages(req.Input)
	}
	sessionID := NewID()
	cfg, err := prepareConfiguration(req, sessionID)
	if err != nil {
		return nil, err
	}
	conn, ok := e.cfg.Conns.Conn(req.DeviceID)
	if !ok {
		return nil, fmt.Errorf("device %s: %w", req.DeviceID, ErrDeviceOffline)
	}
	hb, known := conn.Capabilities()
	d := e.cfg.Policy.Evaluate(e.policyRequest(req, cfg), hb, known)
	if d.Verdict != policy.Allow && mutation.On(mutation.CNRefusedTurnMovedToOtherKind) && cnOtherKind(&cfg, hb, d.Missing) {
		d.Verdict = policy.Allow
	}
	if d.Verdict != policy.Allow && !mutation.On(mutation.SelectionUnchecked) {
		return nil, &DeniedError{Decision: d}
	}
	// The opt-ins follow the declaration Core selected the device with, once (CN-33).
	policy.OptIns(&cfg, policy.KindDeclaration(hb, cfg.AgentKind))
	t := &store.Turn{ID: NewID(), SessionID: sessionID, DeviceID: req.DeviceID, AgentKind: cfg.AgentKind,
		EnvironmentType: req.Environment, RunID: NewID(), Phase: store.PhaseQueued, Input: req.Input}
	sess := &store.Session{ID: sessionID, DeviceID: req.DeviceID, EnvironmentType: req.Environment, Configuration: cfg}
	if err := e.cfg.Store.CreateTurn(sess, t, store.Event{Kind: store.EventTransition, Type: "→" + store.PhaseQueued}); err != nil {
		return nil, err
	}
	r := newRunner(e, t, &turn.Spec{SessionID: sessionID, RunID: t.RunID, Configuration: cfg,
		Environment: req.Environment, Input: req.Input, Policy: e.cfg.Policy,
		RetryBackoff: e.cfg.RetryBackoff, MaxRetryBackoff: e.cfg.MaxRetryBackoff})
	r.parentTrace = req.Trace
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return t, nil // recorded and queued: the next Reconcile settles it
	}
	e.runners[t.ID] = r
	e.wg.Add(1)
	e.mu.Unlock()
	e.cfg.OnChange(t.ID)
	go func() {
		defer e.wg.Done()
		defer func() {
			e.mu.Lock()
			delete(e.runners, t.ID)
			e.mu.Unlock()
			e.parkedChanged() // a Quiesce that counted this runner looks again
		}()
		r.loop()
	}()
	return t, nil
}

func (e *Engine) policyRequest(req StartRequest, cfg proto.PromptRequestPayload) policy.Request {
	cfg = turn.ToolSearchUnjudged(cfg)
	return policy.Request{Configuration: &cfg, Environment: req.Environment, Input: req.Input}
}

// unvalidatedTools is the configuration as the function-tool mutants validate it (FN-01, FN-02):
// without its tools' shapes, or without the tool_search pairing. Otherwise cfg itself.
func unvalidatedTools(cfg proto.PromptRequestPayload) proto.PromptRequestPayload {
	tools := append([]proto.FunctionTool(nil), cfg.FunctionTools...)
	for i := range tools {
		if mutation.On(mutation.FunctionToolShapeUnchecked) {
			tools[i].Parameters = json.RawMessage(`{}`)
		}
		if strings.TrimSpace(tools[i].Name) == "" && mutation.On(mutation.FNCoreBlankToolName) {
			tools[i].Name = "t" + strconv.Itoa(i)
		}
	}
	cfg.FunctionTools = tools
	deferred := slices.ContainsFunc(cfg.FunctionTools, func(t proto.FunctionTool) bool { return t.DeferLoading })
	if cfg.ToolSearch && !deferred && mutation.On(mutation.ToolSearchPairingUnchecked) {
		cfg.ToolSearch = false
	}
	if !cfg.ToolSearch && deferred && mutation.On(mutation.FNCoreDeferredWithoutSearch) {
		cfg.ToolSearch = true
	}
	return cfg
}

// prepareConfiguration builds the immutable Session configuration execution_prepare carries.
func prepareConfiguration(req StartRequest, sessionID string) (proto.PromptRequestPayload, error) {
	cfg := req.Configuration
	if strings.TrimSpace(cfg.AgentKind) == "" {
		return cfg, fmt.Errorf("%w: configuration.agent_kind is required", ErrInvalid)
	}
	cfg.ConversationID, cfg.RunID, cfg.Input = "", "", nil
	cfg.WorkspaceAuthoring = false
	cfg.AgentStateKey = proto.StateKeyFor(sessionID)
	cfg.StrictResume = true
	switch req.Environment {
	case policy.EnvironmentNone:
		if cfg.LocalEnvironment != nil {
			return cfg, fmt.Errorf("%w: an Environment of type none has no local_environment binding", ErrInvalid)
		}
		cfg.DisableExecutionEnvironment = true
	default:
		if cfg.LocalEnvironment == nil {
			return cfg, fmt.Errorf("%w: an Environment of type %s needs its local_environment binding", ErrInvalid, req.Environment)
		}
		cfg.DisableExecutionEnvironment = false
	}
	p := proto.ExecutionPreparePayload{SessionID: sessionID, Configuration: unvalidatedTools(cfg)}
	if err := p.Validate(); err != nil {
		return cfg, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := p.CheckPrepareConfiguration(); err != nil {
		return cfg, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	return configurationMutants(cfg), nil
}

// configurationMutants plays the mutants of the configuration's shape (AD-60, AD-62); with none
// active it returns cfg as the caller resolved it.
func configurationMutants(cfg proto.PromptRequestPayload) proto.PromptRequestPayload {
	if mutation.On(mutation.ZeroSubagentsDropped) && cfg.MaxConcurrentSubagents != nil && *cfg.MaxConcurrentSubagents == 0 {
		cfg.MaxConcurrentSubagents = nil
	}
	if mutation.On(mutation.AgentOptionsAsString) && len(cfg.AgentOptions) > 0 {
		cfg.AgentOptions = json.RawMessage(strconv.Quote(string(cfg.AgentOptions)))
	}
	if mutation.On(mutation.MCPAllowedToolsNullAsEmpty) || mutation.On(mutation.MCPServiceOriginDefaulted) {
		servers := slices.Clone(cfg.MCPHTTPServers)
		for i := range servers {
			if mutation.On(mutation.MCPAllowedToolsNullAsEmpty) && servers[i].AllowedTools == nil {
				servers[i].AllowedTools = []string{}
			}
			if mutation.On(mutation.MCPServiceOriginDefaulted) && servers[i].ConnectionOrigin == proto.MCPOriginService {
				servers[i].ConnectionOrigin = ""
			}
		}
		cfg.MCPHTTPServers = servers
	}
	return cfg
}

// unpaddedImages drops the base64 padding of every inline image (the ImagePaddingStripped mutant).
func unpaddedImages(in proto.MessageInput) proto.MessageInput {
	out := make(proto.MessageInput, len(in))
	for i, m := range in {
		parts := make([]proto.InputContent, len(m.Content))
		for j, c := range m.Content {
			c.ImageURL = strings.TrimRight(c.ImageURL, "=")
			parts[j] = c
		}
		m.Content = parts
		out[i] = m
	}
	return out
}

// Cancel asks a Turn to stop. Before start Core abandons the admission (execution_release) and the
// Turn is cancelled; after start it sends prompt_cancel and the receipt decides the outcome.
func (e *Engine) Cancel(turnID string) error {
	r, err := e.runner(turnID)
	if err != nil {
		return err
	}
	r.requests.Add(1)
	select {
	case r.cancelReq <- struct{}{}:
	default: // a cancellation is already pending
		r.requests.Add(-1)
	}
	return nil
}

// Context is cancelled when the engine closes.
func (e *Engine) Context() context.Context { return e.ctx }

func (e *Engine) parkedChanged() {
	e.mu.Lock()
	close(e.parked)
	e.parked = make(chan struct{})
	e.mu.Unlock()
}

// Quiesce waits until every runner waits with nothing queued: every frame already routed to a
// Turn and every timer already fired has been handled. A virtual clock is advanced only then, so
// an `advance` never overtakes a timer Core was about to arm.
func (e *Engine) Quiesce(ctx context.Context) error {
	for {
		e.mu.Lock()
		ch := e.parked
		runners := make([]*runner, 0, len(e.runners))
		for _, r := range e.runners {
			runners = append(runners, r)
		}
		e.mu.Unlock()
		idle := e.preparersIdle()
		for _, r := range runners {
			if !r.idle() {
				idle = false
				break
			}
		}
		if idle && e.workspaceIdle() && e.suspensionsIdle() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// trimmedInput is the input-text-trimmed mutant's input: every text part trimmed.
func trimmedInput(in proto.MessageInput) proto.MessageInput {
	out := make(proto.MessageInput, len(in))
	for i, m := range in {
		parts := make([]proto.InputContent, len(m.Content))
		for j, c := range m.Content {
			c.Text = strings.TrimSpace(c.Text)
			parts[j] = c
		}
		out[i] = proto.InputMessage{Content: parts}
	}
	return out
}
