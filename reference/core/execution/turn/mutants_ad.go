package turn

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The admission (AD) mutation points of Core that rewrite the frames it sends. Every body is
// guarded by mutation.On, a constant false outside the wirecheck_mutants build.

// boundToEnvironment: the Session is bound to an Environment (local_environment), the path the
// environment-bound mutants of the admission frames break.
func (s *State) boundToEnvironment() bool { return s.Spec.Configuration.LocalEnvironment != nil }

// prepareID is the request ID a claim prepares under: id, or the Turn's Run ID under the AD-01.5
// mutant (the two identities taken for one).
func (s *State) prepareID(id string) string {
	if s.boundToEnvironment() && mutation.On(mutation.ADCorePrepareUnderRunID) {
		return s.Spec.RunID
	}
	return id
}

// prepareMutants rewrites the execution_prepare env as the AD-01, AD-60, AD-61, AD-62 and FN-01
// mutants send it; with none active it returns env unchanged.
func (s *State) prepareMutants(env proto.Envelope) proto.Envelope {
	if !anyOn(mutation.ADCorePrepareIDBlank, mutation.ADCorePrepareSessionBlank, mutation.ADCorePrepareConfigurationOmitted,
		mutation.ADCorePrepareCarriesRunID, mutation.ADCoreAgentKindOmitted, mutation.ADCoreEmptyConversationOmitted,
		mutation.ADCoreEmptyRunIDOmitted, mutation.ADCoreWebSearchOmitted, mutation.ADCoreTextVerbosityOmitted,
		mutation.ADCoreWebSearchUnlisted, mutation.ADCoreTextVerbosityUnlisted, mutation.ADCoreMCPLabelOmitted,
		mutation.ADCoreMCPURLOmitted, mutation.ADCoreMCPNullToolsOmitted,
		mutation.ADCoreNoServersAsAbsent, mutation.ADCoreMCPKeepsEnvironment, mutation.ADCoreStrictResumeUnset,
		mutation.FNCoreEmptyDescriptionOmitted, mutation.FNCoreDeferLoadingAsString,
		mutation.ADCoreSubagentIdentitiesDropped, mutation.ADCoreDisableSubagentsDropped, mutation.ADCoreWorkspaceDirectorySlashed) {
		return env
	}
	cfg := s.Spec.Configuration
	bound := s.boundToEnvironment()
	if bound && mutation.On(mutation.ADCorePrepareIDBlank) {
		env.ID = ""
	}
	env.Payload = edit(env.Payload, func(p map[string]any) {
		c, _ := p["configuration"].(map[string]any)
		switch {
		case bound && mutation.On(mutation.ADCorePrepareSessionBlank):
			p["session_id"] = ""
		case bound && mutation.On(mutation.ADCorePrepareConfigurationOmitted):
			delete(p, "configuration")
		case bound && mutation.On(mutation.ADCorePrepareCarriesRunID) && c != nil:
			c["run_id"] = s.Spec.RunID
		case bound && mutation.On(mutation.ADCoreStrictResumeUnset) && c != nil:
			delete(c, "strict_resume")
		}
		if c == nil {
			return
		}
		functionToolMutants(c)
		if le, ok := c["local_environment"].(map[string]any); ok && mutation.On(mutation.ADCoreWorkspaceDirectorySlashed) {
			if dir, _ := le["workspace_directory"].(string); !strings.HasSuffix(dir, "/") {
				le["workspace_directory"] = dir + "/"
			}
		}
		switch {
		case mutation.On(mutation.ADCoreSubagentIdentitiesDropped):
			delete(c, "observe_subagent_identities")
		case mutation.On(mutation.ADCoreDisableSubagentsDropped):
			delete(c, "disable_subagents")
		}
		if len(cfg.AgentOptions) > 0 {
			switch {
			case mutation.On(mutation.ADCoreAgentKindOmitted):
				delete(c, "agent_kind")
			case mutation.On(mutation.ADCoreEmptyConversationOmitted) && cfg.ConversationID == "":
				delete(c, "conversation_id")
			case mutation.On(mutation.ADCoreEmptyRunIDOmitted) && cfg.RunID == "":
				delete(c, "run_id")
			}
		}
		if ec, ok := c["execution_controls"].(map[string]any); ok {
			switch {
			case mutation.On(mutation.ADCoreWebSearchOmitted):
				delete(ec, "web_search")
			case mutation.On(mutation.ADCoreTextVerbosityOmitted):
				delete(ec, "text_verbosity")
			case mutation.On(mutation.ADCoreWebSearchUnlisted):
				ec["web_search"] = "off"
			case mutation.On(mutation.ADCoreTextVerbosityUnlisted):
				ec["text_verbosity"] = "normal"
			}
		}
		servers, _ := c["mcp_http_servers"].([]any)
		switch {
		case servers != nil && len(servers) == 0 && mutation.On(mutation.ADCoreNoServersAsAbsent):
			delete(c, "mcp_http_servers")
		case len(servers) > 0 && mutation.On(mutation.ADCoreMCPKeepsEnvironment):
			delete(c, "disable_execution_environment")
		}
		for _, v := range servers {
			srv, _ := v.(map[string]any)
			switch {
			case srv == nil:
			case mutation.On(mutation.ADCoreMCPLabelOmitted):
				delete(srv, "server_label")
			case mutation.On(mutation.ADCoreMCPURLOmitted):
				delete(srv, "server_url")
			case mutation.On(mutation.ADCoreMCPNullToolsOmitted) && srv["allowed_tools"] == nil:
				delete(srv, "allowed_tools")
			}
		}
	})
	return env
}

// startMutants rewrites the execution_start env as the AD-02, AD-66 and AD-67 mutants send it.
func (s *State) startMutants(env proto.Envelope) proto.Envelope {
	if !anyOn(mutation.ADCoreStartUnderRunID, mutation.ADCoreStartExecutorOmitted, mutation.ADCoreStartHandleOmitted,
		mutation.ADCoreStartRunIDIsRequestID, mutation.ADCoreStartInputOmitted) {
		return env
	}
	bound := s.boundToEnvironment()
	if bound && mutation.On(mutation.ADCoreStartUnderRunID) {
		env.ID = s.Spec.RunID
	}
	env.Payload = edit(env.Payload, func(p map[string]any) {
		switch {
		case bound && mutation.On(mutation.ADCoreStartExecutorOmitted):
			delete(p, "executor_id")
		case bound && mutation.On(mutation.ADCoreStartHandleOmitted):
			delete(p, "handle")
		case bound && mutation.On(mutation.ADCoreStartRunIDIsRequestID):
			p["run_id"] = s.PrepareID
		case bound && mutation.On(mutation.ADCoreStartInputOmitted):
			delete(p, "input")
		}
	})
	return env
}

// startInput is the input execution_start carries: in itself, or as the AD-66.7 and AD-67.1
// mutants send it.
func startInput(in proto.MessageInput) proto.MessageInput {
	if len(in) > 1 && mutation.On(mutation.ADCoreMessagesReversed) {
		in = slices.Clone(in)
		slices.Reverse(in)
	}
	if mutation.On(mutation.ADCoreImageBareBase64) {
		out := make(proto.MessageInput, len(in))
		for i, m := range in {
			m.Content = slices.Clone(m.Content)
			for j := range m.Content {
				if _, b64, ok := strings.Cut(m.Content[j].ImageURL, ";base64,"); ok {
					m.Content[j].ImageURL = b64
				}
			}
			out[i] = m
		}
		in = out
	}
	return in
}

// releaseMutants rewrites the execution_release env as the AD-03 mutants send it.
func (s *State) releaseMutants(env proto.Envelope) proto.Envelope {
	if mutation.On(mutation.ADCoreReleaseUnderRunID) {
		env.ID = s.Spec.RunID
	}
	if mutation.On(mutation.ADCoreReleaseNamesExecutor) {
		env.Payload, _ = json.Marshal(&proto.ExecutionReleasePayload{Handle: s.LearnedExecutor})
	}
	return env
}

// anyOn reports whether one of ps is the active mutant: the frames are rewritten only then.
func anyOn(ps ...mutation.Point) bool { return slices.ContainsFunc(ps, mutation.On) }

// edit decodes an object payload, lets change rewrite it, and encodes it again (numbers kept as
// written). A payload it cannot decode is returned as it was.
func edit(payload json.RawMessage, change func(map[string]any)) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(payload))
	d.UseNumber()
	var p map[string]any
	if d.Decode(&p) != nil || p == nil {
		return payload
	}
	change(p)
	out, err := json.Marshal(p)
	if err != nil {
		return payload
	}
	return out
}
