package suspend

import (
	"encoding/json"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// mutants rewrites the request env as the SU-01 shape mutants send it; with none active it returns
// env unchanged. Every body is guarded by mutation.On, a constant false outside the
// wirecheck_mutants build.
func (s Spec) mutants(env proto.Envelope) proto.Envelope {
	quiesce := s.Kind == Quiesce
	var change func(map[string]any)
	switch {
	case quiesce && mutation.On(mutation.SUCoreRollbackAsString):
		change = func(p map[string]any) { p["rollback"] = "false" }
	case mutation.On(mutation.SUCoreEnvironmentOmitted):
		change = func(p map[string]any) { delete(p, "environment_id") }
	case mutation.On(mutation.SUCoreSuspendIDOmitted):
		change = func(p map[string]any) { delete(p, "suspend_id") }
	case quiesce && mutation.On(mutation.SUCoreQuiesceEnvUppercased):
		change = func(p map[string]any) { p["environment_id"] = strings.ToUpper(s.EnvironmentID) }
	case quiesce && mutation.On(mutation.SUCoreQuiesceRollback):
		change = func(p map[string]any) { p["rollback"] = true }
	case mutation.On(mutation.SUCoreRequestIDBlank):
		env.ID = ""
	}
	if change == nil {
		return env
	}
	var p map[string]any
	if json.Unmarshal(env.Payload, &p) != nil {
		return env
	}
	change(p)
	if out, err := json.Marshal(p); err == nil {
		env.Payload = out
	}
	return env
}

// missingTaken: the reply raw lacks a required member whose SU-02 mutant is on, so Core decodes it
// anyway (the member's zero value) and judges it.
func missingTaken(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	absent := func(name string) bool { _, ok := m[name]; return !ok }
	return absent("environment_id") && mutation.On(mutation.SUCoreReplyWithoutEnvironmentTaken) ||
		absent("suspend_id") && mutation.On(mutation.SUCoreReplyWithoutSuspendIDTaken) ||
		absent("accepted") && mutation.On(mutation.SUCoreReplyWithoutAcceptedRefusal)
}
