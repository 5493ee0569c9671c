package scenarios

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/proto"
)

// WorkspaceCheck asks the Core under test about a workspace operation a caller started (the
// wire cannot show its recorded outcome, nor what Core hands its caller), or makes it refuse one.
// Exactly one of Op and Refuses is set.
type WorkspaceCheck struct {
	// Op names the operation by the id of its frames as the scenario writes them (the core
	// workspace_read/write/export step's id: a ${placeholder} or a literal).
	Op Value
	// State is the recorded outcome: completed, rejected, failed or unknown; ErrorCode its code
	// ("" when none).
	State     string
	ErrorCode string
	// Cleanup is the recorded cleanup of the read-only preparation Core used: cleanup_unconfirmed
	// when Core did not see it released, "" (the member omitted) when it did or there was none
	// (PJ-14). Compared like ErrorCode: always.
	Cleanup string
	// Content, when set, is the bytes the operation returned to its caller (a byte read's data,
	// an export's archive), base64 (or a ${placeholder} of it): compared byte for byte.
	Content *string
	// Directory, when set, is a template of the listing a directory read returned (the
	// directory member of workspace_read_result).
	Directory Value
	// Refuses is a caller's read, write or export made now on the scenario's Turn, which Core
	// must refuse inside itself with the API error Code (nothing reaches the wire).
	Refuses string
	Code    string
	// Path, when set, is the path of the refused read or write (a default path otherwise): a
	// read whose request would not fit 8 KiB (WS-02).
	Path *string
	// Operation, MaxBytes and MaxEntries, when any is set, are the members of the refused read
	// as workspace_read names them (WS-01): a byte read of max_bytes 1 otherwise.
	Operation  *string
	MaxBytes   *int
	MaxEntries *int
	// Truncated, when set, is whether the completed byte read was recorded cut at max_bytes
	// (true) or as the file's complete content (false).
	Truncated *bool
}

// Workspace operation states a check names.
var workspaceStates = map[string]bool{"completed": true, "rejected": true, "failed": true, "unknown": true}

func (c *WorkspaceCheck) String() string {
	if c.Refuses != "" {
		return fmt.Sprintf("Core refuses a workspace %s with %s", c.Refuses, c.Code)
	}
	s := fmt.Sprintf("workspace operation %v is %s", c.Op, c.State)
	if c.ErrorCode != "" {
		s += " with " + c.ErrorCode
	}
	if c.Cleanup != "" {
		s += ", cleanup " + c.Cleanup
	}
	if c.Content != nil {
		s += fmt.Sprintf(" returning %d bytes", base64.StdEncoding.DecodedLen(len(*c.Content)))
	}
	if c.Directory != nil {
		s += " listing " + compact(c.Directory)
	}
	if c.Truncated != nil {
		s += fmt.Sprintf(", truncated %t", *c.Truncated)
	}
	return s
}

func (p *parser) workspaceCheck(v *yaml.Node) *WorkspaceCheck {
	f := p.fields(v, "check.workspace", "op", "state", "error_code", "content", "directory", "refuses", "code", "path", "cleanup",
		"operation", "max_bytes", "max_entries", "truncated")
	if f == nil {
		return nil
	}
	c := &WorkspaceCheck{State: p.String(f["state"], "state"), ErrorCode: p.String(f["error_code"], "error_code"),
		Refuses: p.String(f["refuses"], "refuses"), Code: p.String(f["code"], "code"),
		Cleanup: p.String(f["cleanup"], "cleanup")}
	switch {
	case (f["op"] == nil) == (f["refuses"] == nil):
		p.Errorf(v.Line, "check.workspace needs exactly one of op, refuses")
		return c
	case f["refuses"] != nil:
		if c.Refuses != "read" && c.Refuses != "write" && c.Refuses != "export" {
			p.Errorf(v.Line, "check.workspace.refuses must be read, write or export")
		}
		if c.Code == "" {
			p.Errorf(v.Line, "check.workspace.refuses needs the code Core refuses it with")
		}
		if n := f["path"]; n != nil {
			// A plain string, or {$repeat: ...} for a path whose request is over a size limit.
			if s, ok := p.value(n, "check.workspace.path").(string); ok {
				c.Path = &s
			} else {
				p.Errorf(n.Line, "check.workspace.path must be a string (or a $repeat of one)")
			}
			if c.Refuses == "export" {
				p.Errorf(n.Line, "check.workspace.path belongs to a refused read or write; an export has none")
			}
		}
		if n := f["operation"]; n != nil {
			op := p.String(n, "operation")
			c.Operation = &op
		}
		for k, dst := range map[string]**int{"max_bytes": &c.MaxBytes, "max_entries": &c.MaxEntries} {
			if n := f[k]; n != nil {
				// Any integer, negative ones included: a bound the API must refuse.
				v, err := strconv.Atoi(n.Value)
				if err != nil || n.Kind != yaml.ScalarNode {
					p.Errorf(n.Line, "check.workspace.%s must be an integer", k)
				}
				*dst = &v
			}
		}
		for _, k := range []string{"operation", "max_bytes", "max_entries"} {
			if f[k] != nil && c.Refuses != "read" {
				p.Errorf(f[k].Line, "check.workspace.%s belongs to a refused read", k)
			}
		}
		for _, k := range []string{"state", "error_code", "content", "directory", "cleanup", "truncated"} {
			if f[k] != nil {
				p.Errorf(f[k].Line, "check.workspace.%s belongs to an op check, not to refuses", k)
			}
		}
		return c
	}
	for _, k := range []string{"path", "operation", "max_bytes", "max_entries"} {
		if f[k] != nil {
			p.Errorf(f[k].Line, "check.workspace.%s belongs to refuses", k)
		}
	}
	if n := f["truncated"]; n != nil {
		v := p.Bool(n, "truncated")
		c.Truncated = &v
	}
	c.Op = p.String(f["op"], "op")
	p.checkPlaceholders(f["op"])
	if f["code"] != nil {
		p.Errorf(f["code"].Line, "check.workspace.code belongs to refuses; an op check names error_code")
	}
	if !workspaceStates[c.State] {
		p.Errorf(v.Line, "check.workspace.state must be completed, rejected, failed or unknown")
	}
	if n := f["cleanup"]; n != nil && c.Cleanup != proto.CodeCleanupUnconfirmed {
		p.Errorf(n.Line, "check.workspace.cleanup must be %s (omit it for a confirmed cleanup)", proto.CodeCleanupUnconfirmed)
	}
	if n := f["content"]; n != nil {
		s := p.String(n, "content")
		p.checkPlaceholders(n)
		if _, err := base64.StdEncoding.DecodeString(s); err != nil && !strings.Contains(s, "${") {
			p.Errorf(n.Line, "check.workspace.content must be base64: %v", err)
		}
		c.Content = &s
	}
	if n := f["directory"]; n != nil {
		p.checkPlaceholders(n)
		c.Directory = p.value(n, "check.workspace.directory")
	}
	return c
}
