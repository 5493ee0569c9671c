package proto

import (
	"strings"
	"unicode/utf8"
)

// Workspace read operations.
const (
	ReadBytes     = ""
	ReadDirectory = "directory"
)

// WorkspaceReadPayload reads bytes or lists one directory of the bound workspace, targeting exactly
// one of a ready preparation handle or the Run it was transferred to.
type WorkspaceReadPayload struct {
	Handle        string `json:"handle,omitempty" wire:"opt"`
	RunID         string `json:"run_id,omitempty" wire:"opt"`
	EnvironmentID string `json:"environment_id" wire:"req"`
	Path          string `json:"path" wire:"req"`
	MaxBytes      int    `json:"max_bytes" wire:"req"`
	Operation     string `json:"operation,omitempty" wire:"opt"`
	MaxEntries    int    `json:"max_entries,omitempty" wire:"opt"`
}

func (p *WorkspaceReadPayload) Validate() error {
	if (p.Handle == "") == (p.RunID == "") {
		return violation("handle", "exactly one of handle and run_id is required")
	}
	if err := nonBlank("environment_id", p.EnvironmentID); err != nil {
		return err
	}
	switch p.Operation {
	case ReadBytes:
		if err := CheckWorkspaceRelativePath("path", p.Path, false); err != nil {
			return err
		}
		if p.MaxBytes < 1 || p.MaxBytes > WorkspaceReadMaxBytes {
			return violation("max_bytes", "must be between 1 and %d for a byte read", WorkspaceReadMaxBytes)
		}
		if p.MaxEntries != 0 {
			return violation("max_entries", "must be 0 for a byte read (byte and entry limits are exclusive)")
		}
	case ReadDirectory:
		if err := CheckWorkspaceRelativePath("path", p.Path, true); err != nil {
			return err
		}
		if p.MaxEntries < 1 || p.MaxEntries > DirectoryMaxEntries {
			return violation("max_entries", "must be between 1 and %d for a directory read", DirectoryMaxEntries)
		}
		if p.MaxBytes != 0 {
			return violation("max_bytes", "must be 0 for a directory read (byte and entry limits are exclusive)")
		}
	default:
		return violation("operation", "must be empty (bytes) or directory")
	}
	return nil
}

// WorkspaceReadResultPayload answers a read after the native close is acknowledged.
type WorkspaceReadResultPayload struct {
	Outcome           string                    `json:"outcome" wire:"req"`
	Data              []byte                    `json:"data,omitempty" wire:"opt"`
	Truncated         bool                      `json:"truncated,omitempty" wire:"opt"`
	CloseAcknowledged bool                      `json:"close_acknowledged,omitempty" wire:"opt"`
	ErrorCode         string                    `json:"error_code,omitempty" wire:"opt"`
	Directory         *WorkspaceDirectoryResult `json:"directory,omitempty" wire:"opt"`
}

func (p *WorkspaceReadResultPayload) Validate() error {
	switch p.Outcome {
	case OutcomeCompleted:
		switch {
		case p.ErrorCode != "":
			return violation("error_code", "must be empty on completed")
		case !p.CloseAcknowledged:
			return violation("close_acknowledged", "must be true on completed (data only after a confirmed close)")
		case len(p.Data) > WorkspaceReadMaxBytes:
			return violation("data", "must be at most %d bytes", WorkspaceReadMaxBytes)
		case p.Directory != nil && (len(p.Data) > 0 || p.Truncated):
			return violation("directory", "a directory result carries no data or byte truncation")
		}
		if p.Directory != nil {
			return within("directory", p.Directory.Validate())
		}
		return nil
	case OutcomeRejected, OutcomeUnknown:
		if !KnownReadCode(p.Outcome, p.ErrorCode) {
			return violation("error_code", "must be a listed code for outcome %s", p.Outcome)
		}
		if len(p.Data) > 0 || p.Directory != nil || p.Truncated {
			return violation(p.Outcome, "carries no data")
		}
		return nil
	default:
		return violation("outcome", "must be completed, rejected or unknown")
	}
}

// CheckAgainst applies the rules that need the request: a byte read returns at most max_bytes and,
// if truncated, exactly max_bytes; a listing returns at most max_entries.
func (p *WorkspaceReadResultPayload) CheckAgainst(req *WorkspaceReadPayload) error {
	return ofType(TypeWorkspaceReadResult, p.checkAgainst(req))
}

func (p *WorkspaceReadResultPayload) checkAgainst(req *WorkspaceReadPayload) error {
	if p.Outcome != OutcomeCompleted {
		return nil
	}
	if req.Operation == ReadDirectory {
		if p.Directory == nil {
			return violation("directory", "is required for a completed directory read")
		}
		if len(p.Directory.Entries) > req.MaxEntries {
			return violation("directory.entries", "must have at most max_entries (%d) entries", req.MaxEntries)
		}
		return nil
	}
	if p.Directory != nil {
		return violation("directory", "must be absent for a byte read")
	}
	if len(p.Data) > req.MaxBytes {
		return violation("data", "must be at most max_bytes (%d)", req.MaxBytes)
	}
	if p.Truncated && len(p.Data) != req.MaxBytes {
		return violation("truncated", "a truncated read returns exactly max_bytes (%d)", req.MaxBytes)
	}
	return nil
}

// WorkspaceDirectoryResult lists one directory without recursion or pagination.
type WorkspaceDirectoryResult struct {
	Entries   []DirectoryEntry `json:"entries" wire:"req"`
	Truncated bool             `json:"truncated" wire:"req"`
}

// Directory entry kinds.
const (
	EntryFile      = "file"
	EntryDirectory = "directory"
	EntrySymlink   = "symlink"
	EntryOther     = "other"
)

// DirectoryEntry is one name of a listing; SizeBytes is set for regular files only and is always
// encoded (null for every other kind).
type DirectoryEntry struct {
	Name      string `json:"name" wire:"req"`
	Kind      string `json:"kind" wire:"req"`
	SizeBytes *int64 `json:"size_bytes" wire:"req,null"`
}

func (d *WorkspaceDirectoryResult) Validate() error {
	if d.Entries == nil {
		return violation("entries", "must be an array, not null")
	}
	if len(d.Entries) > DirectoryMaxEntries {
		return violation("entries", "must have at most %d entries", DirectoryMaxEntries)
	}
	seen := map[string]bool{}
	for i, e := range d.Entries {
		p := indexPath("entries", i)
		if err := checkEntryName(p+".name", e.Name); err != nil {
			return err
		}
		if seen[e.Name] {
			return violation(p+".name", "must be unique within the listing")
		}
		seen[e.Name] = true
		switch e.Kind {
		case EntryFile:
			if e.SizeBytes == nil || *e.SizeBytes < 0 {
				return violation(p+".size_bytes", "must be a non-negative size for a file")
			}
		case EntryDirectory, EntrySymlink, EntryOther:
			if e.SizeBytes != nil {
				return violation(p+".size_bytes", "must be null for kind %s", e.Kind)
			}
		default:
			return violation(p+".kind", "must be file, directory, symlink or other")
		}
	}
	return nil
}

func checkEntryName(p, name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return violation(p, "must be one path component, not empty, . or ..")
	case len(name) > DirectoryNameMaxBytes:
		return violation(p, "must be at most %d bytes", DirectoryNameMaxBytes)
	case !utf8.ValidString(name):
		return violation(p, "must be valid UTF-8")
	case strings.ContainsAny(name, "/\\\x00\r\n"):
		return violation(p, "must be a single component without /, \\, NUL, CR or LF")
	}
	return nil
}

// WorkspaceWritePayload is one step of a bounded workspace write (id = mutation ID, a canonical
// UUID). The native writer runs only after commit, and runs no model.
type WorkspaceWritePayload struct {
	Step          string `json:"step" wire:"req"`
	EnvironmentID string `json:"environment_id,omitempty" wire:"opt"`
	SessionID     string `json:"session_id,omitempty" wire:"opt"`
	Path          string `json:"path,omitempty" wire:"opt"`
	SizeBytes     int64  `json:"size_bytes,omitempty" wire:"opt"`
	SHA256        string `json:"sha256,omitempty" wire:"opt"`
	Offset        int64  `json:"offset,omitempty" wire:"opt"`
	Data          []byte `json:"data,omitempty" wire:"opt"`
}

func (p *WorkspaceWritePayload) Validate() error {
	switch p.Step {
	case StepBegin:
		const b = "begin."
		if p.Offset != 0 || len(p.Data) > 0 {
			return violation("begin", "must carry offset 0 and no data")
		}
		return first(
			checkUUID(b+"environment_id", p.EnvironmentID),
			checkUUID(b+"session_id", p.SessionID),
			CheckWorkspaceRelativePath(b+"path", p.Path, false),
			checkSize(b+"size_bytes", p.SizeBytes),
			checkSHA256(b+"sha256", p.SHA256),
		)
	case StepChunk, StepCommit:
		for _, m := range []struct {
			name string
			set  bool
		}{{"environment_id", p.EnvironmentID != ""}, {"session_id", p.SessionID != ""}, {"path", p.Path != ""},
			{"size_bytes", p.SizeBytes != 0}, {"sha256", p.SHA256 != ""}} {
			if m.set {
				return violation(p.Step+"."+m.name, "is a begin member and must be absent on %s", p.Step)
			}
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

// WorkspaceWriteResultPayload is the receipt of one write step.
type WorkspaceWriteResultPayload struct {
	Outcome   string `json:"outcome" wire:"req"`
	Offset    int64  `json:"offset,omitempty" wire:"opt"`
	SizeBytes int64  `json:"size_bytes,omitempty" wire:"opt"`
	ErrorCode string `json:"error_code,omitempty" wire:"opt"`
	Reason    string `json:"reason,omitempty" wire:"opt"`
}

func (p *WorkspaceWriteResultPayload) Validate() error {
	switch p.Outcome {
	case OutcomeReady, OutcomeReceived, OutcomeCompleted:
		if p.ErrorCode != "" {
			return violation("error_code", "must be empty on %s", p.Outcome)
		}
	case OutcomeRejected, OutcomeUnknown:
		if !KnownWriteCode(p.Outcome, p.ErrorCode) {
			return violation("error_code", "must be a listed code for outcome %s", p.Outcome)
		}
	default:
		return violation("outcome", "must be ready, received, completed, rejected or unknown")
	}
	if p.Reason != "" && p.ErrorCode != CodeWriteRejected {
		return violation("reason", "is only set with rejected/write_rejected")
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

// Export steps.
const (
	ExportBegin  = "begin"
	ExportNext   = "next"
	ExportCancel = "cancel"
)

// WorkspaceExportPayload pulls a tar archive of output files from a read-only preparation.
type WorkspaceExportPayload struct {
	Step          string `json:"step" wire:"req"`
	Handle        string `json:"handle,omitempty" wire:"opt"`
	EnvironmentID string `json:"environment_id,omitempty" wire:"opt"`
	Offset        int64  `json:"offset,omitempty" wire:"opt"`
}

func (p *WorkspaceExportPayload) Validate() error {
	switch p.Step {
	case ExportBegin:
		if err := first(boundedID("begin.handle", p.Handle), boundedID("begin.environment_id", p.EnvironmentID)); err != nil {
			return err
		}
		if p.Offset != 0 {
			return violation("begin.offset", "must be 0")
		}
	case ExportNext, ExportCancel:
		if p.Handle != "" || p.EnvironmentID != "" {
			return violation(p.Step, "must not carry handle or environment_id (begin members)")
		}
		if p.Step == ExportCancel && p.Offset != 0 {
			return violation("cancel.offset", "must be 0")
		}
		if p.Offset < 0 || p.Offset > WorkspaceExportMaxBytes {
			return violation("next.offset", "must be between 0 and %d", WorkspaceExportMaxBytes)
		}
	default:
		return violation("step", "must be begin, next or cancel")
	}
	return nil
}

// WorkspaceExportResultPayload carries one chunk of the archive, its completion, or a failure.
// Offset is always encoded and is the offset before this chunk.
type WorkspaceExportResultPayload struct {
	Outcome   string `json:"outcome" wire:"req"`
	Offset    int64  `json:"offset" wire:"req"`
	Data      []byte `json:"data,omitempty" wire:"opt"`
	ErrorCode string `json:"error_code,omitempty" wire:"opt"`
}

func (p *WorkspaceExportResultPayload) Validate() error {
	if p.Offset < 0 || p.Offset > WorkspaceExportMaxBytes {
		return violation("offset", "must be between 0 and %d", WorkspaceExportMaxBytes)
	}
	switch p.Outcome {
	case OutcomeChunk:
		if len(p.Data) == 0 || len(p.Data) > TransferChunkBytes {
			return violation("data", "must carry 1 to %d bytes on chunk", TransferChunkBytes)
		}
		if p.ErrorCode != "" {
			return violation("error_code", "must be empty on chunk")
		}
	case OutcomeCompleted:
		if len(p.Data) > 0 || p.ErrorCode != "" {
			return violation("completed", "carries no data and no error_code")
		}
	case OutcomeRejected, OutcomeFailed:
		if !KnownExportCode(p.Outcome, p.ErrorCode) {
			return violation("error_code", "must be a listed code for outcome %s", p.Outcome)
		}
		if len(p.Data) > 0 {
			return violation("data", "must be absent on %s", p.Outcome)
		}
	default:
		return violation("outcome", "must be chunk, completed, rejected or failed")
	}
	return nil
}

func boundedID(p, s string) error {
	if s == "" || len(s) > CorrelationIDMaxBytes {
		return violation(p, "must be 1 to %d bytes", CorrelationIDMaxBytes)
	}
	return nil
}

// EnvironmentSuspendPayload is environment_quiesce and environment_resume.
type EnvironmentSuspendPayload struct {
	Rollback      bool   `json:"rollback,omitempty" wire:"opt"`
	EnvironmentID string `json:"environment_id" wire:"req"`
	SuspendID     string `json:"suspend_id" wire:"req"`
}

func (p *EnvironmentSuspendPayload) Validate() error {
	return first(nonBlank("environment_id", p.EnvironmentID), boundedID("suspend_id", p.SuspendID))
}

// EnvironmentSuspendResultPayload is environment_quiesced and environment_resumed; the identities
// must echo the request.
type EnvironmentSuspendResultPayload struct {
	EnvironmentID string `json:"environment_id" wire:"req"`
	SuspendID     string `json:"suspend_id" wire:"req"`
	Accepted      bool   `json:"accepted" wire:"req"`
	ErrorCode     string `json:"error_code,omitempty" wire:"opt"`
}

func (p *EnvironmentSuspendResultPayload) Validate() error {
	if err := first(nonBlank("environment_id", p.EnvironmentID), nonBlank("suspend_id", p.SuspendID)); err != nil {
		return err
	}
	if p.Accepted && p.ErrorCode != "" {
		return violation("error_code", "must be empty when accepted is true")
	}
	if !p.Accepted && !KnownSuspensionCode(p.ErrorCode) {
		return violation("error_code", "must be invalid_request, resource_busy or not_suspended when not accepted")
	}
	return nil
}
