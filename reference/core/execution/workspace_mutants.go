package execution

import (
	"errors"
	"strings"

	"github.com/wirecheck/wirecheck/proto"
	"github.com/wirecheck/wirecheck/reference/core/mutation"
)

// The WS mutants of the API's checks of a caller's read or write (scenarios/rules/clauses/WS.tsv):
// each leaves out one rule, or moves one bound by one, and lets through only a request that breaks
// that rule alone. They are false in every build without the wirecheck_mutants tag.

var errMutantBound = errors.New("refused at its bound (a mutant)")

// escapes: an absolute path, or one that leaves the workspace through "..".
func escapes(p string) bool {
	return strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") ||
		strings.HasSuffix(p, "/..")
}

// odd: "." or a path holding a backslash, NUL, CR or LF.
func odd(p string) bool { return p == "." || strings.ContainsAny(p, "\\\x00\r\n") }

// readRequestShape applies the WS-01 mutants to a caller's read and the error of its Validate.
func readRequestShape(p proto.WorkspaceReadPayload, err error) error {
	byteRead, listing := p.Operation == proto.ReadBytes, p.Operation == proto.ReadDirectory
	if err == nil {
		switch {
		case len(p.Path) == proto.MaxPathBytes && mutation.On(mutation.WSCoreReadPathAtLimitRefused),
			byteRead && p.MaxBytes == 1 && mutation.On(mutation.WSCoreMaxBytesOneRefused),
			byteRead && p.MaxBytes == proto.WorkspaceReadMaxBytes && mutation.On(mutation.WSCoreMaxBytesMiBRefused),
			listing && p.MaxEntries == 1 && mutation.On(mutation.WSCoreMaxEntriesOneRefused),
			listing && p.MaxEntries == proto.DirectoryMaxEntries && mutation.On(mutation.WSCoreMaxEntriesLimitRefused):
			return errMutantBound
		}
		return nil
	}
	switch {
	case escapes(p.Path) && mutation.On(mutation.WSCoreReadEscapingPathSent):
		p.Path = "unchecked"
	case odd(p.Path) && mutation.On(mutation.WSCoreReadOddPathSent):
		p.Path = "unchecked"
	case len(p.Path) > proto.MaxPathBytes && mutation.On(mutation.WSCoreReadPathOverLimitSent):
		p.Path = "unchecked"
	case byteRead && p.MaxBytes == 0 && mutation.On(mutation.WSCoreMaxBytesZeroSent):
		p.MaxBytes = 1
	case byteRead && p.MaxBytes > proto.WorkspaceReadMaxBytes && mutation.On(mutation.WSCoreMaxBytesOverMiBSent):
		p.MaxBytes = 1
	case byteRead && p.MaxEntries != 0 && mutation.On(mutation.WSCoreByteMaxEntriesSent):
		p.MaxEntries = 0
	case listing && p.MaxEntries == 0 && mutation.On(mutation.WSCoreMaxEntriesZeroSent):
		p.MaxEntries = 1
	case listing && p.MaxEntries > proto.DirectoryMaxEntries && mutation.On(mutation.WSCoreMaxEntriesOverLimitSent):
		p.MaxEntries = 1
	case listing && p.MaxBytes != 0 && mutation.On(mutation.WSCoreListMaxBytesSent):
		p.MaxBytes = 0
	case !byteRead && !listing && mutation.On(mutation.WSCoreUnknownOperationSent):
		p.Operation = proto.ReadBytes
	default:
		return err
	}
	if p.Validate() == nil {
		return nil
	}
	return err
}

// writeRequestShape applies the WS-16 mutants to a caller's write (its path and body) and the
// error of the path's check.
func writeRequestShape(path string, content []byte, err error) error {
	if err == nil {
		switch {
		case len(path) == proto.MaxPathBytes && mutation.On(mutation.WSCoreWritePathAtLimitRefused),
			len(content) == 0 && mutation.On(mutation.WSCoreEmptyWriteRefused):
			return errMutantBound
		}
		return nil
	}
	switch {
	case escapes(path) && mutation.On(mutation.WSCoreWriteEscapingPathSent),
		odd(path) && mutation.On(mutation.WSCoreWriteOddPathSent),
		len(path) > proto.MaxPathBytes && mutation.On(mutation.WSCoreWritePathOverLimitSent):
		path = "unchecked.txt"
	default:
		return err
	}
	if proto.CheckWorkspaceRelativePath("path", path, false) == nil {
		return nil
	}
	return err
}
