package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/scenarios"
)

// failureHeadline is the line every format leads a failure with: the first reason in plain
// words, then where it happened, e.g.
//
//	the daemon sends no Bearer header (before the first step, catalog/connection/credentials.yaml:3)
//	runtime frame differs: payload.revision: want 2, got 3 (step 3, catalog/admission/prepare.yaml:13)
func failureHeadline(f *scenarios.Failure) string {
	if f == nil {
		return ""
	}
	return failureReason(f) + " (" + failureWhere(f) + ")"
}

// failureReason is the first reason in plain words: the root cause when the harness named one,
// else the first line of the message (later lines hold detail, such as a daemon's last output).
func failureReason(f *scenarios.Failure) string {
	if f == nil {
		return ""
	}
	if c := strings.TrimSpace(f.Cause); c != "" {
		return c
	}
	first, _, _ := strings.Cut(f.Message, "\n")
	return strings.TrimSpace(first)
}

// failureWhere is "step 3, file:line", or "before the first step, file:line" for a failure of
// the connection or the first heartbeat; the position is left out when unknown.
func failureWhere(f *scenarios.Failure) string {
	where := stepName(f.Step)
	if f.Pos.File != "" || f.Pos.Line != 0 {
		where += ", " + f.Pos.String()
	}
	return where
}

// stepName is "step 3", or "before the first step" for step 0 (the connection, the first
// heartbeat).
func stepName(step int) string {
	if step == 0 {
		return "before the first step"
	}
	return fmt.Sprintf("step %d", step)
}

// sortedKeys returns the names of bindings in order.
func sortedKeys(b map[string]string) []string {
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sortedBindings returns "name=value" pairs in name order.
func sortedBindings(b map[string]string) []string {
	keys := sortedKeys(b)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + b[k]
	}
	return out
}

// frameID returns the envelope id of a raw frame, or "".
func frameID(frame string) string {
	var env struct {
		ID any `json:"id"`
	}
	if json.Unmarshal([]byte(frame), &env) != nil {
		return ""
	}
	if s, ok := env.ID.(string); ok {
		return s
	}
	return ""
}

// prettyFrame indents a raw frame that is JSON, and returns anything else as it is.
func prettyFrame(frame string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(frame), "", "  ") != nil {
		return frame
	}
	return b.String()
}

// prettyJSON renders a generic JSON value (a failure's Expected or Actual) indented; a string
// (bytes that were not JSON) is returned as it is.
func prettyJSON(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// offset renders a transcript offset: +12.345ms.
func offset(d time.Duration) string {
	return fmt.Sprintf("+%.3fms", float64(d)/float64(time.Millisecond))
}

// seconds renders a duration in seconds with millisecond precision, as JUnit wants it.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

// transcriptText renders a transcript one exchange per line, for JUnit's system-out:
//
//	+0.412ms  step 1  core→runtime  execution_prepare  {"type":...}
func transcriptText(t []scenarios.Exchange) string {
	var b strings.Builder
	for _, e := range t {
		fmt.Fprintf(&b, "%12s  step %-3d %-13s %s", offset(e.At), e.Step, e.Dir, e.Type)
		if e.Note != "" {
			fmt.Fprintf(&b, "  (%s)", e.Note)
		}
		if e.Frame != "" {
			b.WriteString("  " + e.Frame)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// specHref returns the link for a spec reference: URLs as they are, "file.md#anchor" under base
// when there is one, anything else (a bare word) no link.
func specHref(base, ref string) string {
	switch {
	case strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://"):
		return ref
	case base != "" && strings.Contains(ref, ".md"):
		return base + ref
	}
	return ""
}

// notApplicableReason is the short reason of a not applicable case.
func notApplicableReason(f *scenarios.Failure) string {
	if f == nil {
		return "not applicable"
	}
	if len(f.Missing) > 0 {
		return "requires: " + strings.Join(f.Missing, ", ")
	}
	return f.Message
}

// humanDuration renders a case's duration for people: 840µs, 12.5ms, 1.06s.
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}
