package reports

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
)

// redactedMark replaces every secret value.
const redactedMark = "[REDACTED]"

// prepared returns the copy of r every writer renders: secrets redacted from every string, cases
// in id order, go-cmp's randomised non-breaking spaces made plain, transcripts in time order,
// daemon output bounded. r itself is never changed.
func (r *Run) prepared() (*Run, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	cp := deepMap(reflect.ValueOf(r), redactor(r.Redact)).Interface().(*Run)
	cp.Redact = nil
	cp.Cases = sortedCases(cp.Cases)
	for _, c := range cp.Cases {
		res := c.Result
		if f := res.Failure; f != nil {
			f.Diff = strings.ReplaceAll(f.Diff, "\u00a0", " ")
		}
		res.Transcript = inTimeOrder(res.Transcript)
		for i := range res.Daemons {
			// Bounded after redaction, so a cut never leaves part of a secret.
			res.Daemons[i].Output = boundOutput(res.Daemons[i].Output)
		}
	}
	return cp, nil
}

// sortedCases returns the cases in id order (then the side played), stably.
func sortedCases(cases []Case) []Case {
	out := slices.Clone(cases)
	slices.SortStableFunc(out, func(a, b Case) int {
		if a.Result == nil || b.Result == nil {
			return 0
		}
		if c := strings.Compare(a.Result.Scenario, b.Result.Scenario); c != 0 {
			return c
		}
		return strings.Compare(string(a.Result.Played), string(b.Result.Played))
	})
	return out
}

// redactor returns a function that replaces every secret, in its plain and JSON-escaped forms
// (frames are JSON: a secret with a quote or '<' appears escaped there), longest first.
func redactor(secrets []string) func(string) string {
	var olds []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		olds = append(olds, s)
		for _, html := range []bool{false, true} {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(html)
			_ = enc.Encode(s)
			q := strings.TrimSuffix(b.String(), "\n")
			olds = append(olds, q[1:len(q)-1])
		}
	}
	if len(olds) == 0 {
		return func(s string) string { return s }
	}
	slices.SortFunc(olds, func(a, b string) int { return len(b) - len(a) })
	olds = slices.Compact(olds)
	pairs := make([]string, 0, 2*len(olds))
	for _, o := range olds {
		pairs = append(pairs, o, redactedMark)
	}
	rep := strings.NewReplacer(pairs...)
	return rep.Replace
}

var plainString = reflect.TypeFor[string]()

// deepMap returns a deep copy of v in which f has rewritten every value of type string (map keys
// included, and strings inside interfaces such as a Failure's generic JSON). Named string types
// (verdicts, directions, sides) are enumerations and stay as they are; unexported fields (a
// time.Time's) are copied as they are.
func deepMap(v reflect.Value, f func(string) string) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		if v.Type() != plainString {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(f(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(deepMap(v.Elem(), f))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deepMap(v.Elem(), f))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(deepMap(v.Field(i), f))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepMap(v.Index(i), f))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(deepMap(v.Index(i), f))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(deepMap(it.Key(), f), deepMap(it.Value(), f))
		}
		return out
	}
	return v
}

// family is the top-level segment of a scenario id.
func family(id string) string {
	if i := strings.IndexByte(id, '/'); i >= 0 {
		return id[:i]
	}
	return id
}

// caseNames names every case by its scenario id. When one id was played from both sides the side
// is added, and any name still taken gets " #2", " #3"…, so names stay unique.
func caseNames(cases []Case) []string {
	count := map[string]int{}
	for _, c := range cases {
		count[c.Result.Scenario]++
	}
	names := make([]string, len(cases))
	taken := map[string]int{}
	for i, c := range cases {
		name := c.Result.Scenario
		if count[name] > 1 {
			name += " (scripted " + string(c.Result.Played) + ")"
		}
		taken[name]++
		if n := taken[name]; n > 1 {
			name += fmt.Sprintf(" #%d", n)
		}
		names[i] = name
	}
	return names
}

// printable makes a string safe to show to people in XML and HTML: invalid UTF-8 and the
// non-characters U+FFFE/U+FFFF become U+FFFD, and control characters other than tab and newlines
// become their visible pictures (ESC → ␛, NUL → ␀, DEL → ␡), so the evidence still shows that
// the daemon sent them. The JSON report and the transcripts keep the exact bytes.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r == 0xFFFE || r == 0xFFFF || r == 0x7f || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case r == 0xFFFE || r == 0xFFFF:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// forPeople is the prepared run with every string printable, for the JUnit, Markdown and HTML
// writers.
func (r *Run) forPeople() (*Run, error) {
	cp, err := r.prepared()
	if err != nil {
		return nil, err
	}
	return deepMap(reflect.ValueOf(cp), printable).Interface().(*Run), nil
}
