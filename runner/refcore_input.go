package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/scenarios"
)

// steer cues the reference Core's input API for a core prompt_steer step. A caller queues inputs
// while earlier ones await their receipts, and Core alone decides when each goes out (one at a
// time, IN-20): so the first step naming a new input_id delivers that input and, in order, every
// later prompt_steer's new input of the scenario. A step whose input_id was delivered already is a
// resend (after not_ready or busy) or the next input coming out of the queue: Core sends it on
// its own. The input_id as written (a ${placeholder}, or a literal) is the caller's idempotency
// key; Core chooses the input_id it sends.
func (d *refCoreDriver) steer(st *scenarios.Step, b *scenarios.Bindings) error {
	key, err := steerKey(st)
	if err != nil {
		return err
	}
	if d.inputs[key] {
		return nil
	}
	run, err := resolveString(st.Frame.ID, b)
	if err != nil {
		return err
	}
	t, err := d.Core.TurnByRun(run)
	if err != nil {
		return fmt.Errorf("prompt_steer for run %s: %w", run, err)
	}
	for _, later := range d.steersFrom(st) {
		key, err := steerKey(later)
		if err != nil {
			return err
		}
		if d.inputs[key] {
			continue
		}
		var p struct {
			Input proto.MessageInput `json:"input"`
		}
		if err := decodeTemplate(later.Frame.Payload, b, &p); err != nil {
			return fmt.Errorf("the input of %s: %w", later.Pos, err)
		}
		if _, err := d.Core.DeliverInput(t.ID, key, p.Input); err != nil {
			// ErrInputUnsupported: the scenario must require durable_input_receipts.
			return fmt.Errorf("delivering input %s (%s): %w", key, later.Pos, err)
		}
		d.inputs[key] = true
	}
	return nil
}

// steersFrom lists st and every later core prompt_steer frame of the scenario, in order.
func (d *refCoreDriver) steersFrom(st *scenarios.Step) []*scenarios.Step {
	out := []*scenarios.Step{st}
	for _, later := range d.sc.Steps {
		if later.Index <= st.Index {
			continue
		}
		for _, f := range later.Frames() {
			if f.From == proto.Core && f.Frame.Type == proto.TypePromptSteer {
				out = append(out, f)
			}
		}
	}
	return out
}

// steerKey is the input_id of a prompt_steer step as written.
func steerKey(st *scenarios.Step) (string, error) {
	p, ok := st.Frame.Payload.(map[string]scenarios.Value)
	if !ok {
		return "", fmt.Errorf("%s: prompt_steer needs a payload", st.Pos)
	}
	id, ok := p["input_id"].(string)
	if !ok || id == "" {
		return "", fmt.Errorf("%s: prompt_steer needs its input_id as a string (a literal or a ${placeholder})", st.Pos)
	}
	return id, nil
}

// inputGiven answers check.input with gives: a caller gives the Turn of the Run the input now,
// under the check's key, which the reference Core must take. A later prompt_steer step whose
// input_id is written as the key is Core's own sending. The API answers once the Turn's runner has
// stepped the input (and sent it, if it went out at once): a runner whose send waits for room in
// a full queue answers only when that send ends, so the wait is bounded by the step's.
func (d *refCoreDriver) inputGiven(ctx context.Context, c *scenarios.InputCheck, b *scenarios.Bindings) error {
	t, missing, err := d.turnOf(c.Run, b)
	switch {
	case err != nil:
		return err
	case t == nil:
		return errors.New(missing)
	}
	var in proto.MessageInput
	if err := decodeTemplate(c.Gives, b, &in); err != nil {
		return fmt.Errorf("check.input.gives: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := d.Core.DeliverInput(t.ID, c.Key, in)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("the reference Core refused the input %s with %s (%v)", c.Key, inputRefusalCode(err), err)
		}
		d.inputs[c.Key] = true
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the reference Core did not take the input %s: %w", c.Key, ctx.Err())
	}
}

// inputRefused answers check.input: a caller gives the Turn of the Run the check's input now (under
// a key of its own), which the reference Core must refuse inside itself with the check's API code
// (api.go, the input route).
func (d *refCoreDriver) inputRefused(c *scenarios.InputCheck, b *scenarios.Bindings) (bool, string, error) {
	t, missing, err := d.turnOf(c.Run, b)
	if t == nil {
		return false, missing, err
	}
	var in proto.MessageInput
	if err := decodeTemplate(c.Refuses, b, &in); err != nil {
		return false, "", fmt.Errorf("check.input.refuses: %w", err)
	}
	d.refusals++
	got, err := d.Core.DeliverInput(t.ID, fmt.Sprintf("refused-input-%d", d.refusals), in)
	if err == nil {
		return false, "", fmt.Errorf("the reference Core took the input (as %s, %s) instead of refusing it with %s", got.Key, got.State, c.Code)
	}
	if code := inputRefusalCode(err); code != c.Code {
		return false, "", fmt.Errorf("the reference Core refused the input with %s (%v), want %s", code, err, c.Code)
	}
	return true, "refused " + c.Code, nil
}

// inputRefusalCode is the API error code the reference Core's input route (api.go) gives a
// refusal.
func inputRefusalCode(err error) string {
	for _, c := range []struct {
		err  error
		code string
	}{
		{execution.ErrNotFound, "unknown_turn"},
		{execution.ErrInvalid, "invalid_input"},
		{execution.ErrFinished, "turn_finished"},
		{execution.ErrInputConflict, "input_conflict"},
		{execution.ErrInputLimit, "input_limit"},
		{execution.ErrInputUnsupported, "input_unsupported"},
	} {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "turn_not_running"
}
