package daemon

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/wirecheck/wirecheck/proto"
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
	var ev suspend.Event = suspend.Resume{Request: req}
	if env.Type == proto.TypeEnvironmentQuiesce {
		r.mu.Lock()
		if r.closing {
			r.mu.Unlock()
			return
		}
		ev = suspend.Quiesce{Request: req, Idle: r.quietLocked()}
		r.mu.Unlock()
	}
	effects := r.d.susp.apply(ev)
	r.oweDrainAnswer(env.ID, req, effects)
	r.suspendEffects(effects)
}

func (r *router) suspendEffects(effects []suspend.Effect) {
	for _, eff := range effects {
		switch eff := eff.(type) {
		case suspend.Reply:
			r.out.enqueue(proto.MustEnvelope(eff.Type, eff.ID, &eff.Result))
		case suspend.Drain:
			r.drain()
		}
	}
}

// quietLocked: nothing on the connection is in flight (SU-05): no Run (so no pending interaction),
// no runtime_prepare transfer, no workspace read, write or export, no owned preparation, and no
// Executor other than idle ones (preparing, admitted, running, closing, or with unconfirmed cleanup).
func (r *router) quietLocked() bool {
	if len(r.runs) > 0 || r.tr.m.Busy() || r.wso.m.Busy() || r.wso.m.ReadsInFlight() > 0 {
		return false
	}
	for _, g := range r.records {
		if g.rec.Owned() {
			return false
		}
	}
	for _, e := range r.executors {
		if e.state != execIdle && e.state != execClosed {
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
	stop := r.afterFunc(suspend.DrainBudget, func() { finish(false) })
	r.goOwned(func() {
		ok := true
		for _, e := range idle {
			ok = r.finishClose(e) == nil && ok
		}
		stop()
		finish(ok)
	})
}
