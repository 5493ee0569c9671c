package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core"
	"github.com/wirecheck/wirecheck/reference/core/execution"
	"github.com/wirecheck/wirecheck/reference/core/execution/suspend"
	"github.com/wirecheck/wirecheck/reference/core/store"
	"github.com/wirecheck/wirecheck/scenarios"
)

// The suspension cues of the reference Core's driver. A caller asks Core's API to suspend or
// resume and Core alone sends the frame, so a core step says which call a caller made:
//
//	environment_quiesce   suspend the device's Environment named by the frame's environment_id;
//	                      the suspend_id is Core's own (a persisted attempt ID: write it as a
//	                      ${placeholder})
//	environment_resume    resume the attempt whose suspend_id the frame names (bound from the
//	                      quiesce), with the frame's rollback, on the device's current connection
//
// The request's caller key is its frame's id as written (a ${placeholder} or a literal):
// check.suspension names the request by it. check.suspension refuses: quiesce makes one more
// quiesce of the Environment last named, refuses: resume a resume (without rollback) of the
// attempt whose quiesce sent the suspend_id attempt names; Core must refuse either with the code.

// suspendTrigger cues a suspension step; handled reports whether st was one.
func (d *refCoreDriver) suspendTrigger(ctx context.Context, st *scenarios.Step, b *scenarios.Bindings) (handled bool, err error) {
	if st.Frame.Type != proto.TypeEnvironmentQuiesce && st.Frame.Type != proto.TypeEnvironmentResume {
		return false, nil
	}
	key, ok := scenarios.Key(st.Frame.ID)
	if !ok {
		return true, fmt.Errorf("%s: a suspension step needs its id as a string (a literal or a ${placeholder}), or an $all whose first template is one", st.Pos)
	}
	var p proto.EnvironmentSuspendPayload
	if err := decodeTemplate(st.Frame.Payload, b, &p); err != nil {
		return true, err
	}
	if err := d.awaitCapabilities(ctx); err != nil {
		return true, err
	}
	d.suspendEnv = p.EnvironmentID
	if st.Frame.Type == proto.TypeEnvironmentQuiesce {
		rec, err := d.Core.Suspend(execution.SuspendRequest{DeviceID: d.DeviceID, Key: key, EnvironmentID: p.EnvironmentID})
		if err != nil {
			return true, fmt.Errorf("%s: the reference Core refused the quiesce: %w", st.Pos, err)
		}
		d.suspensions[key] = rec.ID
		return true, nil
	}
	attempt, err := d.attemptOf(p.SuspendID)
	if err != nil {
		return true, fmt.Errorf("%s: %w", st.Pos, err)
	}
	rec, err := d.Core.Resume(execution.ResumeRequest{DeviceID: d.DeviceID, Key: key, Attempt: attempt, Rollback: p.Rollback})
	if err != nil {
		return true, fmt.Errorf("%s: the reference Core refused the resume: %w", st.Pos, err)
	}
	d.suspensions[key] = rec.ID
	return true, nil
}

// refusedSuspension makes the caller's request of a refuses check: one more quiesce of the
// Environment last named, or a resume of the attempt named.
func (d *refCoreDriver) refusedSuspension(c *scenarios.SuspensionCheck, b *scenarios.Bindings) (*store.Suspension, error) {
	d.refusals++
	key := fmt.Sprintf("refused-%d", d.refusals)
	if c.Refuses != "resume" {
		return d.Core.Suspend(execution.SuspendRequest{DeviceID: d.DeviceID, Key: key, EnvironmentID: d.suspendEnv})
	}
	suspendID, err := resolveString(c.Attempt, b)
	if err != nil {
		return nil, err
	}
	attempt, err := d.attemptOf(suspendID)
	if err != nil {
		return nil, err
	}
	return d.Core.Resume(execution.ResumeRequest{DeviceID: d.DeviceID, Key: key, Attempt: attempt})
}

// attemptOf finds the quiesce that sent suspendID.
func (d *refCoreDriver) attemptOf(suspendID string) (string, error) {
	s, err := d.Core.Suspensions(d.DeviceID)
	if err != nil {
		return "", err
	}
	for _, r := range s.Requests {
		if r.Kind == suspend.Quiesce && r.SuspendID == suspendID {
			return r.ID, nil
		}
	}
	return "", fmt.Errorf("the resume names suspend_id %q, which no quiesce of the device sent", suspendID)
}

// suspensionHolds answers check.suspension.
func (d *refCoreDriver) suspensionHolds(c *scenarios.SuspensionCheck, b *scenarios.Bindings) (bool, string, error) {
	if c.Refuses != "" {
		rec, err := d.refusedSuspension(c, b)
		if err == nil {
			return false, "", fmt.Errorf("the reference Core sent the %s (request %s) instead of refusing it with %s", c.Refuses, rec.ID, c.Code)
		}
		if got := core.SuspensionRefusal(err); got != c.Code {
			return false, "", fmt.Errorf("the reference Core refused the %s with %s (%v), want %s", c.Refuses, got, err, c.Code)
		}
		return true, c.Code, nil
	}
	key, _ := c.Op.(string)
	id, ok := d.suspensions[key]
	if !ok {
		return false, "", errors.New("no suspension request was made for " + key)
	}
	rec, err := d.Core.Suspension(id)
	if err != nil {
		return false, "", err
	}
	got := fmt.Sprintf("%s %q (%s)", rec.State, rec.ErrorCode, rec.Detail)
	if rec.State == suspend.StatePending {
		return false, got, nil
	}
	if rec.State != c.State || rec.ErrorCode != c.ErrorCode {
		return false, got, fmt.Errorf("the %s is %s", rec.Kind, got)
	}
	return true, got, nil
}
