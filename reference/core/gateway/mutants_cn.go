package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
	"github.com/wirecheck/wirecheck/reference/core/policy"
	"github.com/wirecheck/wirecheck/transport"
)

// The CN mutants of the gateway (scenarios/rules/clauses/CN.tsv): each breaks one clause of the
// bootstrap, the upgrade, the heartbeat or the connection's life. Every body is guarded by
// mutation.On, a constant false outside the wirecheck_mutants build.

// cnBootstrapAnswer writes the bootstrap answer as a CN-01 mutant gets it wrong; false: no mutant
// is on and the caller answers as usual.
func cnBootstrapAnswer(w http.ResponseWriter, answer proto.BootstrapResponse) bool {
	switch {
	case mutation.On(mutation.CNBootstrapAnswerInArray):
		transport.WriteJSON(w, []proto.BootstrapResponse{answer})
	case mutation.On(mutation.CNBootstrapAnswerWithoutDevice):
		answer.DeviceID = ""
		transport.WriteJSON(w, answer)
	case mutation.On(mutation.CNBootstrapWSURLHTTP):
		answer.WSURL = "http" + strings.TrimPrefix(answer.WSURL, "ws")
		transport.WriteJSON(w, answer)
	case mutation.On(mutation.CNBootstrapHeartbeatAsString):
		raw, _ := json.Marshal(answer)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		m["heartbeat_seconds"] = fmt.Sprint(answer.HeartbeatSeconds)
		transport.WriteJSON(w, m)
	default:
		return false
	}
	return true
}

// cnRefusal writes a refusal whose body names its code "code" instead of "error" (CN-04) when p is
// the active mutant; false: the caller answers as usual.
func cnRefusal(w http.ResponseWriter, rej *transport.Rejection, p mutation.Point) bool {
	if !mutation.On(p) {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rej.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"code": rej.Code, "detail": rej.Detail})
	return true
}

// cnMutateBootstrap: the CN-08 and CN-10 mutants of the bootstrap's refusals.
func cnMutateBootstrap(rej *transport.Rejection) *transport.Rejection {
	switch {
	case mutation.On(mutation.CNBootstrapWithoutBearerParams) && rej.Code == proto.HTTPMissingBearer:
		return transport.Reject(transport.CheckBearer, proto.HTTPMissingParams, "the Bearer header is required")
	case mutation.On(mutation.CNBootstrapWrongCredentialUnknown) && rej.Code == proto.HTTPBadCredential && rej.Check == transport.CheckCredential:
		return transport.Reject(transport.CheckDevice, proto.HTTPUnknownDevice, "unknown device")
	}
	return rej
}

// wellFormedVersion is MAJOR.MINOR.PATCH of decimal numbers, nothing around it.
var wellFormedVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// cnMutateUpgrade: the CN-05 and CN-14 mutants of the upgrade's refusals. ok false: no mutant
// applies.
func cnMutateUpgrade(g *Gateway, r *http.Request, rej *transport.Rejection) (out *transport.Rejection, dev transport.Device, ok bool) {
	q := r.URL.Query()
	v := q.Get(proto.QueryVersion)
	var as string // the version the mutant reads v as; "": no rewrite
	switch {
	case mutation.On(mutation.CNUpgradeWithoutDeviceMissingID) && rej.Check == transport.CheckDeviceID:
		return transport.Reject(transport.CheckDeviceID, proto.HTTPMissingDeviceID, "device_id is required"), dev, true
	case mutation.On(mutation.CNUpgradeWithoutVersionIncompat) && rej.Check == transport.CheckVersion:
		return transport.Reject(transport.CheckVersionMatch, proto.HTTPIncompatibleVersion, "this Core speaks wire version "+proto.Version+" only"), dev, true
	case mutation.On(mutation.CNEmptyVersionMissingParams) && rej.Check == transport.CheckVersionMatch && v == "":
		return transport.Reject(transport.CheckVersion, proto.HTTPMissingParams, "device_id, version and the Bearer header are required"), dev, true
	case rej.Check != transport.CheckVersionMatch:
		return rej, dev, false
	case mutation.On(mutation.CNOtherMinorAccepted) && wellFormedVersion.MatchString(v) &&
		v[strings.LastIndex(v, "."):] == proto.Version[strings.LastIndex(proto.Version, "."):]:
		// The check compares the format and the patch only.
		as = proto.Version
	case mutation.On(mutation.CNVersionSuffixStripped):
		as, _, _ = strings.Cut(v, "+")
		as, _, _ = strings.Cut(as, "-")
	case mutation.On(mutation.CNVersionTrimmed):
		as = strings.TrimSpace(v)
	case mutation.On(mutation.CNMalformedVersionAccepted) && v != "" && !wellFormedVersion.MatchString(v) &&
		!strings.ContainsAny(v, " \t-+"):
		// Only a well-formed version is compared; anything else goes on to authentication.
		as = proto.Version
	}
	if as == "" || as == v {
		return rej, dev, false
	}
	q.Set(proto.QueryVersion, as)
	r2 := r.Clone(r.Context())
	r2.URL.RawQuery = q.Encode()
	d, rj := g.rules.CheckUpgrade(r2)
	return rj, d, true
}

// cnSkipIsFatal reports whether a CN-22 mutant closes the connection for a frame the protocol
// skips: a JSON value that is not an object (data), or an envelope of an unknown type without id.
func cnSkipIsFatal(data []byte, env *proto.Envelope) bool {
	if env == nil {
		trimmed := bytes.TrimSpace(data)
		return mutation.On(mutation.CNNonObjectFrameCloses) && json.Valid(trimmed) && len(trimmed) > 0 && trimmed[0] != '{'
	}
	_, known := proto.Lookup(env.Type)
	return mutation.On(mutation.CNUnknownTypeCloses) && !known && env.ID == ""
}

// livenessTimeout is the liveness bound: half of it under the CN-30 mutant.
func livenessTimeout() time.Duration {
	if mutation.On(mutation.CNLivenessAt30s) {
		return proto.LivenessTimeout / 2
	}
	return proto.LivenessTimeout
}

// readLimit is the largest frame Core reads: twice the bound under the CN-41.2 mutant, one byte
// short of it under the CN-41.1 one.
func readLimit() int64 {
	switch {
	case mutation.On(mutation.CNOversizeFrameRead):
		return 2 * proto.MaxFrameBytes
	case mutation.On(mutation.CNFrameAtLimitRefused):
		return proto.MaxFrameBytes - 1
	}
	return proto.MaxFrameBytes
}

// cnRearms reports whether an inbound frame of type typ re-arms the liveness timer: under the
// CN-30.3 mutant a heartbeat does not, under the CN-30.4 one only a heartbeat does. data is the
// frame as read (its type is peeked only under those mutants).
func cnRearms(data []byte) bool {
	if !mutation.On(mutation.CNHeartbeatNotLiveness) && !mutation.On(mutation.CNOnlyHeartbeatLiveness) {
		return true
	}
	var env struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(data, &env)
	if env.Type == proto.TypeHeartbeat {
		return !mutation.On(mutation.CNHeartbeatNotLiveness)
	}
	return !mutation.On(mutation.CNOnlyHeartbeatLiveness)
}

// cnDeviceStatus is the device-status answer as a CN-45 mutant gets it wrong.
func cnDeviceStatus(s *Session, answer proto.DeviceStatusResponse) proto.DeviceStatusResponse {
	switch {
	case mutation.On(mutation.CNDeviceStatusWithoutID):
		answer.DeviceID = ""
	case mutation.On(mutation.CNDeviceStatusNeedsHeartbt) && s != nil:
		// Online is read as "has declared its capabilities".
		_, answer.Online = s.Capabilities()
	}
	return answer
}

// cnHeartbeatRepair is where the CN heartbeat mutants take a heartbeat the protocol refuses; nil:
// none is on.
func cnHeartbeatRepair() func(map[string]any) {
	switch {
	case mutation.On(mutation.CNActiveRequestsDefaulted):
		return func(p map[string]any) {
			if _, ok := p["active_requests"]; !ok {
				p["active_requests"] = 0
			}
		}
	case mutation.On(mutation.CNEmptyKindDropped):
		return func(p map[string]any) {
			kinds, _ := p["supported_agent_kinds"].([]any)
			kept := kinds[:0]
			for _, k := range kinds {
				if m, ok := k.(map[string]any); !ok || m["kind"] != "" {
					kept = append(kept, k)
				}
			}
			if kinds != nil {
				p["supported_agent_kinds"] = kept
			}
		}
	case mutation.On(mutation.CNNullCapabilitiesKindDropped):
		return func(p map[string]any) {
			kinds, _ := p["supported_agent_kinds"].([]any)
			kept := kinds[:0]
			for _, k := range kinds {
				if m, ok := k.(map[string]any); ok {
					if c, has := m["capabilities"]; has && c == nil {
						continue
					}
				}
				kept = append(kept, k)
			}
			if kinds != nil {
				p["supported_agent_kinds"] = kept
			}
		}
	case mutation.On(mutation.CNAvailableDefaulted):
		return eachKind(func(k map[string]any) {
			if _, ok := k["available"].(bool); !ok {
				k["available"] = true
			}
		})
	case mutation.On(mutation.CNNullCapabilityFalse), mutation.On(mutation.CNNumericCapabilityRead), mutation.On(mutation.CNStringCapabilityRead):
		return eachKind(func(k map[string]any) {
			caps, ok := k["capabilities"].(map[string]any)
			if !ok {
				return
			}
			for n, v := range caps {
				switch v := v.(type) {
				case nil:
					if mutation.On(mutation.CNNullCapabilityFalse) {
						caps[n] = false
					}
				case json.Number:
					if mutation.On(mutation.CNNumericCapabilityRead) {
						caps[n] = v.String() != "0"
					}
				case string:
					if mutation.On(mutation.CNStringCapabilityRead) {
						caps[n] = v == "true"
					}
				}
			}
		})
	case mutation.On(mutation.CNMissingCapabilityDefaulted):
		return eachKind(func(k map[string]any) {
			if caps, ok := k["capabilities"].(map[string]any); ok {
				for _, n := range proto.CapabilityNames() {
					if _, has := caps[n]; !has {
						caps[n] = false
					}
				}
			}
		})
	}
	return nil
}

// cnStrictHeartbeat is where a CN mutant refuses a heartbeat the protocol takes: nil: it stays
// valid.
func cnStrictHeartbeat(env proto.Envelope) error {
	if !mutation.On(mutation.CNKindlessHeartbeatInvalid) && !mutation.On(mutation.CNUnknownHeartbeatMemberInvalid) &&
		!mutation.On(mutation.CNVersionlessKindInvalid) {
		return nil
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(env.Payload, &p) != nil {
		return nil
	}
	switch {
	case mutation.On(mutation.CNKindlessHeartbeatInvalid):
		if _, ok := p["supported_agent_kinds"]; !ok {
			return fmt.Errorf("supported_agent_kinds: is required (a mutant)")
		}
	case mutation.On(mutation.CNUnknownHeartbeatMemberInvalid):
		for name := range p {
			switch name {
			case "ts", "active_requests", "daemon_version", "supported_agent_kinds":
			default:
				return fmt.Errorf("%s: unknown member (a mutant)", name)
			}
		}
	case mutation.On(mutation.CNVersionlessKindInvalid):
		if _, ok := p["daemon_version"]; !ok {
			return fmt.Errorf("daemon_version: is required (a mutant)")
		}
		var kinds []map[string]json.RawMessage
		_ = json.Unmarshal(p["supported_agent_kinds"], &kinds)
		for i, k := range kinds {
			if _, ok := k["version"]; !ok {
				return fmt.Errorf("supported_agent_kinds[%d].version: is required (a mutant)", i)
			}
		}
	}
	return nil
}

// cnEndLostRun ends a Run subscription of a lost connection as a CN-37 mutant does; false: the
// caller ends it with ErrSessionClosed.
func cnEndLostRun(r *RunSubscription) bool {
	switch {
	case mutation.On(mutation.CNLostRunsLeftWaiting):
	case mutation.On(mutation.CNLostRunsEndCleanly):
		r.s.end(nil)
	default:
		return false
	}
	return true
}

// cnEndLostPreparation ends a preparation subscription of a lost connection as a CN-38 mutant
// does; false: the caller ends it with ErrSessionClosed.
func cnEndLostPreparation(p *PreparationSubscription) bool {
	switch {
	case mutation.On(mutation.CNLostPreparationsWaiting):
	default:
		return false
	}
	return true
}

// cnInferredSnapshot is the snapshot a CN-27/CN-28 mutant infers: hb (nil before the first valid
// heartbeat) with a basic declaration added for every kind Core has an engine profile for that hb
// does not declare. nil: no mutant infers anything here.
func cnInferredSnapshot(hb *proto.HeartbeatPayload, closed bool, legacy bool) *proto.HeartbeatPayload {
	switch {
	case closed:
		return nil
	case hb == nil && mutation.On(mutation.CNBasicBeforeHeartbeat):
	case hb != nil && mutation.On(mutation.CNBasicForUndeclaredKind):
	case hb != nil && legacy && mutation.On(mutation.CNKindFromLegacyMember):
	default:
		return nil
	}
	out := &proto.HeartbeatPayload{}
	if hb != nil {
		c := *hb
		c.SupportedAgentKinds = slices.Clone(hb.SupportedAgentKinds)
		out = &c
	}
	for kind, pr := range policy.New().Profiles {
		if out.Kind(kind) != nil {
			continue
		}
		caps := &proto.AgentKindCapabilities{}
		for _, n := range proto.CapabilityNames() {
			caps.Set(n, proto.Support(slices.Contains(pr.Always, n)))
		}
		out.SupportedAgentKinds = append(out.SupportedAgentKinds, proto.SupportedAgentKind{Kind: kind, Available: true, Capabilities: caps})
	}
	return out
}

// cnLegacyMember reports whether a heartbeat carries claude_available, for the CN-28.4 mutant.
func cnLegacyMember(env proto.Envelope) bool {
	if !mutation.On(mutation.CNKindFromLegacyMember) {
		return false
	}
	var p map[string]json.RawMessage
	return json.Unmarshal(env.Payload, &p) == nil && p["claude_available"] != nil
}
