package monitor

import (
	"errors"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
)

// shapeRules names the rule a frame of each type breaks when proto refuses its shape: the rule of
// rules.md that states that type's members. Paths refine it where one type's rules are split.
var shapeRules = map[string]string{
	proto.TypeHeartbeat:                   "CN-25",
	proto.TypeExecutionPrepare:            "AD-01",
	proto.TypeExecutionStart:              "AD-02",
	proto.TypeExecutionRelease:            "AD-03",
	proto.TypePreparationStatus:           "AD-04",
	proto.TypePromptRequest:               "AD-60",
	proto.TypePromptCancel:                "CA-01",
	proto.TypeDeviceShutdown:              "DS-01",
	proto.TypeDelta:                       "RS-10",
	proto.TypeThinking:                    "RS-10",
	proto.TypeOutputMessage:               "RS-10",
	proto.TypeDone:                        "RS-10",
	proto.TypeToolCall:                    "RS-11",
	proto.TypeUsage:                       "RS-14",
	proto.TypeError:                       "EF-01",
	proto.TypePermissionRequest:           "IA-01",
	proto.TypePermissionDecision:          "IA-03",
	proto.TypePermissionCancel:            "IA-04",
	proto.TypePromptForUserChoice:         "IA-15",
	proto.TypePromptForUserChoiceDecision: "IA-16",
	proto.TypeInteractionDecisionAck:      "CA-13",
	proto.TypePromptSteer:                 "IN-01",
	proto.TypePromptSteerAck:              "IN-02",
	proto.TypeFunctionCall:                "FN-05",
	proto.TypeFunctionResult:              "FN-06",
	proto.TypeRuntimePrepare:              "RP-01",
	proto.TypeRuntimePrepareResult:        "RP-12",
	proto.TypeWorkspaceRead:               "WS-01",
	proto.TypeWorkspaceReadResult:         "WS-03",
	proto.TypeWorkspaceWrite:              "WS-16",
	proto.TypeWorkspaceWriteResult:        "WS-17",
	proto.TypeWorkspaceExport:             "WS-26",
	proto.TypeWorkspaceExportResult:       "WS-27",
	proto.TypeEnvironmentQuiesce:          "SU-01",
	proto.TypeEnvironmentResume:           "SU-01",
	proto.TypeEnvironmentQuiesced:         "SU-02",
	proto.TypeEnvironmentResumed:          "SU-02",
	proto.TypeSubagentIdentity:            "SA-01",
	proto.TypeSubagentLifecycle:           "SA-02",
	proto.TypeSubagentTurn:                "SA-03",
	proto.TypeSubagentItem:                "SA-04",
	proto.TypeSubagentCoordination:        "SA-05",
}

// pathRules refine shapeRules by the refused member's path (the longest matching prefix wins).
var pathRules = map[string][]struct{ prefix, rule string }{
	proto.TypeRuntimePrepare: {
		{"id", "RP-11"}, {"payload", "RP-10"}, {"begin.environment_id", "RP-02"}, {"begin.session_id", "RP-02"},
		{"begin.action", "RP-03"}, {"begin.slot", "RP-03"}, {"begin.skill", "RP-04"}, {"begin.plugin", "RP-04"},
		{"begin.file", "RP-05"}, {"begin.initialization", "RP-06"}, {"begin.sources", "RP-07"},
		{"begin.size_bytes", "RP-08"}, {"begin.sha256", "RP-08"}, {"chunk.offset", "RP-09"}, {"chunk.data", "RP-09"},
	},
	proto.TypeRuntimePrepareResult: {{"id", "RP-11"}, {"error_code", "RP-13"}, {"exit_code", "RP-12"}},
	proto.TypeWorkspaceWriteResult: {{"id", "WS-18"}},
	proto.TypeWorkspaceReadResult:  {{"id", "WS-06"}, {"directory", "WS-04"}, {"data", "WS-05"}},
	proto.TypeExecutionPrepare:     {{"configuration", "AD-60"}, {"input", "AD-66"}},
	proto.TypeExecutionStart:       {{"input", "AD-66"}},
	proto.TypeHeartbeat:            {{"supported_agent_kinds", "CN-26"}},
	proto.TypeWorkspaceRead:        {{"id", "WS-02"}, {"payload", "WS-02"}},
	proto.TypeWorkspaceWrite:       {{"payload", "WS-16"}},
	proto.TypePromptRequest:        {{"input", "AD-66"}, {"id", "RS-01"}},
}

// shapeRule returns the rule a refused frame of type typ breaks.
func shapeRule(typ string, err error) string {
	var re *proto.RuleError
	if errors.As(err, &re) {
		if re.Type == "envelope" {
			if strings.Contains(re.Rule, "at most") {
				return "CN-41"
			}
			return "CN-22"
		}
		best, rule := -1, ""
		for _, p := range pathRules[typ] {
			if (re.Path == p.prefix || strings.HasPrefix(re.Path, p.prefix+".") || strings.HasPrefix(re.Path, p.prefix+"[")) && len(p.prefix) > best {
				best, rule = len(p.prefix), p.rule
			}
		}
		if rule != "" {
			return rule
		}
	}
	if r, ok := shapeRules[typ]; ok {
		return r
	}
	return "CN-22"
}
