package proto

import (
	"errors"
	"fmt"
	"strings"
)

// RuleError is a frame that breaks one rule. Type is the message type (or "envelope"), Path the dotted
// member path inside the payload ("" for the payload as a whole, "id" for the envelope ID), Rule what
// the spec requires, phrased so that "<type>.<path>: <rule>" reads as a sentence.
type RuleError struct {
	Type string
	Path string
	Rule string
}

func (e *RuleError) Error() string {
	var b strings.Builder
	b.WriteString(e.Type)
	if e.Path != "" {
		if e.Type != "" {
			b.WriteByte('.')
		}
		b.WriteString(e.Path)
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Rule)
	return b.String()
}

// ErrInvalid matches every *RuleError with errors.Is.
var ErrInvalid = errors.New("invalid frame")

// Is makes errors.Is(err, ErrInvalid) true for every rule violation.
func (e *RuleError) Is(target error) bool { return target == ErrInvalid }

// violation builds a RuleError for a payload member; the message type is filled in by the registry.
func violation(path, format string, args ...any) *RuleError {
	return &RuleError{Path: path, Rule: fmt.Sprintf(format, args...)}
}

// within prefixes the path of a RuleError with the member that contains it; other errors pass through.
func within(prefix string, err error) error {
	if err == nil {
		return nil
	}
	var re *RuleError
	if !errors.As(err, &re) {
		return err
	}
	out := *re
	out.Path = joinPath(prefix, re.Path)
	return &out
}

// ofType sets the message type of a RuleError that does not have one yet.
func ofType(typ string, err error) error {
	if err == nil {
		return nil
	}
	var re *RuleError
	if !errors.As(err, &re) {
		return &RuleError{Type: typ, Rule: err.Error()}
	}
	if re.Type != "" {
		return err
	}
	out := *re
	out.Type = typ
	return &out
}

func joinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case strings.HasPrefix(path, "["):
		return prefix + path
	default:
		return prefix + "." + path
	}
}

func indexPath(prefix string, i int) string { return fmt.Sprintf("%s[%d]", prefix, i) }

// first returns the first non-nil error, so validators read as a list of rules.
func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
