package proto

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Transfer steps shared by runtime_prepare and workspace_write: begin, wait for ready, ordered
// chunks each awaiting the matching received offset, then commit awaiting completed.
const (
	StepBegin  = "begin"
	StepChunk  = "chunk"
	StepCommit = "commit"
)

// Outcomes of transfer, read, export and write results.
const (
	OutcomeReady     = "ready"
	OutcomeReceived  = "received"
	OutcomeCompleted = "completed"
	OutcomeRejected  = "rejected"
	OutcomeFailed    = "failed"
	OutcomeUnknown   = "unknown"
	OutcomeChunk     = "chunk"
)

var (
	uuidPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	sha256Pattern = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// NilUUID is the all-zero UUID, which is never a valid identity.
const NilUUID = "00000000-0000-0000-0000-000000000000"

// CanonicalUUID reports whether s is a canonical lowercase, non-nil UUID.
func CanonicalUUID(s string) bool { return uuidPattern.MatchString(s) && s != NilUUID }

func checkUUID(p, s string) error {
	if !CanonicalUUID(s) {
		return violation(p, "must be a canonical lowercase non-nil UUID")
	}
	return nil
}

func checkSHA256(p, s string) error {
	if !sha256Pattern.MatchString(s) {
		return violation(p, "must be 64 lowercase hex characters")
	}
	return nil
}

func checkSize(p string, n int64) error {
	if n < 0 || n > TransferMaxBytes {
		return violation(p, "must be between 0 and %d bytes", TransferMaxBytes)
	}
	return nil
}

func checkChunkData(p string, offset int64, data []byte) error {
	if offset < 0 || offset > TransferMaxBytes {
		return violation(p+".offset", "must be between 0 and %d", TransferMaxBytes)
	}
	if len(data) == 0 || len(data) > TransferChunkBytes {
		return violation(p+".data", "must carry 1 to %d bytes", TransferChunkBytes)
	}
	if offset+int64(len(data)) > TransferMaxBytes {
		return violation(p+".data", "must not extend past %d bytes", TransferMaxBytes)
	}
	return nil
}

// checkLinePath rejects backslashes, NUL, CR and LF and overlong paths.
func checkLinePath(p, s string) error {
	if len(s) > MaxPathBytes {
		return violation(p, "must be at most %d bytes", MaxPathBytes)
	}
	if !utf8.ValidString(s) {
		return violation(p, "must be valid UTF-8")
	}
	if strings.ContainsAny(s, "\\\x00\r\n") {
		return violation(p, "must not contain a backslash, NUL, CR or LF")
	}
	return nil
}

// CheckWorkspaceRelativePath validates a workspace-relative path: no leading slash, no `.` or `..`
// escape, path.Clean-stable. allowRoot admits "" (the workspace root, for directory reads).
func CheckWorkspaceRelativePath(p, s string, allowRoot bool) error {
	if s == "" {
		if allowRoot {
			return nil
		}
		return violation(p, "must not be empty")
	}
	if err := checkLinePath(p, s); err != nil {
		return err
	}
	switch {
	case s == ".":
		return violation(p, "must not be \".\"")
	case strings.HasPrefix(s, "/"):
		return violation(p, "must be relative to the workspace")
	case path.Clean(s) != s:
		return violation(p, "must be a clean relative path")
	case s == ".." || strings.HasPrefix(s, "../"):
		return violation(p, "must stay inside the workspace")
	}
	return nil
}
