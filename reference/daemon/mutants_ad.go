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
	if mutation.On(mutation.ADExpiresAtInSeconds) && s.ExpiresAt > 0 {
		s.ExpiresAt /= 1000
	}
	if mutation.On(mutation.ADDeadlineAnnouncedLater) && s.ExpiresAt > 0 {
		s.ExpiresAt += time.Minute.Milliseconds()
	}
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
	case s.ErrorCode == proto.CodeStartCancelled && s.Operation == proto.OperationStart && mutation.On(mutation.ADStartCancelledWrongCode):
		s.ErrorCode = proto.CodeExecutorUnavailable
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
	ro := c.Configuration.WorkspaceReadOnly
	switch {
	case mutation.On(mutation.ADBlankSessionAccepted) && strings.TrimSpace(c.SessionID) == "":
		c.SessionID = strings.TrimPrefix(c.Configuration.AgentStateKey, "agents-api-")
	case mutation.On(mutation.ADReadOnlyStateKeyUnchecked) && ro:
		c.Configuration.AgentStateKey = proto.StateKeyFor(c.SessionID)
	case mutation.On(mutation.ADReadOnlyRunIDAccepted) && ro:
		c.Configuration.RunID = ""
	case mutation.On(mutation.ADReadOnlyInputAccepted) && ro:
		c.Configuration.Input = nil
	case mutation.On(mutation.ADReadOnlyConversationAccepted) && ro:
		c.Configuration.ConversationID = ""
	case mutation.On(mutation.ADReadOnlyAuthoringAccepted) && ro:
		c.Configuration.WorkspaceAuthoring = false
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
	case mutation.On(mutation.ADReadOnlyStateKeyUnchecked):
		c.Configuration.AgentStateKey = proto.StateKeyFor(c.SessionID)
	case mutation.On(mutation.ADReadOnlyRunIDAccepted):
		c.Configuration.RunID = ""
	case mutation.On(mutation.ADReadOnlyInputAccepted):
		c.Configuration.Input = nil
	case mutation.On(mutation.ADReadOnlyConversationAccepted):
		c.Configuration.ConversationID = ""
	case mutation.On(mutation.ADReadOnlyAuthoringAccepted):
		c.Configuration.WorkspaceAuthoring = false
	case mutation.On(mutation.ADReadOnlyMCPAccepted):
		c.Configuration.MCPHTTPServers = nil
	case mutation.On(mutation.ADReadOnlyFunctionToolsAccepted):
		c.Configuration.FunctionTools = nil
	case mutation.On(mutation.ADReadOnlyRequireAccepted):
		c.Configuration.RequireExistingNativeSession = false
	case mutation.On(mutation.ADReadOnlyNoEnvironmentAccepted):
		c.Configuration.DisableExecutionEnvironment = false
	case mutation.On(mutation.ADReadOnlyToolSearchAccepted):
		c.Configuration.ToolSearch = false
	case mutation.On(mutation.ADReadOnlyObserveToolsAccepted):
		c.Configuration.ObserveToolObservations = false
	case mutation.On(mutation.ADReadOnlyObserveSubsAccepted):
		c.Configuration.ObserveSubagentIdentities = false
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
	case mutation.On(mutation.ADBlankSessionAccepted) && strings.TrimSpace(loose.SessionID) == "":
		loose.SessionID = strings.TrimPrefix(c.AgentStateKey, "agents-api-")
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
	case mutation.On(mutation.ADWebSearchDefaulted) && c.ExecutionControls != nil && c.ExecutionControls.WebSearch == "":
	case mutation.On(mutation.ADWebSearchUnchecked) && c.ExecutionControls != nil && c.ExecutionControls.WebSearch != "" &&
		!proto.KnownWebSearch(c.ExecutionControls.WebSearch):
	case mutation.On(mutation.ADServiceOriginWithEnvironment) && !c.DisableExecutionEnvironment &&
		servers(func(o, _ string) bool { return o == "service" }):
	case mutation.On(mutation.ADServiceOriginWithBinding) && c.LocalEnvironment != nil &&
		servers(func(o, _ string) bool { return o == "service" }):
	case mutation.On(mutation.ADEnvironmentOriginWithoutBind) && c.LocalEnvironment == nil &&
		servers(func(o, _ string) bool { return o == "environment" }):
	case mutation.On(mutation.ADEnvironmentOriginDisabled) && c.DisableExecutionEnvironment &&
		servers(func(o, _ string) bool { return o == "environment" }):
	case mutation.On(mutation.ADServerURLOptional) && strings.Contains(msg, "server_url"):
	case mutation.On(mutation.ADAllowedToolsOptional) && strings.Contains(msg, "allowed_tools"):
	case mutation.On(mutation.ADBindingIDOptional) && strings.Contains(msg, "local_environment.id"):
	case mutation.On(mutation.ADBindingDirectoryOptional) && strings.Contains(msg, "workspace_directory"):
	case mutation.On(mutation.ADBindingSourcesOptional) && strings.Contains(msg, "capability_sources"):
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
	if mutation.On(mutation.ADStartingConflictRepublishes) && g.rec.State == admission.Starting {
		ev.Hash = g.rec.StartHash
	}
	if mutation.On(mutation.ADStartExpiresEarly) {
		ev.Now = ev.Now.Add(time.Minute)
	}
}

// startHashAD fingerprints an execution_start; a mutant leaves out its input (AD-36.7).
func startHashAD(raw json.RawMessage) string {
	if mutation.On(mutation.ADStartHashIgnoresInput) || mutation.On(mutation.ADStartHashIgnoresRunID) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			if mutation.On(mutation.ADStartHashIgnoresInput) {
				delete(m, "input")
			} else {
				delete(m, "run_id")
			}
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

// startCodeAD is the code an undecodable execution_start is refused with: invalid_start, or under a
// mutant another (AD-31).
func startCodeAD(env proto.Envelope) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(env.Payload, &m) != nil {
		if mutation.On(mutation.ADUndecodableStartWrongCode) {
			return proto.CodeInvalidRequest
		}
		return proto.CodeInvalidStart
	}
	var loose proto.ExecutionStartPayload
	_ = json.Unmarshal(env.Payload, &loose)
	_, hasInput := m["input"]
	switch {
	case loose.Handle == "" && mutation.On(mutation.ADStartWithoutHandleWrongCode):
		return proto.CodeUnknownPreparation
	case loose.ExecutorID == "" && mutation.On(mutation.ADStartWithoutExecutorWrongCode):
		return proto.CodeUnknownExecutor
	case !hasInput && mutation.On(mutation.ADStartWithoutInputWrongCode):
		return proto.CodeInvalidRequest
	}
	return proto.CodeInvalidStart
}

// releaseCodeAD is the code an undecodable execution_release is refused with (AD-44.2).
func releaseCodeAD(env proto.Envelope) string {
	var loose proto.ExecutionReleasePayload
	if json.Unmarshal(env.Payload, &loose) != nil && mutation.On(mutation.ADUndecodableReleaseWrongCode) {
		return proto.CodeInvalidRequest
	}
	return proto.CodeInvalidRelease
}

// blankPartBesideTextAD reports, under the mutant, whether a message holds a blank text part
// beside a meaningful one (AD-66.3).
func blankPartBesideTextAD(in proto.MessageInput) bool {
	if !mutation.On(mutation.ADBlankPartBesideTextRefused) {
		return false
	}
	for _, m := range in {
		blank, meaningful := false, false
		for _, part := range m.Content {
			switch {
			case part.Type == proto.ContentInputImage, strings.TrimSpace(part.Text) != "":
				meaningful = true
			default:
				blank = true
			}
		}
		if blank && meaningful {
			return true
		}
	}
	return false
}

// publishLateReadyAD: under a mutant, an admission that ended while its setup ran still publishes
// ready when the setup returns (AD-28.2, AD-46.3). It reports whether it did.
func (r *router) publishLateReadyAD(g *grant) bool {
	abandoned := mutation.On(mutation.ADAbandonedGoesReady) && g.rec.State == admission.Failed && g.rec.ErrorCode == proto.CodeStatusDeliveryFailed
	released := mutation.On(mutation.ADReleasedSetupGoesReady) && g.rec.State == admission.Released
	if !abandoned && !released {
		return false
	}
	s := g.rec.Status()
	s.State, s.ErrorCode, s.Revision = proto.StateReady, "", s.Revision+1
	r.goAfter(r.carryOutLocked(g, []admission.Effect{admission.Publish{Status: s}}))
	return true
}

// idleExpiredAD reports, under the mutant whose idle expiry is 30 min, whether e has been idle that
// long: it is then not reused, whether or not its expiry timer has closed it yet (AD-70.1).
func idleExpiredAD(r *router, e *executor) bool {
	return mutation.On(mutation.ADIdleExpiryEarly) && e.state == execIdle &&
		r.d.cfg.Clock.Now().Sub(e.idleSinceAD) >= proto.IdleExecutorExpiry/2
}
