package schemagen

import (
	"reflect"

	"github.com/wirecheck/wirecheck/proto"
)

// valueRule adds a value rule that JSON Schema can state cheaply to one member of one payload
// struct. The shape comes from the Go types; these are the only hand-written keywords, and every
// value comes from proto's own constants. The Go validators remain the authority: a value these
// rules admit can still break a rule that depends on other members.
type valueRule struct {
	owner  reflect.Type
	member string
	enum   []string // the allowed values; an optional member also admits "" (its omitted zero value)
	// pattern is an ECMA-262 regular expression the value must match.
	pattern string
}

const (
	optionalSHA256Pattern = "^([0-9a-f]{64})?$"
)

func rule[T any](member string, enum ...string) valueRule {
	return valueRule{owner: reflect.TypeFor[T](), member: member, enum: enum}
}

func pattern[T any](member, p string) valueRule {
	return valueRule{owner: reflect.TypeFor[T](), member: member, pattern: p}
}

var valueRules = []valueRule{
	rule[proto.RuntimePreparePayload]("step", proto.StepBegin, proto.StepChunk, proto.StepCommit),
	rule[proto.RuntimePreparePayload]("action", proto.ActionSkill, proto.ActionPlugin, proto.ActionFile, proto.ActionInitialize, proto.ActionFinalize),
	pattern[proto.RuntimePreparePayload]("sha256", optionalSHA256Pattern),
	rule[proto.RuntimeInitialization]("action", proto.InitConfigure, proto.InitNPM, proto.InitPython, proto.InitSetup),
	rule[proto.InlineCapability]("type", proto.InlineCapabilityType),
	rule[proto.RuntimePrepareResultPayload]("outcome", proto.OutcomeReady, proto.OutcomeReceived, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeFailed, proto.OutcomeUnknown),

	rule[proto.PreparationStatusPayload]("state", proto.StatePreparing, proto.StateReady, proto.StateStarting, proto.StateStarted, proto.StateReleased, proto.StateExpired, proto.StateFailed, proto.StateRejected),
	rule[proto.PreparationStatusPayload]("operation", proto.OperationPrepare, proto.OperationStart, proto.OperationRelease),

	rule[proto.ExecutionControls]("web_search", proto.WebSearchDisabled, proto.WebSearchCached, proto.WebSearchLive),
	rule[proto.ExecutionControls]("text_verbosity", proto.VerbosityLow, proto.VerbosityMedium, proto.VerbosityHigh),
	rule[proto.OutputFormat]("type", proto.OutputFormatJSONSchema),
	rule[proto.MCPHTTPServer]("connection_origin", proto.MCPOriginService, proto.MCPOriginEnvironment),

	rule[proto.OutputMessagePayload]("status", proto.MessageInProgress, proto.MessageCompleted, proto.MessageIncomplete),
	rule[proto.ToolCallPayload]("stage", proto.ToolStageBefore, proto.ToolStageAfter),

	rule[proto.WorkspaceReadPayload]("operation", proto.ReadBytes, proto.ReadDirectory),
	rule[proto.WorkspaceReadResultPayload]("outcome", proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeUnknown),
	rule[proto.DirectoryEntry]("kind", proto.EntryFile, proto.EntryDirectory, proto.EntrySymlink, proto.EntryOther),
	rule[proto.WorkspaceWritePayload]("step", proto.StepBegin, proto.StepChunk, proto.StepCommit),
	pattern[proto.WorkspaceWritePayload]("sha256", optionalSHA256Pattern),
	rule[proto.WorkspaceWriteResultPayload]("outcome", proto.OutcomeReady, proto.OutcomeReceived, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeUnknown),
	rule[proto.WorkspaceExportPayload]("step", proto.ExportBegin, proto.ExportNext, proto.ExportCancel),
	rule[proto.WorkspaceExportResultPayload]("outcome", proto.OutcomeChunk, proto.OutcomeCompleted, proto.OutcomeRejected, proto.OutcomeFailed),
}
