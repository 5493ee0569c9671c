package scenarios

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
)

// Matcher matches what a template cannot spell as one value: a type, a pattern, an absence, one of
// several answers the spec allows, a member the spec lets a peer leave out, or the files of a tar
// archive whose other bytes the Runtime chooses.
type Matcher struct {
	Any     string         // $any: a JSON type (string, number, integer, boolean, object, array, null)
	Absent  bool           // $absent: the member must not be present
	Pattern string         // $regex
	re      *regexp.Regexp // compiled Pattern
	// OneOf ($one_of) holds templates; the value matches the first that fits, which binds.
	OneOf []Value
	// Inner ($optional) is the template a present member must match; it may bind.
	Inner Value
	// All ($all) holds templates the value must match every one of, in order; each binds as it
	// would alone, and nothing binds unless all match. It keys a step by a placeholder and checks
	// the form of the value it binds: {$all: ["${export}", {$regex: ...}]}. A scripted writer
	// sends the sample, or else the first template resolved, and binds the rest from it.
	All []Value
	// Not ($not, Negated) is a template the value must not match, with the bindings so far; it
	// binds nothing. {$not: "${t1}"} says the value differs from the one ${t1} bound (an unbound
	// placeholder matches anything, so $not of one never holds).
	Not     Value
	Negated bool
	Sample  Value // what a scripted writer sends in its place
	// Optional lets the member be absent; when present it must match.
	Optional bool
	// Reading names the entry of docs/spec-readings.md that allows a relaxation of a code.
	Reading string
	// Tar ($tar) is a template of the regular files of a tar archive sent in base64 (an export's,
	// protocol-facts §4.15): an object of name → content in base64, matched, and binding, against
	// the files the archive holds (TarFiles); every file is compared, none missing, none extra.
	// A scripted writer sends the archive TarArchive makes of the resolved template.
	Tar Value
}

func (m *Matcher) String() string {
	switch {
	case m.Absent:
		return "<absent>"
	case m.re != nil:
		return fmt.Sprintf("<string matching %s>", m.Pattern)
	case m.OneOf != nil:
		alts := make([]string, len(m.OneOf))
		for i, a := range m.OneOf {
			alts[i] = compact(a)
		}
		return "<one of " + strings.Join(alts, " | ") + ">"
	case m.Inner != nil:
		return "<optional " + compact(m.Inner) + ">"
	case m.Tar != nil:
		return "<tar archive of " + compact(m.Tar) + ">"
	case m.All != nil:
		parts := make([]string, len(m.All))
		for i, a := range m.All {
			parts[i] = show(a)
		}
		return "<all of " + strings.Join(parts, " & ") + ">"
	case m.Negated:
		return "<not " + show(m.Not) + ">"
	default:
		return fmt.Sprintf("<any %s>", m.Any)
	}
}

// matchMatcher matches the matchers that hold templates ($optional, $one_of, $all, $not, $tar),
// which may bind ($not never does), and hands the others to Matcher.match.
func (b *Bindings) matchMatcher(path string, m *Matcher, actual any) *Mismatch {
	switch {
	case m.Inner != nil:
		return b.match(path, m.Inner, actual)
	case m.Tar != nil:
		s, ok := actual.(string)
		if !ok {
			return &Mismatch{path, fmt.Sprintf("want a tar archive in base64, got %s", compact(actual))}
		}
		archive, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return &Mismatch{path, fmt.Sprintf("want a tar archive in base64: %v", err)}
		}
		files, err := tarFilesView(archive)
		if err != nil {
			return &Mismatch{path, err.Error()}
		}
		return b.match(path, m.Tar, files)
	case m.All != nil:
		trial := b.clone()
		for _, t := range m.All {
			if mm := trial.match(path, t, actual); mm != nil {
				return mm
			}
		}
		*b = *trial
		return nil
	case m.Negated:
		if b.clone().match(path, m.Not, actual) == nil {
			return &Mismatch{path, fmt.Sprintf("want anything but %s, got %s", compact(b.Expected(m.Not)), compact(actual))}
		}
		return nil
	case m.OneOf != nil:
		for _, alt := range m.OneOf {
			trial := b.clone()
			if trial.match(path, alt, actual) == nil {
				*b = *trial
				return nil
			}
		}
		alts := make([]string, len(m.OneOf))
		for i, alt := range m.OneOf {
			alts[i] = compact(b.Expected(alt))
		}
		return &Mismatch{path, fmt.Sprintf("want one of %s, got %s", strings.Join(alts, " | "), compact(actual))}
	}
	return m.match(path, actual)
}

func (m *Matcher) match(path string, actual any) *Mismatch {
	switch {
	case m.Absent:
		return &Mismatch{path, "must be absent"} // reached only when the member is present
	case m.re != nil:
		s, ok := actual.(string)
		if !ok || !m.re.MatchString(s) {
			return &Mismatch{path, fmt.Sprintf("want a string matching %s, got %s", m.Pattern, compact(actual))}
		}
		return nil
	default:
		if got := jsonType(actual); got != m.Any && !(m.Any == "number" && got == "integer") {
			return &Mismatch{path, fmt.Sprintf("want any %s, got %s", m.Any, compact(actual))}
		}
		return nil
	}
}

// show renders a template for a message: a matcher as its String, anything else as compact JSON.
func show(v Value) string {
	if m, ok := v.(*Matcher); ok {
		return m.String()
	}
	return compact(v)
}
