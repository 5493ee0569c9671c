package proto

import (
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Runtime preparation actions.
const (
	ActionSkill      = "skill"
	ActionPlugin     = "plugin"
	ActionFile       = "file"
	ActionInitialize = "initialize"
	ActionFinalize   = "finalize"
)

// Initialization actions.
const (
	InitConfigure = "configure"
	InitNPM       = "npm"
	InitPython    = "python"
	InitSetup     = "setup"
)

// RuntimePreparePayload is one step of an Environment initialization transfer (id = transfer ID,
// a canonical UUID). One transfer is allowed per connection.
type RuntimePreparePayload struct {
	Step           string                 `json:"step" wire:"req"`
	EnvironmentID  string                 `json:"environment_id,omitempty" wire:"opt"`
	SessionID      string                 `json:"session_id,omitempty" wire:"opt"`
	Action         string                 `json:"action,omitempty" wire:"opt"`
	Slot           int                    `json:"slot,omitempty" wire:"opt"`
	Skill          *InlineCapability      `json:"skill,omitempty" wire:"opt"`
	Plugin         *InlineCapability      `json:"plugin,omitempty" wire:"opt"`
	File           *PreparedFile          `json:"file,omitempty" wire:"opt"`
	Initialization *RuntimeInitialization `json:"initialization,omitempty" wire:"opt"`
	Sources        *CapabilitySources     `json:"sources,omitempty" wire:"opt"`
	SizeBytes      int64                  `json:"size_bytes,omitempty" wire:"opt"`
	SHA256         string                 `json:"sha256,omitempty" wire:"opt"`
	Offset         int64                  `json:"offset,omitempty" wire:"opt"`
	Data           []byte                 `json:"data,omitempty" wire:"opt"`
}

// PreparedFile names the logical destination of a file transfer.
type PreparedFile struct {
	Path string `json:"path" wire:"req"`
}

// RuntimeInitialization is an initialization header: configure an environment, install packages or
// run a setup command.
type RuntimeInitialization struct {
	Action   string            `json:"action" wire:"req"`
	Env      map[string]string `json:"env,omitempty" wire:"opt"`
	Packages []string          `json:"packages,omitempty" wire:"opt"`
	Command  string            `json:"command,omitempty" wire:"opt"`
	Cwd      string            `json:"cwd,omitempty" wire:"opt"`
}

func (p *RuntimePreparePayload) hasBeginMembers() string {
	switch {
	case p.EnvironmentID != "":
		return "environment_id"
	case p.SessionID != "":
		return "session_id"
	case p.Action != "":
		return "action"
	case p.Slot != 0:
		return "slot"
	case p.Skill != nil:
		return "skill"
	case p.Plugin != nil:
		return "plugin"
	case p.Sources != nil:
		return "sources"
	case p.File != nil:
		return "file"
	case p.Initialization != nil:
		return "initialization"
	case p.SizeBytes != 0:
		return "size_bytes"
	case p.SHA256 != "":
		return "sha256"
	}
	return ""
}

func (p *RuntimePreparePayload) Validate() error {
	switch p.Step {
	case StepBegin:
		return p.validateBegin()
	case StepChunk, StepCommit:
		if m := p.hasBeginMembers(); m != "" {
			return violation(p.Step+"."+m, "is a begin member and must be absent on %s", p.Step)
		}
		if p.Step == StepChunk {
			return checkChunkData(StepChunk, p.Offset, p.Data)
		}
		if p.Offset != 0 || len(p.Data) > 0 {
			return violation("commit", "must carry offset 0 and no data")
		}
		return nil
	default:
		return violation("step", "must be begin, chunk or commit")
	}
}

func (p *RuntimePreparePayload) validateBegin() error {
	const b = "begin."
	if err := first(checkUUID(b+"environment_id", p.EnvironmentID), checkUUID(b+"session_id", p.SessionID)); err != nil {
		return err
	}
	if p.Offset != 0 || len(p.Data) > 0 {
		return violation("begin", "must carry offset 0 and no data")
	}
	if err := checkSize(b+"size_bytes", p.SizeBytes); err != nil {
		return err
	}
	// Exactly one header member, and it must match the action.
	headers := []struct {
		name    string
		present bool
	}{{"skill", p.Skill != nil}, {"plugin", p.Plugin != nil}, {"file", p.File != nil},
		{"initialization", p.Initialization != nil}, {"sources", p.Sources != nil}}
	want := map[string]string{ActionSkill: "skill", ActionPlugin: "plugin", ActionFinalize: "sources",
		ActionFile: "file", ActionInitialize: "initialization"}[p.Action]
	if want == "" {
		return violation(b+"action", "must be skill, plugin, file, initialize or finalize")
	}
	found := false
	for _, h := range headers {
		if h.present && h.name != want {
			return violation(b+h.name, "must be absent for action %s (begin carries exactly one header)", p.Action)
		}
		found = found || (h.present && h.name == want)
	}
	if !found {
		return violation(b+want, "is required for action %s", p.Action)
	}
	if p.Action != ActionPlugin && p.Slot != 0 {
		return violation(b+"slot", "must be 0 unless action is plugin")
	}
	switch p.Action {
	case ActionSkill, ActionPlugin:
		if p.Action == ActionPlugin && (p.Slot < 0 || p.Slot >= PluginSlots) {
			return violation(b+"slot", "must be between 0 and %d", PluginSlots-1)
		}
		h := p.Skill
		if p.Action == ActionPlugin {
			h = p.Plugin
		}
		if err := h.Validate(); err != nil {
			return within(b+want, err)
		}
		if p.SizeBytes == 0 {
			return violation(b+"size_bytes", "must be greater than 0 for %s", p.Action)
		}
		return checkSHA256(b+"sha256", p.SHA256)
	case ActionFile:
		if err := checkLogicalWorkspacePath(b+"file.path", p.File.Path); err != nil {
			return err
		}
		return checkSHA256(b+"sha256", p.SHA256)
	case ActionInitialize:
		return first(noBody(b, p), p.Initialization.Validate())
	default: // finalize
		if err := noBody(b, p); err != nil {
			return err
		}
		return within(b+"sources", p.Sources.Validate())
	}
}

func noBody(prefix string, p *RuntimePreparePayload) error {
	if p.SizeBytes != 0 {
		return violation(prefix+"size_bytes", "must be 0 for %s (headers carry no file data)", p.Action)
	}
	if p.SHA256 != "" {
		return violation(prefix+"sha256", "must be empty for %s", p.Action)
	}
	return nil
}

// checkLogicalWorkspacePath validates a file destination: below /workspace/, clean, bounded.
func checkLogicalWorkspacePath(p, s string) error {
	if err := checkLinePath(p, s); err != nil {
		return err
	}
	if !strings.HasPrefix(s, "/workspace/") || path.Clean(s) != s {
		return violation(p, "must be a clean path below /workspace/")
	}
	return nil
}

func (i *RuntimeInitialization) Validate() error {
	const b = "begin.initialization."
	only := func(member string, set bool, action string) error {
		if set && i.Action != action {
			return violation(b+member, "is only allowed for action %s", action)
		}
		return nil
	}
	if err := first(
		only("env", i.Env != nil, InitConfigure),
		only("command", i.Command != "", InitSetup),
		only("cwd", i.Cwd != "", InitSetup),
	); err != nil {
		return err
	}
	if i.Packages != nil && i.Action != InitNPM && i.Action != InitPython {
		return violation(b+"packages", "is only allowed for actions npm and python")
	}
	switch i.Action {
	case InitConfigure:
		if len(i.Env) > MaxInitializationEntries {
			return violation(b+"env", "must have at most %d entries", MaxInitializationEntries)
		}
		for _, k := range slices.Sorted(maps.Keys(i.Env)) { // the first bad entry in name order
			v := i.Env[k]
			if k == "" || strings.ContainsAny(k, "=\x00\r\n") {
				return violation(b+"env", "keys must be non-empty without =, NUL, CR or LF")
			}
			if strings.ContainsRune(v, 0) {
				return violation(b+"env."+k, "must not contain NUL")
			}
		}
	case InitNPM, InitPython:
		if len(i.Packages) == 0 || len(i.Packages) > MaxInitializationEntries {
			return violation(b+"packages", "must have 1 to %d entries", MaxInitializationEntries)
		}
		for j, pkg := range i.Packages {
			if pkg == "" || strings.HasPrefix(pkg, "-") || strings.ContainsAny(pkg, "\x00\r\n") {
				return violation(indexPath(b+"packages", j), "must be non-empty, not start with -, and have no NUL, CR or LF")
			}
		}
	case InitSetup:
		if i.Command == "" || !utf8.ValidString(i.Command) || strings.ContainsRune(i.Command, 0) {
			return violation(b+"command", "must be non-empty UTF-8 without NUL")
		}
		if i.Cwd != "" && i.Cwd != "/workspace" && !strings.HasPrefix(i.Cwd, "/workspace/") {
			return violation(b+"cwd", "must be /workspace or below it")
		}
		if i.Cwd != "" && path.Clean(i.Cwd) != i.Cwd {
			return violation(b+"cwd", "must be a clean path")
		}
	default:
		return violation(b+"action", "must be configure, npm, python or setup")
	}
	return nil
}

// RuntimePrepareResultPayload is the receipt of one runtime_prepare step.
type RuntimePrepareResultPayload struct {
	Outcome   string `json:"outcome" wire:"req"`
	Offset    int64  `json:"offset,omitempty" wire:"opt"`
	SizeBytes int64  `json:"size_bytes,omitempty" wire:"opt"`
	ErrorCode string `json:"error_code,omitempty" wire:"opt"`
	ExitCode  int    `json:"exit_code,omitempty" wire:"opt"`
}

func (p *RuntimePrepareResultPayload) Validate() error {
	switch p.Outcome {
	case OutcomeReady, OutcomeReceived, OutcomeCompleted:
		if p.ErrorCode != "" {
			return violation("error_code", "must be empty on %s", p.Outcome)
		}
	case OutcomeRejected, OutcomeFailed, OutcomeUnknown:
		if !KnownRuntimePrepareCode(p.Outcome, p.ErrorCode) {
			return violation("error_code", "must be a listed code for outcome %s", p.Outcome)
		}
		if p.Offset != 0 || p.SizeBytes != 0 {
			return violation(p.Outcome, "must carry offset 0 and size_bytes 0")
		}
	default:
		return violation("outcome", "must be ready, received, completed, rejected, failed or unknown")
	}
	if p.ExitCode != 0 && p.Outcome != OutcomeFailed {
		return violation("exit_code", "is only allowed with failed")
	}
	if p.ExitCode < 0 || p.ExitCode > 255 {
		return violation("exit_code", "must be between 0 and 255")
	}
	if p.Outcome != OutcomeReceived && p.Offset != 0 {
		return violation("offset", "is only set on received")
	}
	if p.Outcome == OutcomeReceived && (p.Offset <= 0 || p.Offset > TransferMaxBytes) {
		return violation("offset", "must be the cumulative bytes received (1 to %d)", TransferMaxBytes)
	}
	if p.Outcome != OutcomeCompleted && p.SizeBytes != 0 {
		return violation("size_bytes", "is only set on completed")
	}
	return checkSize("size_bytes", p.SizeBytes)
}
