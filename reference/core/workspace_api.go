package core

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/execution/workspace"
	"github.com/wirecheck/wirecheck/reference/core/store"
)

// The workspace part of the JSON API (README "The reference Core"):
//
//	POST /api/v1/turns/{id}/workspace/read    {"key", "path", "operation"?, "max_bytes"?, "max_entries"?} → 202 the operation's record
//	POST /api/v1/turns/{id}/workspace/write   {"key", "path", "content" (base64, ≤ 5 MiB)} → 202 the operation's record
//	POST /api/v1/turns/{id}/workspace/export  {"key"} → 202 the operation's record
//	GET  /api/v1/turns/{id}/workspace         → the Turn's operations, oldest first
//	GET  /api/v1/workspace/{op}               → one operation's record
//	GET  /api/v1/workspace/{op}/content       → what it returned: a byte read's data, an export's tar archive
//
// A read goes to the Turn's Run while it runs, otherwise through a read-only preparation Core
// makes and releases itself; an export always does; a write goes to the Turn's Session once the
// Turn has finished. The record's state is pending, then completed, rejected (error_code, and a
// write_rejected reason), failed (an export or the read-only preparation, nothing changed) or
// unknown (write_unconfirmed, read_unconfirmed): an unknown write blocks the Session's next write
// and is never replayed; an unconfirmed read blocks further reads on its owner. The record is
// settled only once a read-only preparation Core used is released: cleanup is
// cleanup_unconfirmed when released did not come (the state stays the operation's own). One write and one
// export per connection at a time (409 write_in_progress, export_in_progress). The key is the
// caller's idempotency key: the same key and request answer the operation already recorded;
// another request under it is 409 workspace_conflict.

// WorkspaceRequestBody is the body of a workspace read, write or export.
type WorkspaceRequestBody struct {
	Key        string `json:"key"`
	Path       string `json:"path,omitempty"`
	Operation  string `json:"operation,omitempty"`
	MaxBytes   int    `json:"max_bytes,omitempty"`
	MaxEntries int    `json:"max_entries,omitempty"`
	Content    string `json:"content,omitempty"` // base64
}

// Workspace starts a workspace operation on a Turn's workspace (see execution.Engine.Workspace).
func (c *Core) Workspace(req execution.WorkspaceRequest) (*store.WorkspaceOp, error) {
	return c.engine.Workspace(req)
}

// WorkspaceOp returns a workspace operation's record with what it returned.
func (c *Core) WorkspaceOp(id string) (*store.WorkspaceOp, error) { return c.engine.WorkspaceOp(id) }

// WorkspaceOps lists a Turn's workspace operations.
func (c *Core) WorkspaceOps(turnID string) ([]*store.WorkspaceOp, error) {
	return c.engine.WorkspaceOps(turnID)
}

func (c *Core) registerWorkspaceAPI(mux *http.ServeMux) {
	for _, kind := range []string{workspace.Read, workspace.Write, workspace.Export} {
		mux.HandleFunc("POST /api/v1/turns/{id}/workspace/"+kind, func(w http.ResponseWriter, r *http.Request) { c.apiWorkspace(w, r, kind) })
	}
	mux.HandleFunc("GET /api/v1/turns/{id}/workspace", c.apiWorkspaceOps)
	mux.HandleFunc("GET /api/v1/workspace/{op}", c.apiWorkspaceOp)
	mux.HandleFunc("GET /api/v1/workspace/{op}/content", c.apiWorkspaceContent)
}

func (c *Core) apiWorkspace(w http.ResponseWriter, r *http.Request, kind string) {
	id := r.PathValue("id")
	var body WorkspaceRequestBody
	if !decodeBody(w, r, &body) {
		return
	}
	req := execution.WorkspaceRequest{TurnID: id, Key: body.Key, Kind: kind, Path: body.Path, Operation: body.Operation,
		MaxBytes: body.MaxBytes, MaxEntries: body.MaxEntries}
	if kind == workspace.Write {
		content, err := base64.StdEncoding.DecodeString(body.Content)
		if err != nil {
			replyError(w, http.StatusBadRequest, "invalid_workspace_request", "content: "+err.Error())
			return
		}
		req.Content = content
	}
	op, err := c.Workspace(req)
	var denied *execution.DeniedError
	switch {
	case errors.As(err, &denied):
		reply(w, http.StatusUnprocessableEntity, APIError{Error: "admission_denied", Detail: denied.Decision.String(), Missing: denied.Decision.Missing})
	case errors.Is(err, execution.ErrNotFound):
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
	case errors.Is(err, execution.ErrInvalid):
		replyError(w, http.StatusBadRequest, "invalid_workspace_request", err.Error())
	case errors.Is(err, execution.ErrNoEnvironment):
		replyError(w, http.StatusUnprocessableEntity, "no_environment", err.Error())
	case errors.Is(err, execution.ErrDeviceOffline):
		replyError(w, http.StatusConflict, "device_offline", err.Error())
	case err != nil:
		replyError(w, http.StatusConflict, workspaceRefusal(err), strings.TrimSpace(err.Error()))
	default:
		reply(w, http.StatusAccepted, op)
	}
}

// workspaceRefusal names a refusal inside Core.
func workspaceRefusal(err error) string {
	for _, e := range []struct {
		err  error
		code string
	}{
		{execution.ErrWriteInProgress, "write_in_progress"},
		{execution.ErrExportInProgress, "export_in_progress"},
		{execution.ErrWriteUnconfirmed, "write_unconfirmed"},
		{execution.ErrReadUnconfirmed, "read_unconfirmed"},
		{execution.ErrTurnActive, "turn_active"},
		{execution.ErrWorkspaceConflict, "workspace_conflict"},
		{execution.ErrEnvironmentUnprepared, "environment_unprepared"},
	} {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	return "internal"
}

// WorkspaceRefusal is the API's code for a refusal of Workspace ("" for none).
func WorkspaceRefusal(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, execution.ErrInvalid) {
		return "invalid_workspace_request" // as apiWorkspace answers it
	}
	return workspaceRefusal(err)
}

func (c *Core) apiWorkspaceOps(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := c.Turn(id); err != nil {
		replyError(w, http.StatusNotFound, "unknown_turn", "no Turn "+id)
		return
	}
	ops, err := c.WorkspaceOps(id)
	if err != nil {
		replyError(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	reply(w, http.StatusOK, ops)
}

func (c *Core) apiWorkspaceOp(w http.ResponseWriter, r *http.Request) {
	op, err := c.WorkspaceOp(r.PathValue("op"))
	if err != nil {
		replyError(w, http.StatusNotFound, "unknown_workspace_operation", err.Error())
		return
	}
	reply(w, http.StatusOK, op)
}

func (c *Core) apiWorkspaceContent(w http.ResponseWriter, r *http.Request) {
	op, err := c.WorkspaceOp(r.PathValue("op"))
	if err != nil {
		replyError(w, http.StatusNotFound, "unknown_workspace_operation", err.Error())
		return
	}
	if op.State != workspace.StateCompleted || op.Kind == workspace.Write || op.Directory != nil {
		replyError(w, http.StatusConflict, "no_content", "the operation returned no bytes (state "+op.State+")")
		return
	}
	ct := "application/octet-stream"
	if op.Kind == workspace.Export {
		ct = "application/x-tar"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(op.Data)
}

// AwaitWorkspace routes a workspace operation's results to the engine.
func (s sessionConn) AwaitWorkspace(resultType, id string) (execution.Stream, error) {
	w, err := s.Session.AwaitWorkspace(resultType, id)
	if err != nil {
		return nil, err
	}
	return w, nil
}
