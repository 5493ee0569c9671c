package daemon

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/admission"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The AD mutants that need more than a changed condition (points_ad.go). Every body is guarded by
// mutation.On, a constant false outside the wirecheck_mutants build.

// mutatePublishedAD bends a preparation_status an admission published (AD-04 to AD-06, AD-26,
// AD-51, AD-59).
func mutatePublishedAD(s *proto.PreparationStatusPayload) {
	readOnly := s.ExecutorID == ""
	switch s.State {
	case proto.StateExpired:
		if mutation.On(mutation.ADExpiredRevisionZero) {
			s.Revision = 0
		}
		if mutation.On(mutation.ADExpiredStateMisspelled) {
			s.State = "expire"
		}
		if mutation.On(mutation.ADExpiredCarriesErrorCode) {
			s.ErrorCode = proto.CodeExecutorUnavailable
		}
		if mutation.On(mutation.ADExpiredWithoutHandle) {
			s.Handle = ""
		}
	case proto.StateReady:
		if mutation.On(mutation.ADReadyWithoutExecutor) && !readOnly && !s.Reused {
			s.ExecutorID = ""
		}
		if mutation.On(mutation.ADReadyCarriesRunID) {
			s.RunID = "run-" + s.Handle
		}
		if mutation.On(mutation.ADReuseNotFlagged) && s.Reused {
			s.Reused = false
		}
		if mutation.On(mutation.ADReuseNamesNewExecutor) && s.Reused {
			s.ExecutorID = newID("executor-")
		}
		if mutation.On(mutation.ADReadyDeadlineMoved) && s.Revision > 1 {
			s.ExpiresAt += time.Second.Milliseconds()
		}
		if mutation.On(mutation.ADReadOnlyReadyWithoutDeadline) && readOnly {
			s.ExpiresAt = 0
		}
	case proto.StatePreparing:
		if mutation.On(mutation.ADPreparingFlaggedReused) {
			s.Reused = true
		}
		if mutation.On(mutation.ADReadOnlyPreparingNamesExecutor) && readOnly {
			s.ExecutorID = "executor-read-only"
		}
	case proto.StateStarting:
		if mutation.On(mutation.ADStartingRevisionSkipped) {
			s.Revision++
		}
	case proto.StateStarted:
		if mutation.On(mutation.ADStartedOtherHandle) {
			s.Handle += "-started"
		}
	case proto.StateFailed:
		if mutation.On(mutation.ADSetupFailureWrongCode) && s.ErrorCode == proto.CodePreparationFailed {
			s.ErrorCode = proto.CodeExecutorUnavailable
		}
	}
}

// withheldAD reports whether a published status is never sent (AD-05.1, AD-05.6).
func withheldAD(s proto.PreparationStatusPayload) bool {
	return (mutation.On(mutation.ADPreparingWithheld) && s.State == proto.StatePreparing && s.ExecutorID != "") ||
		(mutation.On(mutation.ADStartingWithheld) && s.State == proto.StateStarting)
}

// statusIDAD is the envelope id of an admission's status: the prepare's request ID (AD-01.6).
func statusIDAD(g *grant, s proto.PreparationStatusPayload) string {
	if mutation.On(mutation.ADStatusOtherEnvelopeID) && s.State == proto.StatePreparing {
		return g.rec.Handle
	}
	return g.reqID
}

// republishedAD reports whether a published status goes out twice (AD-26.5).
func republishedAD(s proto.PreparationStatusPayload) bool {
	return mutation.On(mutation.ADFailedRepublished) && s.State == proto.StateFailed && s.ErrorCode == proto.CodePreparationFailed
}

// mutateRejectedAD bends a rejection (AD-04, AD-34, AD-37, AD-40, AD-41, AD-58).
func mutateRejectedAD(s *proto.PreparationStatusPayload) {
	switch {
	case s.ErrorCode == proto.CodeInvalidConfiguration && mutation.On(mutation.ADRejectionWithoutOperation):
		s.Operation = ""
	case s.ErrorCode == proto.CodePreparationNotReady && mutation.On(mutation.ADNotReadyWrongCode):
		s.ErrorCode = proto.CodeResourceUnavailable
	case s.ErrorCode == proto.CodeExecutorUnavailable && mutation.On(mutation.ADUnavailableWithoutHandle),
		s.ErrorCode == proto.CodeExecutorCleanupUnconfirmed && s.Operation == proto.OperationStart && mutation.On(mutation.ADCleanupAnswerWithoutHandle):
		s.Handle, s.ExecutorID = "", ""
	case s.ErrorCode == proto.CodeReadOnlyPreparation && mutation.On(mutation.ADReadOnlyStartWrongCode):
		s.ErrorCode = proto.CodeUnknownExecutor
	case s.ErrorCode == proto.CodeUnsupportedReadPreparation && mutation.On(mutation.ADReadPreparationWrongCode):
		s.ErrorCode = proto.CodeUnsupportedPreparation
	}
}

// pureRejectionAD bends a rejection that names no admission (AD-04.7).
func pureRejectionAD(s *proto.PreparationStatusPayload) {
	if mutation.On(mutation.ADPureRejectionCarriesHandle) && s.Operation == proto.OperationPrepare {
		s.Handle, s.ExecutorID = newID("handle-"), newID("executor-")
	}
}

// laxPrepareAD is the payload the prepare rules check: a mutant clears the member whose rule it
// forgets (AD-09).
func laxPrepareAD(p *proto.ExecutionPreparePayload) *proto.ExecutionPreparePayload {
	c := *p
	switch {
	case mutation.On(mutation.ADPrepareRunIDAccepted):
		c.Configuration.RunID = ""
	case mutation.On(mutation.ADPrepareInputAccepted):
		c.Configuration.Input = nil
	case mutation.On(mutation.ADPrepareConversationAccepted):
		c.Configuration.ConversationID = ""
	case mutation.On(mutation.ADPrepareAuthoringAccepted):
		c.Configuration.WorkspaceAuthoring = false
	case mutation.On(mutation.ADPrepareStrictResumeUnchecked),
		mutation.On(mutation.ADReadOnlyStrictResumeUnchecked) && c.Configuration.WorkspaceReadOnly:
		c.Configuration.StrictResume = true
	default:
		return p
	}
	return &c
}

// laxReadOnlyAD is the payload the read-only profile checks (AD-57).
func laxReadOnlyAD(p *proto.ExecutionPreparePayload) *proto.ExecutionPreparePayload {
	c := *p
	switch {
	case mutation.On(mutation.ADReadOnlyStrictResumeUnchecked):
		c.Configuration.StrictResume = true
	case mutation.On(mutation.ADReadOnlyReleaseUnchecked):
		c.Configuration.ReleaseOnCompletion = true
	case mutation.On(mutation.ADReadOnlySessionIDAccepted):
		c.Configuration.AgentSessionID = ""
	case mutation.On(mutation.ADReadOnlyOptionsAccepted):
		c.Configuration.AgentOptions = nil
	case mutation.On(mutation.ADReadOnlyControlsAccepted):
		c.Configuration.ExecutionControls = nil
	case mutation.On(mutation.ADReadOnlyObserveAccepted):
		c.Configuration.ObserveMessages = false
	default:
		return p
	}
	return &c
}

// laxPrepareShapeAD decodes, for a mutant that forgets one configuration shape rule (AD-60 to
// AD-62), a prepare the strict decoder refused for that rule.
func (r *router) laxPrepareShapeAD(env proto.Envelope, p *proto.ExecutionPreparePayload, err error) (*proto.ExecutionPreparePayload, error) {
	if err == nil || !mutation.Enabled {
		return p, err
	}
	var loose proto.ExecutionPreparePayload
	if json.Unmarshal(env.Payload, &loose) != nil {
		return p, err
	}
	c := &loose.Configuration
	msg := err.Error()
	servers := func(bad func(origin, label string) bool) bool {
		for _, s := range c.MCPHTTPServers {
			if bad(s.ConnectionOrigin, s.ServerLabel) {
				return true
			}
		}
		return false
	}
	switch {
	case mutation.On(mutation.ADConfigurationDefaulted) && c.AgentKind == "" && c.AgentStateKey == "":
		*c = proto.PromptRequestPayload{AgentStateKey: proto.StateKeyFor(loose.SessionID), StrictResume: true,
			DisableExecutionEnvironment: true, ReleaseOnCompletion: true}
		for kind := range r.d.harnesses {
			if c.AgentKind == "" || kind < c.AgentKind {
				c.AgentKind = kind
			}
		}
	case mutation.On(mutation.ADAgentKindDefaulted) && c.AgentKind == "":
		for kind := range r.d.harnesses {
			if c.AgentKind == "" || kind < c.AgentKind {
				c.AgentKind = kind
			}
		}
	case mutation.On(mutation.ADAgentOptionsShapeUnchecked) && strings.Contains(msg, "agent_options"):
	case mutation.On(mutation.ADTextVerbosityDefaulted) && c.ExecutionControls != nil && c.ExecutionControls.TextVerbosity == "":
	case mutation.On(mutation.ADTextVerbosityUnchecked) && strings.Contains(msg, "text_verbosity") &&
		c.ExecutionControls != nil && c.ExecutionControls.TextVerbosity != "":
	case mutation.On(mutation.ADConnectionOriginDefaulted) && servers(func(o, _ string) bool { return o == "" }):
	case mutation.On(mutation.ADConnectionOriginUnchecked) &&
		servers(func(o, _ string) bool { return o != "" && o != "service" && o != "environment" }):
	case mutation.On(mutation.ADServerLabelOptional) && servers(func(_, l string) bool { return strings.TrimSpace(l) == "" }):
	default:
		return p, err
	}
	return &loose, nil
}

// laxStartAD decodes, for a mutant that forgets one execution_start rule (AD-02.3, AD-66.2,
// AD-67.1), a start the strict decoder refused for that rule.
func laxStartAD(env proto.Envelope, p *proto.ExecutionStartPayload, err error) (*proto.ExecutionStartPayload, error) {
	if err == nil || !mutation.Enabled {
		return p, err
	}
	var loose proto.ExecutionStartPayload
	if json.Unmarshal(env.Payload, &loose) != nil || loose.Handle == "" {
		return p, err
	}
	blank, remote := false, false
	for _, m := range loose.Input {
		text := ""
		images := 0
		for _, part := range m.Content {
			text += part.Text
			if part.Type == proto.ContentInputImage {
				images++
				u := part.ImageURL
				if !strings.HasPrefix(u, "data:image/png;base64,") && !strings.HasPrefix(u, "data:image/jpeg;base64,") {
					remote = true
				}
			}
		}
		if images == 0 && strings.TrimSpace(text) == "" {
			blank = true
		}
	}
	switch {
	case mutation.On(mutation.ADStartRunIDInvented) && loose.RunID == "":
		loose.RunID = newID("run-")
	case mutation.On(mutation.ADBlankMessageAccepted) && blank && loose.RunID != "":
	case mutation.On(mutation.ADRemoteImageAccepted) && remote && loose.RunID != "":
	default:
		return p, err
	}
	return &loose, nil
}

// withoutImagesAD is the input a text-only transport submits when it drops images (AD-68.3).
func withoutImagesAD(in proto.MessageInput) proto.MessageInput {
	var out proto.MessageInput
	for _, m := range in {
		var parts []proto.InputContent
		for _, part := range m.Content {
			if part.Type != proto.ContentInputImage {
				parts = append(parts, part)
			}
		}
		if len(parts) > 0 {
			out = append(out, proto.InputMessage{Content: parts})
		}
	}
	return out
}

// mutateStartAD bends the start an admission that already passed to a Run sees (AD-36).
func mutateStartAD(g *grant, ev *admission.StartRequested) {
	if (mutation.On(mutation.ADRepeatStartingConflicts) && g.rec.State == admission.Starting) ||
		(mutation.On(mutation.ADRepeatStartedConflicts) && g.rec.State == admission.Started) {
		ev.Hash = "a-different-start"
	}
}

// startHashAD fingerprints an execution_start; a mutant leaves out its input (AD-36.7).
func startHashAD(raw json.RawMessage) string {
	if mutation.On(mutation.ADStartHashIgnoresInput) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			delete(m, "input")
			if b, err := json.Marshal(m); err == nil {
				return payloadHash(b)
			}
		}
	}
	return payloadHash(raw)
}

// recordLimitAD is how many admission records a connection retains (AD-17).
func recordLimitAD() int { return proto.AdmissionRecords - offByOneAD(mutation.ADRecordLimitOffByOne) }

// offByOneAD is 1 when p, a limit one too low, is on.
func offByOneAD(p mutation.Point) int {
	if mutation.On(p) {
		return 1
	}
	return 0
}

// handlesAD keeps, per daemon, the handle map of its latest connection, for the mutant whose
// handles outlive their connection (AD-33.2).
var handlesAD sync.Map

// carriedHandlesAD is the handle map a new connection starts with: its own, or under the mutant
// the previous connection's.
func carriedHandlesAD(d *Daemon, fresh map[string]*grant) map[string]*grant {
	if !mutation.On(mutation.ADHandlesOutliveConnection) {
		return fresh
	}
	prev, _ := handlesAD.LoadOrStore(d, fresh)
	return prev.(map[string]*grant)
}

// writeSeenAD remembers the connections on which a workspace_write held the slot (AD-14.5).
var writeSeenAD sync.Map

// exclusionOutlivesWriteAD reports, under the mutant, whether a write ever held the slot on r.
func exclusionOutlivesWriteAD(r *router, writing bool) bool {
	if !mutation.On(mutation.ADExclusionOutlivesWrite) {
		return false
	}
	if writing {
		writeSeenAD.Store(r, true)
	}
	_, seen := writeSeenAD.Load(r)
	return seen
}
