package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/wirecheck/wirecheck/clock"
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// followUp is what a transition leaves for after the router lock: waiting for its status writes,
// then its native work. nil when there is nothing.
type followUp func()

func (f followUp) run() {
	if f != nil {
		f()
	}
}

// goAfter runs a follow-up in a goroutine the router owns, so the receive loop never waits on a
// write or on native work.
func (r *router) goAfter(f followUp) {
	if f != nil {
		r.goOwned(f)
	}
}

// applyLocked feeds one event to a grant's record and carries out the effects package admission
// decided. The daemon never changes a record itself. A refused transition is a daemon bug: it is
// logged as an error and changes nothing.
func (r *router) applyLocked(g *grant, ev admission.Event) followUp {
	rec, effects, err := admission.Apply(g.rec, ev)
	if err != nil {
		r.d.log.Error("admission transition refused", "request", g.reqID, "handle", g.rec.Handle, "err", err)
		return nil
	}
	g.rec = rec
	return r.carryOutLocked(g, effects)
}

// carryOutLocked performs the effects in order under the router lock: timers, Executor
// bookkeeping and queued frames (queuing under the lock keeps revisions in order on the wire).
// The status writes are awaited, and native work runs, in the returned follow-up.
func (r *router) carryOutLocked(g *grant, effects []admission.Effect) followUp {
	var writes []statusWrite
	var native []func()
	for _, eff := range effects {
		switch eff := eff.(type) {
		case admission.ArmExpiry:
			if mutation.On(mutation.ExpiryNeverFires) || mutation.On(mutation.StartAfterExpiryAccepted) {
				continue
			}
			if g.stopExpiry != nil {
				g.stopExpiry()
			}
			at := eff.At
			if mutation.On(mutation.ADExpiryEarly) {
				at = at.Add(-time.Minute)
			}
			g.stopExpiry = r.afterFunc(at.Sub(r.d.cfg.Clock.Now()), func() { r.expire(g) })
		case admission.StopExpiry:
			if g.stopExpiry != nil {
				g.stopExpiry()
			}
		case admission.BeginSetup:
			if g.rec.ReadOnly {
				native = append(native, func() { r.readOnlyReady(g) })
				continue
			}
			ctx, cancel := context.WithCancel(r.ctx)
			g.cancelSetup = cancel
			e := g.exec
			native = append(native, func() { r.setup(ctx, g, e) })
		case admission.CancelSetup:
			if g.cancelSetup != nil {
				g.cancelSetup() // setup closes the Executor when it returns
			}
		case admission.HoldExecutor:
			if g.exec == nil {
				continue // a read-only preparation holds no Executor
			}
			g.exec.stopIdleLocked()
			g.exec.state = execAdmitted
		case admission.IdleExecutor:
			if g.exec != nil && g.exec.state == execAdmitted && (mutation.On(mutation.ReleaseClosesIdleExecutor) ||
				(g.rec.State == admission.Expired && mutation.On(mutation.ADExpiryClosesExecutor))) {
				e := g.exec
				native = append(native, func() { r.closeExecutor(e) })
			} else if g.exec != nil && g.exec.state == execAdmitted {
				r.idleLocked(g.exec)
			}
		case admission.CloseExecutor:
			if g.exec == nil || (eff.ReportFailure && mutation.On(mutation.ADFailedExecutorLeftOpen)) {
				continue
			}
			if mutation.On(mutation.ADLateExecutorKeptIdle) && g.rec.State == admission.Released && g.exec.native != nil {
				r.idleLocked(g.exec)
				continue
			}
			e, report := g.exec, eff.ReportFailure
			native = append(native, func() { r.closeForAdmission(g, e, report) })
		case admission.OpenRun:
			rn := newRun(eff.RunID, g.exec, g.startTrace)
			rn.releaseFirst = g.cfg.ReleaseOnCompletion
			rn.environmentID = environmentOf(&g.cfg)
			r.runs[rn.id] = rn
			g.exec.state = execRunning
		case admission.StartTurn:
			rn, input := r.runs[eff.RunID], eff.Input
			native = append(native, func() { r.runPrepared(g, rn, input) })
		case admission.Publish:
			if mutation.On(mutation.StartedNeverPublished) && eff.Status.State == proto.StateStarted {
				continue
			}
			mutatePublished(&eff.Status)
			if withheldAD(eff.Status) {
				continue
			}
			res := r.out.enqueue(r.sentStatus(proto.MustEnvelope(proto.TypePreparationStatus, statusIDAD(g, eff.Status), &eff.Status)))
			if mutation.On(mutation.ADSetupFailureFailsRun) && eff.Status.State == proto.StateFailed && eff.Status.ErrorCode == proto.CodePreparationFailed {
				reqID := g.reqID
				r.goOwned(func() { r.failRun(reqID, "", "native setup failed") })
			}
			if republishedAD(eff.Status) {
				r.out.enqueue(r.sentStatus(proto.MustEnvelope(proto.TypePreparationStatus, g.reqID, &eff.Status)))
			}
			writes = append(writes, statusWrite{res: res, budget: r.armStatusBudgetLocked(g, eff.Status.State)})
		case admission.Reject:
			mutateRejected(&eff.Status)
			if mutation.On(mutation.RejectionWithheld) {
				continue
			}
			if mutation.On(mutation.ADRejectionConsumesRevision) {
				g.rec.Revision++
			}
			if mutation.On(mutation.ADRejectionAbandonsSetup) && g.rec.State == admission.Preparing && g.cancelSetup != nil {
				g.cancelSetup()
			}
			r.out.enqueue(r.sentStatus(proto.MustEnvelope(proto.TypePreparationStatus, g.reqID, &eff.Status)))
		case admission.Forget:
			r.forgetLocked(g)
		default:
			r.d.log.Error("admission effect not carried out", "request", g.reqID, "effect", eff.String())
		}
	}
	if len(writes) == 0 && len(native) == 0 {
		return nil
	}
	return func() {
		for _, w := range writes {
			r.awaitStatus(g, w)
		}
		for _, f := range native {
			f()
		}
	}
}

// statusWrite is a queued preparation_status and the budget its send has (AD-50).
type statusWrite struct {
	res    <-chan error
	budget clock.Timer // nil: unbounded (a mutant)
}

// armStatusBudgetLocked arms a status send's budget (AD-50) as the status is queued: 5 s, and
// for started the time left until the admission deadline. It is armed here, in the receive loop
// that queued the status, not in the follow-up that awaits the write: once the daemon has
// handled a frame, the budget it started is running, so a virtual clock moved after that cannot
// pass it by (an advance waits for the daemon to have read everything Core sent).
func (r *router) armStatusBudgetLocked(g *grant, state string) clock.Timer {
	if mutation.On(mutation.StallStatusBudgetUnbounded) {
		return nil
	}
	budget := proto.StatusSendBudget
	if state == proto.StateStarted && mutation.On(mutation.ADStartedBudgetUnbounded) {
		return nil
	}
	if state == proto.StateStarted && !mutation.On(mutation.ADStartedBudgetFiveSeconds) {
		budget = max(g.rec.ExpiresAt.Sub(r.d.cfg.Clock.Now()), 0)
	}
	if mutation.On(mutation.StallStatusBudgetDoubled) {
		budget *= 2
	}
	if mutation.On(mutation.StallStatusBudgetHalved) {
		budget /= 2
	}
	return r.d.cfg.Clock.NewTimer(budget)
}

// awaitStatus waits for a status write within its send budget. A status that cannot be delivered
// (its write failed, or its budget ran out while it waited behind a stalled socket) is an event of
// its own: it abandons an owned admission (AD-28: failed/status_delivery_failed, local: it may
// never reach Core). A status whose budget ran out stays queued: it still reaches Core if the
// socket drains, followed by the failed status.
func (r *router) awaitStatus(g *grant, w statusWrite) {
	var err error
	if w.budget == nil {
		err = <-w.res
	} else {
		err = awaitWithin(w.res, w.budget)
	}
	if err == nil || mutation.On(mutation.StallStatusFailureIgnored) {
		return
	}
	r.mu.Lock()
	after := r.applyLocked(g, admission.StatusDeliveryFailed{})
	r.mu.Unlock()
	after.run()
}

// closeForAdmission closes a grant's Executor; a failed close the record asked about comes back as
// SetupCleanupFailed.
func (r *router) closeForAdmission(g *grant, e *executor, report bool) {
	if err := r.closeExecutor(e); err == nil || !report || mutation.On(mutation.ADCleanupFailureUnreported) {
		return
	}
	r.mu.Lock()
	after := r.applyLocked(g, admission.SetupCleanupFailed{})
	r.mu.Unlock()
	after.run()
}

// reject answers a control operation that names no admission (undecodable, an unknown handle, or
// refused by an admission rule); it carries revision 0 and touches no record.
func (r *router) reject(reqID, operation, code string) {
	s := &proto.PreparationStatusPayload{State: proto.StateRejected, Operation: operation, ErrorCode: code}
	mutateRejected(s)
	pureRejectionAD(s)
	if mutation.On(mutation.RejectionWithheld) {
		return
	}
	r.out.enqueue(r.sentStatus(proto.MustEnvelope(proto.TypePreparationStatus, reqID, s)))
}

// payloadHash fingerprints a request payload independently of member order and spacing: an
// identical duplicate re-publishes, a different one conflicts.
func payloadHash(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		buf.Reset()
		buf.Write(raw)
	}
	// Canonical member order: decode and re-encode (maps marshal sorted).
	var v any
	if json.Unmarshal(buf.Bytes(), &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			buf.Reset()
			buf.Write(b)
		}
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}
