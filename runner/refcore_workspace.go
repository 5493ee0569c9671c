package runner

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/execution/workspace"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The workspace cues of the reference Core's driver. A caller asks Core's API for a read, a
// write or an export and Core alone sends the frames, so a core workspace step says which call a
// caller made:
//
//	workspace_write begin      write the body that the step's later chunks (same id as written)
//	                           carry, concatenated, to the begin's path; chunks and commit are
//	                           Core's own
//	workspace_read  (run_id)   read the running Turn's workspace with the frame's path and bounds
//	execution_prepare with workspace_read_only
//	                           the read or export of the next core workspace_read/workspace_export
//	                           step (looking ahead, as for execution_start's input): Core makes
//	                           the read-only preparation itself, reads or exports through it and
//	                           releases it; those later steps, and the execution_release, are Core's
//	                           own
//	workspace_export next/cancel  Core's own
//
// The operation's caller key is its frames' id as written (a ${placeholder} or a literal):
// check.workspace names the operation by it. So what the scripted Runtime receives is what the
// API was given (the chunks are the body), and check.workspace's content compares what the API
// hands its caller with what the scripted Runtime sent.

// workspaceTrigger cues a workspace step; handled reports whether st was one.
func (d *refCoreDriver) workspaceTrigger(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) (handled bool, err error) {
	switch st.Frame.Type {
	case proto.TypeWorkspaceWrite:
		var p proto.WorkspaceWritePayload
		if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
			return true, err
		}
		if p.Step != proto.StepBegin {
			return true, nil
		}
		content, err := d.writeBody(st, b)
		if err != nil {
			return true, err
		}
		return true, d.startOp(ctx, st, execution.WorkspaceRequest{Kind: workspace.Write, Path: p.Path, Content: content})
	case proto.TypeWorkspaceRead:
		var p proto.WorkspaceReadPayload
		if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
			return true, err
		}
		if p.RunID == "" {
			return true, nil // through a read-only preparation: cued at its execution_prepare
		}
		return true, d.startOp(ctx, st, readRequest(p))
	case proto.TypeWorkspaceExport:
		return true, nil // cued at the read-only execution_prepare; next and cancel are Core's own
	case proto.TypeExecutionPrepare:
		var p proto.ExecutionPreparePayload
		if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
			return true, err
		}
		if !p.Configuration.WorkspaceReadOnly {
			return false, nil
		}
		d.readOnly = true
		op, err := d.readOnlyOp(st)
		if err != nil {
			return true, err
		}
		req := execution.WorkspaceRequest{Kind: workspace.Export}
		if op.Frame.Type == proto.TypeWorkspaceRead {
			var rp proto.WorkspaceReadPayload
			if err := decodeTemplate(op.Frame.Payload, b, &rp); err != nil {
				return true, err
			}
			req = readRequest(rp)
		}
		return true, d.startOp(ctx, op, req)
	case proto.TypeExecutionRelease:
		return d.readOnly, nil // Core releases its read-only preparations itself
	}
	return false, nil
}

func readRequest(p proto.WorkspaceReadPayload) execution.WorkspaceRequest {
	return execution.WorkspaceRequest{Kind: workspace.Read, Path: p.Path, Operation: p.Operation, MaxBytes: p.MaxBytes, MaxEntries: p.MaxEntries}
}

// startOp makes the caller's request, keyed by the step's id as written.
func (d *refCoreDriver) startOp(ctx context.Context, st *scenarios.Step, req execution.WorkspaceRequest) error {
	key, err := opKey(st)
	if err != nil {
		return err
	}
	if _, done := d.ops[key]; done {
		return nil
	}
	if d.turnID == "" {
		return fmt.Errorf("%s: a workspace %s before any Turn was started", st.Pos, req.Kind)
	}
	if err := d.awaitWorkspaceTarget(ctx, req.Kind); err != nil {
		return fmt.Errorf("%s: %w", st.Pos, err)
	}
	req.TurnID, req.Key = d.turnID, key
	op, err := d.Core.Workspace(req)
	if err != nil {
		return fmt.Errorf("%s: the workspace %s: %w", st.Pos, req.Kind, err)
	}
	d.ops[key] = op.ID
	return nil
}

// awaitWorkspaceTarget waits until the Turn can take the operation: running for a read of its
// Run, finished for anything through its Session (the Runtime's done reached Core before the
// step, but Core records it on its own time).
func (d *refCoreDriver) awaitWorkspaceTarget(ctx context.Context, kind string) error {
	ctx, cancel := context.WithTimeout(ctx, interactionWait)
	defer cancel()
	for {
		changed := d.Core.Changed()
		t, err := d.Core.Turn(d.turnID)
		if err != nil {
			return err
		}
		if t.Outcome != nil || (kind == workspace.Read && t.Phase == store.PhaseRunning) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("the Turn stayed in phase %s", t.Phase)
		}
	}
}

func opKey(st *scenarios.Step) (string, error) {
	id, ok := scenarios.Key(st.Frame.ID)
	if !ok {
		return "", fmt.Errorf("%s: a workspace step needs its id as a string (a literal or a ${placeholder}), or an $all whose first template is one", st.Pos)
	}
	return id, nil
}

// writeBody concatenates the data of every later core workspace_write chunk of the same id.
func (d *refCoreDriver) writeBody(begin *scenarios.Step, b *scenarios.Bindings) ([]byte, error) {
	key, err := opKey(begin)
	if err != nil {
		return nil, err
	}
	var body []byte
	for _, st := range d.coreFramesAfter(begin) {
		if st.Frame.Type != proto.TypeWorkspaceWrite {
			continue
		}
		if k, _ := opKey(st); k != key {
			continue
		}
		var p proto.WorkspaceWritePayload
		if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", st.Pos, err)
		}
		if p.Step == proto.StepChunk {
			body = append(body, p.Data...)
		}
	}
	return body, nil
}

// readOnlyOp is the first core workspace_read or workspace_export step after st.
func (d *refCoreDriver) readOnlyOp(st *scenarios.Step) (*scenarios.Step, error) {
	for _, later := range d.coreFramesAfter(st) {
		if later.Frame.Type == proto.TypeWorkspaceRead || later.Frame.Type == proto.TypeWorkspaceExport {
			return later, nil
		}
	}
	return nil, fmt.Errorf("%s: a read-only execution_prepare without a later workspace_read or workspace_export", st.Pos)
}

func (d *refCoreDriver) coreFramesAfter(st *scenarios.Step) []*scenarios.Step {
	var out []*scenarios.Step
	for _, later := range d.sc.Steps {
		if later.Index <= st.Index {
			continue
		}
		for _, f := range later.Frames() {
			if f.From == proto.Core {
				out = append(out, f)
			}
		}
	}
	return out
}

// workspaceHolds answers check.workspace.
func (d *refCoreDriver) workspaceHolds(c *scenarios.WorkspaceCheck, b *scenarios.Bindings) (bool, string, error) {
	if c.Refuses != "" {
		return d.refuses(c)
	}
	key, _ := c.Op.(string)
	id, ok := d.ops[key]
	if !ok {
		return false, "", fmt.Errorf("no workspace operation was started for %s", key)
	}
	op, err := d.Core.WorkspaceOp(id)
	if err != nil {
		return false, "", err
	}
	got := fmt.Sprintf("%s %q cleanup %q (%s)", op.State, op.ErrorCode, op.Cleanup, op.Detail)
	if op.State == workspace.StatePending {
		return false, got, nil
	}
	if op.State != c.State || op.ErrorCode != c.ErrorCode || op.Cleanup != c.Cleanup {
		return false, got, fmt.Errorf("the workspace %s is %s", op.Kind, got)
	}
	if c.Truncated != nil && op.Truncated != *c.Truncated {
		return false, got, fmt.Errorf("the workspace %s was recorded truncated %t, want %t", op.Kind, op.Truncated, *c.Truncated)
	}
	if c.Content != nil {
		enc, err := resolveString(*c.Content, b)
		if err != nil {
			return false, got, err
		}
		want, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return false, got, fmt.Errorf("check.workspace.content: %w", err)
		}
		if !bytes.Equal(op.Data, want) {
			return false, got, fmt.Errorf("the workspace %s returned %d bytes %q, want the %d bytes the Runtime sent %q", op.Kind, len(op.Data), abbreviate(op.Data), len(want), abbreviate(want))
		}
	}
	if c.Directory != nil {
		raw, err := json.Marshal(op.Directory)
		if err != nil {
			return false, got, err
		}
		v, err := scenarios.DecodeJSON(raw)
		if err != nil {
			return false, got, err
		}
		if m := readOnly(b).Match(c.Directory, v); m != nil {
			return false, got, fmt.Errorf("the listing returned: %w (recorded %s)", m, raw)
		}
	}
	return true, got, nil
}

func abbreviate(b []byte) []byte {
	if len(b) > 64 {
		return append(bytes.Clone(b[:64]), "…"...)
	}
	return b
}

// refuses makes a caller's request now and wants Core's own refusal.
func (d *refCoreDriver) refuses(c *scenarios.WorkspaceCheck) (bool, string, error) {
	if d.turnID == "" {
		return false, "", errors.New("check.workspace.refuses before any Turn was started")
	}
	d.refusals++
	req := execution.WorkspaceRequest{TurnID: d.turnID, Key: fmt.Sprintf("refused-%d", d.refusals), Kind: c.Refuses}
	switch c.Refuses {
	case workspace.Read:
		req.Path, req.MaxBytes = "refused.txt", 1
	case workspace.Write:
		req.Path, req.Content = "refused.txt", []byte("refused")
	}
	if c.Path != nil {
		req.Path = *c.Path
	}
	if c.Operation != nil || c.MaxBytes != nil || c.MaxEntries != nil {
		req.MaxBytes = 0
		if c.Operation != nil {
			req.Operation = *c.Operation
		}
		if c.MaxBytes != nil {
			req.MaxBytes = *c.MaxBytes
		}
		if c.MaxEntries != nil {
			req.MaxEntries = *c.MaxEntries
		}
	}
	op, err := d.Core.Workspace(req)
	if err == nil {
		return false, "", fmt.Errorf("the reference Core took the workspace %s (operation %s) instead of refusing it with %s", c.Refuses, op.ID, c.Code)
	}
	if got := core.WorkspaceRefusal(err); got != c.Code {
		return false, "", fmt.Errorf("the reference Core refused the workspace %s with %s (%v), want %s", c.Refuses, got, err, c.Code)
	}
	return true, c.Code, nil
}
