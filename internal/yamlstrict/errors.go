package yamlstrict

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Error is one problem in a file, at file:line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Errors is every problem found in a file, one per line.
type Errors []*Error

func (es Errors) Error() string { return Lines(es) }

// Lines lists errors one per line: a loader's own error list reads as Errors does.
func Lines[E error](es []E) string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Errorf records a problem at line of the walker's file.
func (w *Walker) Errorf(line int, format string, args ...any) {
	w.Errs = append(w.Errs, &Error{File: w.File, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// Err returns the problems found so far, or nil.
func (w *Walker) Err() error {
	if len(w.Errs) == 0 {
		return nil
	}
	return w.Errs
}

var syntaxLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxError records a yaml.v3 error at the line it names (1 when it names none), without the
// "yaml: line N: " prefix that file:line already says.
func (w *Walker) syntaxError(err error) {
	msg, line := err.Error(), 1
	if m := syntaxLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	w.Errorf(line, "%s", strings.TrimPrefix(msg, "yaml: "))
}
