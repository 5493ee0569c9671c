package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The reference Core's Environment preparation in a scenario. A Core-side scenario writes the
// runtime_prepare frames Core must send, as a Runtime-side one does; Begin reads them and
// configures the device's preparation through Core's API before the Runtime connects, so that
// Core sends them on its own:
//
//   - each begin is one operation (its header as written; environment_id and session_id must be
//     literal UUIDs, since they are the caller's), and the data of the chunks after it, in order,
//     is its body;
//   - a begin written with body_bytes: n has a body of n bytes of the letter a, made here (for a
//     body too big to spell; the scenario writes no chunk of it);
//   - a scenario that reconnects shows the preparation once per connection: the connection with
//     the most begins is taken (the others are where it stopped early).
//
// A core runtime_prepare step triggers nothing. The first one starts the scenario's Turn, when it
// has one (a later execution_prepare), as a caller that queued it while the connection prepares:
// Core must hold it until the preparation completed. check.preparation reads the result Core
// recorded last.

// configurePreparation sets the device's preparation from the scenario's frames (none: nothing).
func (d *refCoreDriver) configurePreparation(sc *scenarios.Scenario) error {
	b := scenarios.BindingsWith(sc.Vars)
	var best, cur []store.PreparationOperation
	for _, st := range sc.Steps {
		if st.Kind == scenarios.StepReconnect {
			cur = nil
			continue
		}
		for _, f := range st.Frames() {
			if f.From != proto.Core || f.Frame.Type != proto.TypeRuntimePrepare || f.Frame.Payload == nil {
				continue
			}
			var p proto.RuntimePreparePayload
			if err := decodeTemplate(f.Frame.Payload, b, &p); err != nil {
				return fmt.Errorf("%s: %w", f.Pos, err)
			}
			switch {
			case p.Step == proto.StepBegin:
				op := store.PreparationOperation{Action: p.Action, Slot: p.Slot, Skill: p.Skill, Plugin: p.Plugin,
					File: p.File, Initialization: p.Initialization, Sources: p.Sources}
				if n := f.Frame.BodyBytes; n > 0 {
					op.Content = bytes.Repeat([]byte("a"), n) // made now: no chunk step spells it
				}
				cur = append(cur, op)
			case p.Step == proto.StepChunk && len(cur) > 0:
				cur[len(cur)-1].Content = append(cur[len(cur)-1].Content, p.Data...)
			}
			if len(cur) > len(best) {
				best = cur
			}
		}
	}
	if len(best) == 0 {
		return nil
	}
	env, sess, err := prepIdentity(sc, b)
	if err != nil {
		return err
	}
	err = d.Core.SetPreparation(d.DeviceID, &store.Preparation{EnvironmentID: env, SessionID: sess, Operations: best})
	if errors.Is(err, core.ErrInvalidPreparation) {
		// Core refuses what the scenario says it sends: that fails the first runtime_prepare step
		// (triggerPrepare), where Core then sends nothing, not the harness.
		d.prepRefused = err
		return nil
	}
	return err
}

// prepIdentity is the Environment identity of the scenario's first begin.
func prepIdentity(sc *scenarios.Scenario, b *scenarios.Bindings) (env, sess string, err error) {
	for _, st := range sc.Steps {
		for _, f := range st.Frames() {
			if f.From != proto.Core || f.Frame.Type != proto.TypeRuntimePrepare || f.Frame.Payload == nil {
				continue
			}
			var p proto.RuntimePreparePayload
			if err := decodeTemplate(f.Frame.Payload, b, &p); err != nil || p.Step != proto.StepBegin {
				continue
			}
			return p.EnvironmentID, p.SessionID, nil
		}
	}
	return "", "", errors.New("no runtime_prepare begin")
}

// triggerPrepare starts the scenario's Turn at its first runtime_prepare, when it has one: the
// Turn is queued while the connection prepares, and Core sends nothing for it until then.
func (d *refCoreDriver) triggerPrepare(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) error {
	if d.prepRefused != nil {
		return fmt.Errorf("the reference Core refused the preparation the scenario's runtime_prepare frames describe: %w", d.prepRefused)
	}
	if d.turnID != "" || d.prepTriggered {
		return nil
	}
	d.prepTriggered = true
	for _, later := range d.sc.Steps {
		if later.Index <= st.Index {
			continue
		}
		for _, f := range later.Frames() {
			if f.From == proto.Core && f.Frame.Type == proto.TypeExecutionPrepare {
				return d.startTurn(ctx, f, b)
			}
		}
	}
	return nil
}

// preparationHolds answers check.preparation from the result Core recorded last.
func (d *refCoreDriver) preparationHolds(c *scenarios.PreparationCheck, b *scenarios.Bindings) (bool, string, error) {
	if c.Refuses != nil {
		return d.preparationRefused(c, b)
	}
	v, err := d.Core.Preparation(d.DeviceID)
	if err != nil {
		return false, "", err
	}
	if v.Last == nil || v.Last.State == store.PreparationRunning {
		return false, "no preparation has ended", nil
	}
	r := v.Last
	got := fmt.Sprintf("%s at operation %d, outcome %q, error_code %q, exit_code %d (%s)", r.State, r.Operation, r.Outcome, r.ErrorCode, r.ExitCode, r.Detail)
	switch {
	case r.State != c.State,
		c.ErrorCode != "" && r.ErrorCode != c.ErrorCode,
		c.ExitCode != nil && r.ExitCode != *c.ExitCode,
		c.Operation != nil && r.Operation != *c.Operation:
		return false, got, fmt.Errorf("the preparation ended %s", got)
	}
	return true, got, nil
}

// preparationRefused answers check.preparation {refuses, body, code}: a caller sets the device's
// preparation now to the one operation the begin describes (identity as written; its content the
// body, or body_bytes bytes of the letter a, when written), and Core must
// refuse it inside itself: invalid_preparation, as its API answers a preparation the wire's
// validators refuse.
func (d *refCoreDriver) preparationRefused(c *scenarios.PreparationCheck, b *scenarios.Bindings) (bool, string, error) {
	var p proto.RuntimePreparePayload
	if err := decodeTemplate(c.Refuses, b, &p); err != nil {
		return false, "", fmt.Errorf("check.preparation.refuses: %w", err)
	}
	op := store.PreparationOperation{Action: p.Action, Slot: p.Slot, Skill: p.Skill, Plugin: p.Plugin,
		File: p.File, Initialization: p.Initialization, Sources: p.Sources}
	if c.Body != nil {
		op.Content = []byte(*c.Body)
	}
	if c.BodyBytes > 0 {
		op.Content = bytes.Repeat([]byte("a"), c.BodyBytes)
	}
	err := d.Core.SetPreparation(d.DeviceID, &store.Preparation{EnvironmentID: p.EnvironmentID, SessionID: p.SessionID,
		Operations: []store.PreparationOperation{op}})
	got := "accepted"
	if errors.Is(err, core.ErrInvalidPreparation) {
		got = "invalid_preparation"
	} else if err != nil {
		got = "internal"
	}
	if got != c.Code {
		return false, "", fmt.Errorf("the reference Core answered the preparation with %s (%v), want %s", got, err, c.Code)
	}
	return true, "refused " + got, nil
}
