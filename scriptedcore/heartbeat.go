package scriptedcore

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/scenarios"
)

// declarationProblems says everything wrong with the capability declaration of kind in a heartbeat
// that failed validation, in one message: proto's validator stops at the first problem, and a
// daemon's author should not learn of 26 missing members one run at a time. "" when the kind's
// declaration is not what failed.
func declarationProblems(raw []byte, kind string) string {
	var env struct {
		Payload struct {
			Kinds []struct {
				Kind         string          `json:"kind"`
				Capabilities json.RawMessage `json:"capabilities"`
			} `json:"supported_agent_kinds"`
		} `json:"payload"`
	}
	if json.Unmarshal(raw, &env) != nil {
		return ""
	}
	for _, k := range env.Payload.Kinds {
		if k.Kind != kind {
			continue
		}
		missing, malformed, unknown, ok := proto.CapabilityProblems(k.Capabilities)
		if !ok {
			return fmt.Sprintf("kind %q has no capability object", kind)
		}
		var parts []string
		if n := len(missing); n > 0 {
			parts = append(parts, fmt.Sprintf("%d capability members missing (%s)", n, strings.Join(missing, ", ")))
		}
		if n := len(malformed); n > 0 {
			parts = append(parts, fmt.Sprintf("%d not true or false (%s)", n, strings.Join(malformed, ", ")))
		}
		if unknown > 0 {
			parts = append(parts, fmt.Sprintf("%d unknown members", unknown))
		}
		if len(parts) == 0 {
			return ""
		}
		return fmt.Sprintf("the declaration of kind %q is incomplete: %s; every capability must be present as true or false", kind, strings.Join(parts, "; "))
	}
	return ""
}

// declarationCause gives a step's failure on a heartbeat whose capability declaration is
// incomplete the cause firstHeartbeat gives one: a daemon that leaves a member out has one root
// cause, whether a scenario reads its heartbeat as its first frame or as a step's.
func (r *run) declarationCause(f *scenarios.Failure) *scenarios.Failure {
	if f == nil || f.Cause != "" || f.Actual == nil {
		return f
	}
	raw, err := json.Marshal(f.Actual)
	if err != nil {
		return f
	}
	if why := declarationProblems(raw, r.cfg.Kind); why != "" {
		f.Cause = why
	}
	return f
}

// notApplicable is the verdict of a scenario the Runtime's declaration does not let it play, with
// which of three reasons holds: the kind is missing, it is not available, or a capability the
// scenario requires (or one it must lack) is declared otherwise. A kind the scenario needs
// advertised unavailable must be so, and declare what it requires too. A scenario that requires nothing
// (the connection's own rules) is played whatever the kinds.
func (r *run) notApplicable() *scenarios.Failure {
	p, name := r.p, r.cfg.Kind
	for _, other := range p.Scenario.UnavailableKinds {
		k, ok := r.view.Capabilities(other)
		if !ok || k.Available {
			f := p.Failf(nil, "the scenario needs kind %q advertised with available: false; the Runtime's heartbeat advertises: %s", other, r.view.kindNames(true))
			f.Cause = fmt.Sprintf("the daemon does not advertise kind %q as unavailable", other)
			return f
		}
		// A request to the unavailable kind must break only the rule of its availability: a
		// capability it lacked would be a second rule, answered with a code the spec does not
		// order against resource_unavailable (docs/spec-readings.md, two-rules-at-once).
		if missing := undeclared(k, p.Scenario.Requires); len(missing) > 0 {
			f := p.Failf(nil, "the scenario needs kind %q, advertised unavailable, to declare %v", other, missing)
			f.Cause = fmt.Sprintf("kind %q does not declare %v", other, missing)
			f.Missing = missing
			return f
		}
	}
	kind, ok := r.view.Capabilities(name)
	if len(p.Scenario.Requires) == 0 && (!ok || !kind.Available) {
		return nil
	}
	if !ok {
		f := p.Failf(nil, "the Runtime's heartbeat does not advertise kind %q (it advertises: %s); every scenario runs on that kind", name, r.view.kindNames(false))
		f.Cause = fmt.Sprintf("the daemon does not advertise kind %q", name)
		f.Missing = r.p.Scenario.Requires
		return f
	}
	if !kind.Available {
		f := p.Failf(nil, "kind %q is advertised but not available", name)
		f.Cause = f.Message
		f.Missing = r.p.Scenario.Requires
		return f
	}
	if missing := undeclared(kind, r.p.Scenario.Requires); len(missing) > 0 {
		f := p.Failf(nil, "kind %q does not declare %v", name, missing)
		f.Missing = missing
		return f
	}
	for _, c := range r.p.Scenario.Excludes {
		if v, _ := kind.Capabilities.Get(c); v == proto.Supported {
			return p.Failf(nil, "kind %q declares %s; the scenario tests a Runtime without it", name, c)
		}
	}
	return nil
}

// undeclared lists the capabilities of caps that kind does not declare supported.
func undeclared(kind *proto.SupportedAgentKind, caps []string) []string {
	var missing []string
	for _, c := range caps {
		if v, _ := kind.Capabilities.Get(c); v != proto.Supported {
			missing = append(missing, c)
		}
	}
	return missing
}
