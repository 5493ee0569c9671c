package daemon

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
	"github.com/wirecheck/wirecheck/reference/daemon/suspend"
)

// suspension is the daemon's suspend.Machine: it outlives connections, since a resume on a new
// connection must name what a quiesce on an old one accepted (SU-07). Its lock is a leaf: it is
// taken under router.mu and never the other way round.
type suspension struct {
	mu    sync.Mutex
	m     suspend.Machine
	conns atomic.Uint64 // numbers connections, so the machine tells the parked one from a new one
}

func (s *suspension) apply(ev suspend.Event) []suspend.Effect {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m.Apply(ev)
}

func (s *suspension) fenced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m.Fenced()
}

// fencedLocked: a quiesce was admitted and no resume let work in again, so every request for new
// work (execution_prepare, execution_start, prompt_request, runtime_prepare, workspace_write) is
// refused with its family's resource_unavailable (SU-06). device_shutdown is still served.
func (r *router) fencedLocked() bool { return r.d.susp.fenced() }

// suspensionFrame answers environment_quiesce and environment_resume (protocol-facts §4.16).
func (r *router) suspensionFrame(env proto.Envelope) {
	req := suspend.Request{Conn: r.conn, ID: env.ID, Serving: r.d.env != nil, Bound: r.d.bind.environmentID()}
	req.Payload, _ = proto.Decode[proto.EnvironmentSuspendPayload](env)
	_ = json.Unmarshal(env.Payload, &req.Raw) // the members as far as they decode, for the echo
	mutateSuspendRequest(env.Type, &req)
	var ev suspend.Event = suspend.Resume{Request: req}
	if env.Type == proto.TypeEnvironmentQuiesce {
		waiting := r.runsAwaitingCore()
		r.mu.Lock()
		if r.closing {
			r.mu.Unlock()
			return
		}
		ev = suspend.Quiesce{Request: req, Idle: r.quietLocked(waiting)}
		r.mu.Unlock()
	}
	effects := r.d.susp.apply(ev)
	r.oweDrainAnswer(env.ID, req, effects)
	r.suspendEffects(effects)
}

// mutateSuspendRequest bends the suspend_id bound (SU-01, SU-04) for the mutants that misplace it.
func mutateSuspendRequest(typ string, req *suspend.Request) {
	n := len(req.Raw.SuspendID)
	switch {
	case typ == proto.TypeEnvironmentQuiesce && n == proto.CorrelationIDMaxBytes && req.Payload != nil &&
		mutation.On(mutation.SUSuspendIDAtLimitRefused):
		req.Payload = nil // the bound read as < 128
	case n == proto.CorrelationIDMaxBytes+1 && req.Payload == nil && strings.TrimSpace(req.Raw.EnvironmentID) != "" &&
		(typ == proto.TypeEnvironmentQuiesce && mutation.On(mutation.SUQuiesceSuspendIDOverLimit) ||
			typ == proto.TypeEnvironmentResume && mutation.On(mutation.SUResumeSuspendIDOverLimit)):
		p := req.Raw // the bound read as <= 129
		req.Payload = &p
	}
}

// runsAwaitingCore returns, for the idleness mutants only, the Runs that have an interaction
// awaiting Core's answer (nil otherwise).
func (r *router) runsAwaitingCore() map[*run]bool {
	if !mutation.On(mutation.QuiesceWhileBusy) && !mutation.On(mutation.SUQuiesceBesideInteraction) {
		return nil
	}
	r.iaMu.Lock()
	defer r.iaMu.Unlock()
	waiting := map[*run]bool{}
	for k, rn := range r.ia.runs {
		if r.ia.m.Pending(k) {
			waiting[rn] = true
		}
	}
	return waiting
}

func (r *router) suspendEffects(effects []suspend.Effect) {
	for _, eff := range effects {
		switch eff := eff.(type) {
		case suspend.Reply:
			env := proto.MustEnvelope(eff.Type, eff.ID, &eff.Result)
			if !eff.Result.Accepted && mutation.On(mutation.SUAcceptedFalseOmitted) {
				env.Payload = withoutMember(env.Payload, "accepted") // a false accepted left out, as omitempty would
			}
			sent := r.out.enqueue(env)
			if eff.Type == proto.TypeEnvironmentQuiesced && eff.Result.Accepted && mutation.On(mutation.SUParkClosesConnection) {
				go func() { // parked by closing it: the connection ends once the reply is out
					<-sent
					_ = r.ws.Close(websocket.StatusNormalClosure, "environment suspended")
				}()
			}
		case suspend.Drain:
			r.drain()
		}
	}
}

// quietLocked: nothing on the connection is in flight (SU-05): no Run (so no pending interaction),
// no runtime_prepare transfer, no workspace read, write or export, no owned preparation, and no
// Executor other than idle ones (preparing, admitted, running, closing, or with unconfirmed cleanup).
// waiting is nil but for the idleness mutants: the Runs whose interaction awaits Core's answer.
// A mutant that overlooks a Run or an owned preparation overlooks the Executor it holds too.
func (r *router) quietLocked(waiting map[*run]bool) bool {
	overlooked := map[*executor]bool{}
	for _, rn := range r.runs {
		switch {
		case waiting == nil:
			return false
		case waiting[rn] && mutation.On(mutation.SUQuiesceBesideInteraction),
			!waiting[rn] && mutation.On(mutation.QuiesceWhileBusy):
			overlooked[rn.exec] = true
		default:
			return false
		}
	}
	switch {
	case r.tr.m.Busy() && !mutation.On(mutation.SUQuiesceDuringTransfer),
		r.wso.m.Writing() && !mutation.On(mutation.SUQuiesceDuringWrite),
		r.wso.m.Exporting() && !mutation.On(mutation.SUQuiesceDuringExport),
		r.wso.m.ReadsInFlight() > 0 && !mutation.On(mutation.SUQuiesceDuringRead):
		return false
	}
	for _, g := range r.records {
		if !g.rec.Owned() {
			continue
		}
		if !mutation.On(mutation.SUQuiesceBesideOwnedPreparation) {
			return false
		}
		overlooked[g.exec] = true
	}
	if mutation.On(mutation.SUQuiesceBesideBusyExecutor) {
		return true
	}
	for _, e := range r.executors {
		if e.state != execIdle && e.state != execClosed && !overlooked[e] {
			return false
		}
	}
	return true
}

// drain closes every idle Executor natively (a suspended Environment keeps no native session
// open), bounded by the 5 s drain budget on the daemon's clock: the first of "all closed" and the
// budget answers the quiesce; a failed close is resource_busy too (its cleanup is unconfirmed).
func (r *router) drain() {
	r.mu.Lock()
	var idle []*executor
	for _, e := range r.executors {
		if e.state == execIdle {
			e.state = execClosing
			idle = append(idle, e)
		}
	}
	r.mu.Unlock()
	var once sync.Once
	finish := func(ok bool) {
		once.Do(func() { r.suspendEffects(r.d.susp.apply(suspend.Drained{Conn: r.conn, OK: ok})) })
	}
	budget := suspend.DrainBudget
	if mutation.On(mutation.SUDrainBudgetHalved) {
		budget /= 2
	}
	stop := r.afterFunc(budget, func() { finish(false) })
	r.goOwned(func() {
		ok := true
		for _, e := range idle {
			ok = r.finishClose(e) == nil && ok
		}
		stop()
		finish(ok)
	})
}

// withoutMember is payload with member k left out (for the shape mutants).
func withoutMember(payload json.RawMessage, k string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(payload, &m) != nil {
		return payload
	}
	delete(m, k)
	out, err := json.Marshal(m)
	if err != nil {
		return payload
	}
	return out
}
