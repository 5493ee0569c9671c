package daemon

import (
	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The read-only preparation profile (protocol-facts §4.3): a handle for workspace reads and
// exports, served from the bound Environment with no Executor and no Harness process.

// admitReadOnlyLocked applies the profile's rules and returns the rejection code, or "" to admit.
func (r *router) admitReadOnlyLocked(p *proto.ExecutionPreparePayload, caps proto.AgentKindCapabilities) string {
	cfg := &p.Configuration
	switch {
	case !caps.WorkspaceReadPreparation.Supported() || r.d.env == nil:
		return proto.CodeUnsupportedReadPreparation
	case laxReadOnlyAD(p).CheckReadOnlyPreparation() != nil:
		return proto.CodeInvalidConfiguration
	}
	if code := r.checkEnvironment(cfg, caps, false); code != "" {
		return code
	}
	if r.prepareBusyLocked() || r.workspaceBusyLocked(busyReadOnly) || (r.fencedLocked() && !mutation.On(mutation.SUReadOnlyPrepareAdmitted)) {
		return proto.CodeResourceUnavailable
	}
	if len(r.records) >= recordLimitAD() && !r.pruneLocked() {
		return proto.CodePreparationCapacity
	}
	owned := 0
	for _, g := range r.records {
		if g.rec.ReadOnly && g.rec.Owned() {
			owned++
		}
	}
	if owned >= proto.PreparationCapacity {
		return proto.CodePreparationCapacity
	}
	return ""
}

// grantReadOnlyLocked records an admitted read-only preparation: preparing, then ready once its
// (empty) native setup ran.
func (r *router) grantReadOnlyLocked(reqID string, cfg proto.PromptRequestPayload, hash string) {
	g := &grant{reqID: reqID, cfg: cfg}
	ev := admission.PrepareAccepted{Now: r.d.cfg.Clock.Now(), Expiry: r.d.cfg.AdmissionExpiry, Handle: newID("handle-"),
		ReadOnly: true, Hash: hash}
	r.records[g.reqID], r.byHandle[ev.Handle] = g, g
	r.order = append(r.order, g)
	r.goAfter(r.applyLocked(g, ev))
}

// readOnlyReady is the read-only profile's native setup: the Environment is already there.
func (r *router) readOnlyReady(g *grant) {
	r.mu.Lock()
	after := r.applyLocked(g, admission.SetupSucceeded{})
	r.mu.Unlock()
	after.run()
}
