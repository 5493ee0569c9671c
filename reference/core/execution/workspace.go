package execution

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution/workspace"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// Errors of Workspace. Each is a refusal inside Core: nothing reached the Runtime.
var (
	// ErrNoEnvironment: the Turn's Session has no Environment (type none): it has no workspace.
	ErrNoEnvironment = errors.New("the Turn's Session has no Environment binding")
	// ErrWriteInProgress / ErrExportInProgress: the connection already carries one (one write and
	// one export per connection at a time).
	ErrWriteInProgress  = errors.New("a workspace write is in progress on this connection")
	ErrExportInProgress = errors.New("a workspace export is in progress on this connection")
	// ErrWriteUnconfirmed: an earlier write on the Session has an unknown outcome; the gate stays
	// until it is settled, and the write is never replayed.
	ErrWriteUnconfirmed = errors.New("an earlier workspace write on this Session is unconfirmed")
	// ErrReadUnconfirmed: an earlier read on the same owner ended read_unconfirmed.
	ErrReadUnconfirmed = errors.New("an earlier workspace read on this owner is unconfirmed")
	// ErrTurnActive: a write or an export waits until the Turn has finished (the Runtime excludes
	// execution while it receives or applies a write); a read needs a started Run or none.
	ErrTurnActive = errors.New("the Turn is in flight")
	// ErrWorkspaceConflict: the key was used for another request.
	ErrWorkspaceConflict = errors.New("the key was used for another workspace request")
	// ErrEnvironmentUnprepared: the connection's Environment preparation (runtime_prepare) has
	// not completed: the Runtime would refuse the operation (resource_unavailable), and no work is
	// admitted before it.
	ErrEnvironmentUnprepared = errors.New("the connection's Environment preparation has not completed")
	// ErrNoOperation: no operation of that ID.
	ErrNoOperation = errors.New("no such workspace operation")
)

// WorkspaceConn is a live connection that routes workspace results.
type WorkspaceConn interface {
	Conn
	// ID is the connection's generation: one write and one export per connection.
	ID() uint64
	AwaitWorkspace(resultType, id string) (Stream, error)
}

// WorkspaceRequest is a caller's read, write or export of a Turn's workspace. A read goes to the
// Turn's Run while it runs, otherwise (like a write's and an export's) to the Turn's Session: a
// read and an export through a read-only preparation Core makes and releases itself.
type WorkspaceRequest struct {
	TurnID string
	// Key is the caller's idempotency key: the same key and request answer the operation already
	// recorded, never a second one; another request under it is ErrWorkspaceConflict.
	Key  string
	Kind string // workspace.Read, Write, Export
	Path string
	// Read: Operation "" (bytes, MaxBytes 1 B–1 MiB) or "directory" (MaxEntries 1–1024).
	Operation  string
	MaxBytes   int
	MaxEntries int
	// Write: the whole body (at most 5 MiB inline).
	Content []byte
}

// workspaces tracks the running operations of an Engine.
type workspaces struct {
	mu      sync.Mutex
	runners map[string]*wsRunner
	writing map[uint64]string // connection → the write holding its slot
	export  map[uint64]string // connection → the export holding its slot
}

func (w *workspaces) init() {
	if w.runners == nil {
		w.runners, w.writing, w.export = map[string]*wsRunner{}, map[uint64]string{}, map[uint64]string{}
	}
}

// Workspace starts a caller's workspace operation and returns its record (pending, or the record
// already kept under the key). Its outcome is the record's state once settled (WorkspaceOp).
func (e *Engine) Workspace(req WorkspaceRequest) (*store.WorkspaceOp, error) {
	if err := checkWorkspaceRequest(req); err != nil {
		return nil, err
	}
	t, err := e.cfg.Store.Turn(req.TurnID)
	if err != nil {
		return nil, fmt.Errorf("turn %s: %w", req.TurnID, ErrNotFound)
	}
	sess, err := e.cfg.Store.Session(t.SessionID)
	if err != nil {
		return nil, fmt.Errorf("the Session of turn %s: %w", t.ID, err)
	}
	if sess.Configuration.LocalEnvironment == nil {
		return nil, fmt.Errorf("turn %s: %w", t.ID, ErrNoEnvironment)
	}
	e.ws.mu.Lock()
	defer e.ws.mu.Unlock()
	e.ws.init()
	if op, err := e.byKey(req); op != nil || err != nil {
		return op, err
	}
	op, spec, err := e.planWorkspace(req, t, sess)
	if err != nil {
		return nil, err
	}
	c, ok := e.cfg.Conns.Conn(t.DeviceID)
	if !ok {
		return nil, fmt.Errorf("device %s: %w", t.DeviceID, ErrDeviceOffline)
	}
	conn, ok := c.(WorkspaceConn)
	if !ok {
		return nil, fmt.Errorf("device %s: the connection routes no workspace results", t.DeviceID)
	}
	if err := e.mayTakeWorkspace(t.DeviceID, conn, sess, spec); err != nil {
		return nil, err
	}
	if err := e.gates(conn, op); err != nil {
		return nil, err
	}
	// Reserved durably before anything reaches the Runtime.
	if err := e.cfg.Store.PutWorkspaceOp(op); err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return op, nil // reserved: the next ReconcileWorkspace settles it
	}
	e.wg.Add(1)
	e.mu.Unlock()
	r := newWSRunner(e, conn, op, spec)
	e.ws.runners[op.ID] = r
	switch op.Kind {
	case workspace.Write:
		e.ws.writing[conn.ID()] = op.ID
	case workspace.Export:
		e.ws.export[conn.ID()] = op.ID
	}
	go func() {
		defer e.wg.Done()
		defer func() {
			e.ws.mu.Lock()
			delete(e.ws.runners, op.ID)
			e.ws.mu.Unlock()
			e.parkedChanged()
		}()
		r.loop()
	}()
	return op, nil
}

func checkWorkspaceRequest(req WorkspaceRequest) error {
	if strings.TrimSpace(req.Key) == "" || len(req.Key) > MaxInputKeyBytes {
		return fmt.Errorf("%w: the key must be non-blank and at most %d bytes", ErrInvalid, MaxInputKeyBytes)
	}
	switch req.Kind {
	case workspace.Read:
		p := proto.WorkspaceReadPayload{RunID: "target", EnvironmentID: "env", Path: req.Path, Operation: req.Operation,
			MaxBytes: req.MaxBytes, MaxEntries: req.MaxEntries}
		if err := readRequestShape(p, p.Validate()); err != nil {
			return fmt.Errorf("%w: read: %v", ErrInvalid, err)
		}
	case workspace.Write:
		if len(req.Content) > workspace.PublicWriteBytes {
			return fmt.Errorf("%w: write: the content is %d bytes, more than the %d inline bound", ErrInvalid, len(req.Content), workspace.PublicWriteBytes)
		}
		if err := writeRequestShape(req.Path, req.Content, proto.CheckWorkspaceRelativePath("path", req.Path, false)); err != nil {
			return fmt.Errorf("%w: write: %v", ErrInvalid, err)
		}
	case workspace.Export:
		if req.Path != "" || req.Content != nil {
			return fmt.Errorf("%w: an export takes no path or content (it is the workspace's outputs)", ErrInvalid)
		}
	default:
		return fmt.Errorf("%w: kind must be read, write or export", ErrInvalid)
	}
	return nil
}

// byKey answers a repeated key: the operation already recorded, or a conflict.
func (e *Engine) byKey(req WorkspaceRequest) (*store.WorkspaceOp, error) {
	ops, err := e.cfg.Store.WorkspaceOps()
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		if op.TurnID != req.TurnID || op.Key != req.Key {
			continue
		}
		full, err := e.cfg.Store.WorkspaceOp(op.ID)
		if err != nil {
			return nil, err
		}
		if !sameRequest(full, req) {
			return nil, fmt.Errorf("key %q: %w", req.Key, ErrWorkspaceConflict)
		}
		return full, nil
	}
	return nil, nil
}

func sameRequest(op *store.WorkspaceOp, req WorkspaceRequest) bool {
	same := op.Kind == req.Kind && op.Path == req.Path
	switch req.Kind {
	case workspace.Read:
		return same && op.Operation == req.Operation && op.MaxBytes == req.MaxBytes && op.MaxEntries == req.MaxEntries
	case workspace.Write:
		return same && op.SHA256 == (&workspace.Spec{Content: req.Content}).Sha256() && op.SizeBytes == int64(len(req.Content))
	}
	return same
}

// planWorkspace chooses the target and builds the operation's record and spec.
func (e *Engine) planWorkspace(req WorkspaceRequest, t *store.Turn, sess *store.Session) (*store.WorkspaceOp, *workspace.Spec, error) {
	live := t.Outcome == nil && t.Phase != store.PhaseDone
	spec := &workspace.Spec{Kind: req.Kind, ID: NewID(), EnvironmentID: sess.Configuration.LocalEnvironment.ID, SessionID: sess.ID}
	// A Runtime is bound to the (environment_id, session_id) its Environment was prepared with
	// (runtime_prepare begin) and refuses a write naming another. Where the device prepares that
	// Environment, its write names the preparation's Session, not the Turn's own record.
	if id, ok := e.boundSession(t.DeviceID, spec.EnvironmentID); ok {
		spec.SessionID = id
	}
	switch req.Kind {
	case workspace.Read:
		if mutation.On(mutation.WSCoreReadIDFromKey) {
			spec.ID = "read-" + t.ID + "-" + req.Key
		}
	case workspace.Write:
		if mutation.On(mutation.WSCoreWriteIDUpperCase) {
			spec.ID = strings.ToUpper(spec.ID)
		}
	case workspace.Export:
		if mutation.On(mutation.WSCoreExportIDNotUUID) {
			spec.ID = "export-" + spec.ID[:8]
		}
	}
	runRead := req.Kind == workspace.Read && live && t.Phase == store.PhaseRunning
	switch {
	case runRead && !mutation.On(mutation.WSCoreRunReadThroughPreparation):
		spec.RunID = t.RunID
	case live && !runRead:
		return nil, nil, fmt.Errorf("turn %s is %s: %w", t.ID, t.Phase, ErrTurnActive)
	case req.Kind != workspace.Write:
		spec.PrepareID = NewID()
		spec.Prepare = readOnlyPreparation(sess)
		if err := spec.Prepare.CheckReadOnlyPreparation(); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	spec.Read = proto.WorkspaceReadPayload{Path: req.Path, Operation: req.Operation, MaxBytes: req.MaxBytes, MaxEntries: req.MaxEntries}
	if req.Kind == workspace.Read {
		if err := checkReadRequestSize(spec); err != nil {
			return nil, nil, err
		}
	}
	spec.Path, spec.Content = req.Path, bytes.Clone(req.Content)
	op := &store.WorkspaceOp{ID: spec.ID, Kind: req.Kind, Key: req.Key, TurnID: t.ID, SessionID: sess.ID, DeviceID: t.DeviceID,
		RunID: spec.RunID, PrepareID: spec.PrepareID, Path: req.Path, Operation: req.Operation, MaxBytes: req.MaxBytes,
		MaxEntries: req.MaxEntries, State: workspace.StatePending}
	if req.Kind == workspace.Write {
		op.SizeBytes, op.SHA256 = int64(len(req.Content)), spec.Sha256()
	}
	return op, spec, nil
}

// readHandleReserve stands in for the handle of a read-only preparation, which the Runtime names
// only later: a handle is a correlation ID of at most 128 bytes.
var readHandleReserve = strings.Repeat("h", proto.CorrelationIDMaxBytes)

// checkReadRequestSize refuses a read whose workspace_read payload would exceed 8 KiB (WS-02):
// the Runtime rejects such a request, so Core never sends it. The size is the payload as sent,
// JSON escapes included, with the real Run and Environment IDs (the longest handle for a read
// through a preparation).
func checkReadRequestSize(spec *workspace.Spec) error {
	if mutation.On(mutation.WorkspaceReadSizeUnchecked) {
		return nil
	}
	p := spec.Read
	p.RunID, p.EnvironmentID = spec.RunID, spec.EnvironmentID
	if p.RunID == "" {
		p.Handle = readHandleReserve
	}
	raw, err := json.Marshal(&p) // as proto.NewEnvelope encodes it
	if err != nil || len(raw) <= proto.WorkspaceReadMaxRequestBytes {
		return err
	}
	return fmt.Errorf("%w: read: the workspace_read payload would be %d bytes, more than the %d a request may carry (WS-02)",
		ErrInvalid, len(raw), proto.WorkspaceReadMaxRequestBytes)
}

// readOnlyPreparation is the read-only profile of a Session (protocol-facts §4.3): its bound
// Environment and resource identity, nothing that could run a model or a tool.
func readOnlyPreparation(sess *store.Session) *proto.ExecutionPreparePayload {
	c := sess.Configuration
	return &proto.ExecutionPreparePayload{SessionID: sess.ID, Configuration: proto.PromptRequestPayload{
		AgentKind: c.AgentKind, LocalEnvironment: c.LocalEnvironment, AgentStateKey: proto.StateKeyFor(sess.ID),
		StrictResume: true, ReleaseOnCompletion: true, WorkspaceReadOnly: true}}
}

// mayTakeWorkspace is the connection's admission of a workspace operation, as for a Turn: the
// connection's Environment preparation completed, and a capability snapshot known that declares
// what the operation needs on the Session's Harness kind.
func (e *Engine) mayTakeWorkspace(deviceID string, conn Conn, sess *store.Session, spec *workspace.Spec) error {
	if ok, state := e.preparedOn(deviceID, conn); !ok {
		return fmt.Errorf("%w (%s)", ErrEnvironmentUnprepared, state)
	}
	hb, known := conn.Capabilities()
	cfg := sess.Configuration
	req := policy.Request{Configuration: &cfg, Environment: sess.EnvironmentType, IdleDirectoryRead: spec.RunID == "" && spec.Kind == workspace.Read}
	if d := e.cfg.Policy.Evaluate(req, hb, known); d.Verdict != policy.Allow {
		return &DeniedError{Decision: d}
	}
	return nil
}

// gates refuses what the protocol's ownership forbids: a second write or export on the
// connection, a write after an unconfirmed one on the Session, a read on an owner whose read is
// unconfirmed. Called with e.ws.mu held.
func (e *Engine) gates(conn WorkspaceConn, op *store.WorkspaceOp) error {
	switch op.Kind {
	case workspace.Write:
		if id, busy := e.ws.writing[conn.ID()]; busy && !mutation.On(mutation.WriteNotExclusive) {
			return fmt.Errorf("%w (%s)", ErrWriteInProgress, id)
		}
	case workspace.Export:
		if id, busy := e.ws.export[conn.ID()]; busy && !mutation.On(mutation.ExportNotExclusive) {
			return fmt.Errorf("%w (%s)", ErrExportInProgress, id)
		}
	}
	ops, err := e.cfg.Store.WorkspaceOps()
	if err != nil {
		return err
	}
	for _, old := range ops {
		if old.SessionID != op.SessionID || old.State != workspace.StateUnknown {
			continue
		}
		switch {
		case op.Kind == workspace.Write && old.Kind == workspace.Write && old.Detail == restartedDetail &&
			mutation.On(mutation.WSCoreRestartedWriteUngated):
		case op.Kind == workspace.Write && old.Kind == workspace.Write && !mutation.On(mutation.UnknownWriteUngated):
			return fmt.Errorf("%w (%s)", ErrWriteUnconfirmed, old.ID)
		case op.Kind == workspace.Read && old.Kind == workspace.Read && old.RunID == op.RunID &&
			!mutation.On(mutation.ReadAfterReadUnconfirmed):
			return fmt.Errorf("%w (%s)", ErrReadUnconfirmed, old.ID)
		}
	}
	return nil
}

// WorkspaceOp returns an operation's record with what it returned.
func (e *Engine) WorkspaceOp(id string) (*store.WorkspaceOp, error) {
	op, err := e.cfg.Store.WorkspaceOp(id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id, ErrNoOperation)
	}
	return op, nil
}

// WorkspaceOps lists the operations of a Turn, oldest first.
func (e *Engine) WorkspaceOps(turnID string) ([]*store.WorkspaceOp, error) {
	ops, err := e.cfg.Store.WorkspaceOps()
	if err != nil {
		return nil, err
	}
	out := []*store.WorkspaceOp{}
	for _, op := range ops {
		if op.TurnID == turnID {
			out = append(out, op)
		}
	}
	return out, nil
}

// ReconcileWorkspace settles what a previous process left pending: a write is unknown
// (write_unconfirmed, its Session's gate kept), a read read_unconfirmed, an export failed.
func (e *Engine) ReconcileWorkspace() ([]string, error) {
	return e.cfg.Store.ReconcileWorkspace(func(kind string) (string, string) {
		switch kind {
		case workspace.Write:
			if mutation.On(mutation.WSCoreRestartedWriteRejected) {
				return workspace.StateRejected, proto.CodeWriteRejected
			}
			return workspace.StateUnknown, proto.CodeWriteUnconfirmed
		case workspace.Read:
			return workspace.StateUnknown, proto.CodeReadUnconfirmed
		}
		return workspace.StateFailed, workspace.CodeExportInterrupted
	})
}

// restartedDetail is the detail ReconcileWorkspace gives what it settles (store.ReconcileWorkspace).
const restartedDetail = "Core restarted before the operation's result"

// settled frees the connection's slot of a write or an export. An unknown write keeps it while
// its connection lives: the Runtime may still hold it.
func (e *Engine) settled(conn WorkspaceConn, op *store.WorkspaceOp) {
	e.ws.mu.Lock()
	defer e.ws.mu.Unlock()
	switch op.Kind {
	case workspace.Write:
		if op.State == workspace.StateRejected && mutation.On(mutation.WSCoreRejectedWriteHoldsSlot) {
			return
		}
		if op.State != workspace.StateUnknown && e.ws.writing[conn.ID()] == op.ID {
			delete(e.ws.writing, conn.ID())
		}
	case workspace.Export:
		if op.State == workspace.StateFailed && mutation.On(mutation.WSCoreFailedExportHoldsSlot) {
			return
		}
		if e.ws.export[conn.ID()] == op.ID {
			delete(e.ws.export, conn.ID())
		}
	}
}

// workspaceIdle reports whether every workspace operation waits with nothing on its way to it.
func (e *Engine) workspaceIdle() bool {
	e.ws.mu.Lock()
	runners := make([]*wsRunner, 0, len(e.ws.runners))
	for _, r := range e.ws.runners {
		runners = append(runners, r)
	}
	e.ws.mu.Unlock()
	for _, r := range runners {
		if !r.idle() {
			return false
		}
	}
	return true
}
