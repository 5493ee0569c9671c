package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/daemon/mutation"
)

// The WS mutants of the request rules (scenarios/rules/clauses/WS.tsv): each leaves out one rule,
// or moves one bound by one, and lets through only a frame that breaks that rule alone. They are
// false in every build without the wirecheck_mutants tag.

var errMutantBound = errors.New("refused at its bound (a mutant)")

// decodePayload is spec.DecodePayload with the payload bound and strict decoding of a request
// type, each of which a mutant gets wrong: atLimit refuses a payload of exactly the bound,
// overLimit takes one of the bound plus one, lenient ignores an unknown member.
func decodePayload(spec *proto.MessageSpec, raw json.RawMessage, atLimit, overLimit, lenient mutation.Point) (proto.Validator, error) {
	limit := spec.MaxPayloadBytes
	if len(raw) == limit && mutation.On(atLimit) {
		return nil, fmt.Errorf("%s.payload: %w", spec.Type, errMutantBound)
	}
	v, err := spec.DecodePayload(raw)
	if err == nil {
		return v, nil
	}
	loose := *spec
	switch {
	case len(raw) == limit+1 && mutation.On(overLimit):
		loose.MaxPayloadBytes = limit + 1
	case len(raw) <= limit && lenient != "" && mutation.On(lenient):
		loose.Strict = false
	default:
		return nil, err
	}
	if v, lerr := loose.DecodePayload(raw); lerr == nil {
		return v, nil
	}
	return nil, err
}

// escapes: an absolute path, or one that leaves the workspace through "..".
func escapes(p string) bool {
	return strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") ||
		strings.HasSuffix(p, "/..")
}

// odd: "." or a path holding a backslash, NUL, CR or LF.
func odd(p string) bool { return p == "." || strings.ContainsAny(p, "\\\x00\r\n") }

// readShape applies the WS-01 mutants to a read request and the error of its Validate.
func readShape(p proto.WorkspaceReadPayload, err error) error {
	byteRead, listing := p.Operation == proto.ReadBytes, p.Operation == proto.ReadDirectory
	if err == nil {
		switch {
		case len(p.Path) == proto.MaxPathBytes && mutation.On(mutation.WSReadPathAtLimitRefused),
			byteRead && p.MaxBytes == 1 && mutation.On(mutation.WSReadMaxBytesOneRefused),
			byteRead && p.MaxBytes == proto.WorkspaceReadMaxBytes && mutation.On(mutation.WSReadMaxBytesMiBRefused),
			listing && p.MaxEntries == 1 && mutation.On(mutation.WSListMaxEntriesOneRefused),
			listing && p.MaxEntries == proto.DirectoryMaxEntries && mutation.On(mutation.WSListMaxEntriesLimitRefused):
			return fmt.Errorf("workspace_read: %w", errMutantBound)
		}
		return nil
	}
	switch {
	case p.Handle != "" && p.RunID != "" && mutation.On(mutation.WSReadBothTargetsAccepted):
		p.RunID = ""
	case strings.TrimSpace(p.EnvironmentID) == "" && mutation.On(mutation.WSReadBlankEnvironmentAccepted):
		p.EnvironmentID = "unchecked"
	case escapes(p.Path) && mutation.On(mutation.WSReadEscapingPathAccepted):
		p.Path = "unchecked"
	case odd(p.Path) && mutation.On(mutation.WSReadOddPathAccepted):
		p.Path = "unchecked"
	case len(p.Path) > proto.MaxPathBytes && mutation.On(mutation.WSReadPathOverLimitAccepted):
		p.Path = "unchecked"
	case byteRead && p.MaxBytes == 0 && mutation.On(mutation.WSReadMaxBytesZeroAccepted):
		p.MaxBytes = 1
	case byteRead && p.MaxBytes > proto.WorkspaceReadMaxBytes && mutation.On(mutation.WSReadMaxBytesOverMiBAccepted):
		p.MaxBytes = 1
	case byteRead && p.MaxEntries != 0 && mutation.On(mutation.WSReadByteMaxEntriesAccepted):
		p.MaxEntries = 0
	case listing && p.MaxEntries == 0 && mutation.On(mutation.WSListMaxEntriesZeroAccepted):
		p.MaxEntries = 1
	case listing && p.MaxEntries > proto.DirectoryMaxEntries && mutation.On(mutation.WSListMaxEntriesOverLimitAccepted):
		p.MaxEntries = 1
	case listing && p.MaxBytes != 0 && mutation.On(mutation.WSListMaxBytesAccepted):
		p.MaxBytes = 0
	case !byteRead && !listing && mutation.On(mutation.WSReadOperationUnknownAsBytes):
		p.Operation = proto.ReadBytes
	default:
		return err
	}
	if p.Validate() == nil {
		return nil
	}
	return err
}

// writeShape applies the WS-16 mutants to a write step and the error of its Validate.
func writeShape(p proto.WorkspaceWritePayload, err error) error {
	begin, chunk, commit := p.Step == proto.StepBegin, p.Step == proto.StepChunk, p.Step == proto.StepCommit
	if err == nil {
		switch {
		case begin && len(p.Path) == proto.MaxPathBytes && mutation.On(mutation.WSWritePathAtLimitRefused),
			begin && p.SizeBytes == 0 && mutation.On(mutation.WSWriteEmptyBodyRefused),
			begin && p.SizeBytes == proto.TransferMaxBytes && mutation.On(mutation.WSWriteMaxSizeRefused),
			chunk && len(p.Data) == 1 && mutation.On(mutation.WSWriteOneByteChunkRefused),
			chunk && len(p.Data) == proto.TransferChunkBytes && mutation.On(mutation.WSWriteFullChunkRefused):
			return fmt.Errorf("workspace_write: %w", errMutantBound)
		}
		return nil
	}
	beginMembers := p.EnvironmentID != "" || p.SessionID != "" || p.Path != "" || p.SizeBytes != 0 || p.SHA256 != ""
	switch {
	case !begin && !chunk && !commit && mutation.On(mutation.WSWriteUnknownStepCommits):
		p = proto.WorkspaceWritePayload{Step: proto.StepCommit}
	case begin && p.EnvironmentID != strings.ToLower(p.EnvironmentID) && mutation.On(mutation.WSWriteEnvironmentCaseAccepted):
		p.EnvironmentID = strings.ToLower(p.EnvironmentID)
	case begin && p.SessionID != strings.ToLower(p.SessionID) && mutation.On(mutation.WSWriteSessionCaseAccepted):
		p.SessionID = strings.ToLower(p.SessionID)
	case begin && escapes(p.Path) && mutation.On(mutation.WriteBeginPathUnchecked):
		p.Path = "unchecked.txt"
	case begin && odd(p.Path) && mutation.On(mutation.WSWriteOddPathAccepted):
		p.Path = "unchecked.txt"
	case begin && len(p.Path) > proto.MaxPathBytes && mutation.On(mutation.WSWritePathOverLimitAccepted):
		p.Path = "unchecked.txt"
	case begin && p.SizeBytes < 0 && mutation.On(mutation.WSWriteNegativeSizeAccepted):
		p.SizeBytes = 0
	case begin && p.SizeBytes > proto.TransferMaxBytes && mutation.On(mutation.WriteSizeUnbounded):
		p.SizeBytes = 0
	case begin && p.SHA256 != strings.ToLower(p.SHA256) && mutation.On(mutation.WSWriteDigestCaseAccepted):
		p.SHA256 = strings.ToLower(p.SHA256)
	case begin && (p.Offset != 0 || len(p.Data) > 0) && mutation.On(mutation.WSWriteBeginDataAccepted):
		p.Offset, p.Data = 0, nil
	case chunk && p.Offset < 0 && mutation.On(mutation.WSWriteChunkNegativeOffsetAccepted):
		p.Offset = 0
	case chunk && len(p.Data) == 0 && mutation.On(mutation.WSWriteEmptyChunkAccepted):
		p.Data = []byte{0}
	case chunk && len(p.Data) > proto.TransferChunkBytes && mutation.On(mutation.WriteChunkDataUnbounded):
		p.Data = p.Data[:1]
	case (chunk || commit) && beginMembers && mutation.On(mutation.WSWriteChunkBeginMembersAccepted):
		p.EnvironmentID, p.SessionID, p.Path, p.SizeBytes, p.SHA256 = "", "", "", 0, ""
	case commit && (p.Offset != 0 || len(p.Data) > 0) && mutation.On(mutation.WSWriteCommitDataAccepted):
		p.Offset, p.Data = 0, nil
	default:
		return err
	}
	if p.Validate() == nil {
		return nil
	}
	return err
}

// exportShape applies the WS-26 mutants to an export request and the error of its Validate.
func exportShape(p proto.WorkspaceExportPayload, err error) error {
	begin, next, cancel := p.Step == proto.ExportBegin, p.Step == proto.ExportNext, p.Step == proto.ExportCancel
	if err == nil {
		switch {
		case begin && len(p.Handle) == proto.CorrelationIDMaxBytes && mutation.On(mutation.WSExportHandleAtLimitRefused),
			begin && len(p.EnvironmentID) == proto.CorrelationIDMaxBytes && mutation.On(mutation.WSExportEnvironmentAtLimitRefused),
			next && p.Offset == 0 && mutation.On(mutation.WSExportNextZeroRefused),
			next && p.Offset == proto.WorkspaceExportMaxBytes && mutation.On(mutation.WSExportMaxOffsetRefused):
			return fmt.Errorf("workspace_export: %w", errMutantBound)
		}
		return nil
	}
	switch {
	case !begin && !next && !cancel && mutation.On(mutation.WSExportUnknownStepCancels):
		p = proto.WorkspaceExportPayload{Step: proto.ExportCancel}
	case begin && p.Handle == "" && mutation.On(mutation.WSExportBlankHandleAccepted):
		p.Handle = "unchecked"
	case begin && len(p.Handle) > proto.CorrelationIDMaxBytes && mutation.On(mutation.WSExportHandleOverLimitAccepted):
		p.Handle = "unchecked"
	case begin && p.EnvironmentID == "" && mutation.On(mutation.WSExportBlankEnvironmentAccepted):
		p.EnvironmentID = "unchecked"
	case begin && len(p.EnvironmentID) > proto.CorrelationIDMaxBytes && mutation.On(mutation.WSExportEnvironmentOverLimitAccepted):
		p.EnvironmentID = "unchecked"
	case next && p.Offset < 0 && mutation.On(mutation.WSExportNegativeOffsetAccepted):
		p.Offset = 0
	case next && p.Offset > proto.WorkspaceExportMaxBytes && mutation.On(mutation.WSExportOverMaxOffsetAccepted):
		p.Offset = 0
	case cancel && p.Offset != 0 && mutation.On(mutation.WSExportCancelOffsetAccepted):
		p.Offset = 0
	case (next || cancel) && (p.Handle != "" || p.EnvironmentID != "") && mutation.On(mutation.WSExportNextHandleAccepted):
		p.Handle, p.EnvironmentID = "", ""
	default:
		return err
	}
	if p.Validate() == nil {
		return nil
	}
	return err
}

// reencode is a result payload with members left out, for the mutants that encode a result
// wrongly (omitempty where the protocol wants the member always encoded). drop names the members
// to leave out, as dotted paths ("directory.truncated"; "directory.entries.size_bytes" drops it
// from every entry whose value is null).
func reencode(payload any, drop ...string) any {
	raw, err := json.Marshal(payload)
	if err != nil {
		return payload
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return payload
	}
	for _, d := range drop {
		switch d {
		case "directory.truncated":
			if dir, ok := m["directory"].(map[string]any); ok {
				delete(dir, "truncated")
			}
		case "directory.entries.size_bytes":
			if dir, ok := m["directory"].(map[string]any); ok {
				entries, _ := dir["entries"].([]any)
				for _, e := range entries {
					if e, ok := e.(map[string]any); ok && e["size_bytes"] == nil {
						delete(e, "size_bytes")
					}
				}
			}
		default:
			delete(m, d)
		}
	}
	return m
}
