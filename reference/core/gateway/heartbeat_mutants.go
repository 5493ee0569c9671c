package gateway

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The heartbeat mutants (CN-25, CN-26, CN-32, CN-46, CN-49): a Core that reads a heartbeat more
// leniently, or a snapshot more widely, than the protocol lets it. Every body is guarded by
// mutation.On, a constant false outside the wirecheck_mutants build.

// lenientHeartbeat is where a heartbeat mutant takes a heartbeat the protocol refuses: it rewrites
// the payload as its bug reads it and parses it again. nil: the heartbeat stays refused.
func lenientHeartbeat(env proto.Envelope) *proto.HeartbeatPayload {
	repair := heartbeatRepair()
	if repair == nil {
		return nil
	}
	var p map[string]any
	dec := json.NewDecoder(bytes.NewReader(env.Payload))
	dec.UseNumber()
	if dec.Decode(&p) != nil || p == nil {
		return nil
	}
	repair(p)
	raw, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	env.Payload = raw
	f, err := proto.ParseEnvelope(env)
	if err != nil {
		return nil
	}
	return f.Payload.(*proto.HeartbeatPayload)
}

func heartbeatRepair() func(map[string]any) {
	switch {
	case mutation.On(mutation.HeartbeatMembersDefaulted):
		return func(p map[string]any) {
			for _, k := range []string{"ts", "active_requests"} {
				if _, ok := p[k]; !ok {
					p[k] = 0
				}
			}
		}
	case mutation.On(mutation.NullCapabilitiesUnsupported):
		return eachKind(func(k map[string]any) {
			if k["capabilities"] == nil {
				none := map[string]any{}
				for _, n := range proto.CapabilityNames() {
					none[n] = false
				}
				k["capabilities"] = none
			}
		})
	case mutation.On(mutation.UnknownCapabilityMemberDropped):
		return eachKind(func(k map[string]any) {
			if caps, ok := k["capabilities"].(map[string]any); ok {
				for n := range caps {
					if !slices.Contains(proto.CapabilityNames(), n) {
						delete(caps, n)
					}
				}
			}
		})
	case mutation.On(mutation.UnavailableKindUnvalidated):
		return func(p map[string]any) {
			kinds, _ := p["supported_agent_kinds"].([]any)
			p["supported_agent_kinds"] = slices.DeleteFunc(kinds, func(k any) bool {
				m, _ := k.(map[string]any)
				return m["available"] == false
			})
		}
	}
	return cnHeartbeatRepair()
}

func eachKind(f func(map[string]any)) func(map[string]any) {
	return func(p map[string]any) {
		kinds, _ := p["supported_agent_kinds"].([]any)
		for _, k := range kinds {
			if m, ok := k.(map[string]any); ok {
				f(m)
			}
		}
	}
}

// widenSnapshot is where the snapshot mutants keep what an earlier heartbeat (prev) advertised and
// the new one (hb) no longer does.
func widenSnapshot(prev, hb *proto.HeartbeatPayload) {
	if prev == nil {
		return
	}
	switch {
	case mutation.On(mutation.HeartbeatKindsMerged):
		for _, k := range prev.SupportedAgentKinds {
			if hb.Kind(k.Kind) == nil {
				hb.SupportedAgentKinds = append(hb.SupportedAgentKinds, k)
			}
		}
	case mutation.On(mutation.HeartbeatCapabilitiesWidened):
		for i := range hb.SupportedAgentKinds {
			k := &hb.SupportedAgentKinds[i]
			old := prev.Kind(k.Kind)
			if old == nil || old.Capabilities == nil || k.Capabilities == nil {
				continue
			}
			for _, n := range proto.CapabilityNames() {
				if v, _ := old.Capabilities.Get(n); v.Supported() {
					k.Capabilities.Set(n, v)
				}
			}
		}
	}
}

// idleHeartbeatEndsRuns is the idle-heartbeat-ends-runs mutant: a heartbeat with no active request
// closes every Run subscription cleanly, as done would.
func (s *Session) idleHeartbeatEndsRuns(hb *proto.HeartbeatPayload) {
	if !mutation.On(mutation.IdleHeartbeatEndsRuns) || hb.ActiveRequests != 0 {
		return
	}
	s.mu.Lock()
	runs := make([]*RunSubscription, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.s.end(nil)
	}
}
