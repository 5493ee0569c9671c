package policy_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/policy"
)

func TestOptInsFollowTheDeclaration(t *testing.T) {
	explicit := &proto.ExecutionControls{WebSearch: proto.WebSearchLive, TextVerbosity: proto.VerbosityHigh, DisableProgrammaticToolCalling: true}
	cases := []struct {
		name     string
		given    *proto.ExecutionControls
		declared []string
		want     proto.PromptRequestPayload
	}{
		{name: "nothing declared: the older frames and fields", declared: nil,
			want: proto.PromptRequestPayload{AgentKind: "contract"}},
		{name: "execution_controls: web search disabled, verbosity medium", declared: []string{"execution_controls"},
			want: proto.PromptRequestPayload{AgentKind: "contract", ExecutionControls: &proto.ExecutionControls{WebSearch: proto.WebSearchDisabled, TextVerbosity: proto.VerbosityMedium}}},
		{name: "the caller's verbosity and explicit disable are kept, web search is always disabled", given: explicit, declared: []string{"execution_controls"},
			want: proto.PromptRequestPayload{AgentKind: "contract", ExecutionControls: &proto.ExecutionControls{WebSearch: proto.WebSearchDisabled, TextVerbosity: proto.VerbosityHigh, DisableProgrammaticToolCalling: true}}},
		{name: "observations follow tool_observations and message_items", declared: []string{"tool_observations", "message_items"},
			want: proto.PromptRequestPayload{AgentKind: "contract", ObserveToolObservations: true, ObserveMessages: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := proto.PromptRequestPayload{AgentKind: "contract", ExecutionControls: c.given}
			var caps *proto.AgentKindCapabilities
			if c.declared != nil {
				d := proto.MustDeclareCapabilities(c.declared...)
				caps = &d
			}
			policy.OptIns(&cfg, caps)
			if diff := cmp.Diff(c.want, cfg); diff != "" {
				t.Errorf("configuration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKindDeclarationOfNoSnapshotIsNil(t *testing.T) {
	if policy.KindDeclaration(nil, "contract") != nil {
		t.Error("no snapshot must give no declaration")
	}
	if policy.KindDeclaration(heartbeat("other", true), "contract") != nil {
		t.Error("a kind the snapshot does not name must give no declaration")
	}
}
