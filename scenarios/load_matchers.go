package scenarios

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/internal/yamlstrict"
	"github.com/wirecheck/wirecheck/proto"
)

// matcher recognises {$any: type}, {$absent: true}, {$regex: pattern}, {$one_of: [templates]},
// {$optional: template}, {$all: [templates]}, {$not: template} and {$tar: {name: content}}, each
// with an optional sample ($tar takes none: a writer sends the archive of its files).
func (p *parser) matcher(n *yaml.Node, what string) *Matcher {
	if len(n.Content) == 0 || !strings.HasPrefix(n.Content[0].Value, "$") {
		return nil
	}
	f := p.fields(n, "matcher", "$any", "$absent", "$regex", "$one_of", "$optional", "$all", "$not", "$tar", "sample", "optional", "reading")
	m := &Matcher{Optional: p.Bool(f["optional"], "optional"), Reading: p.String(f["reading"], "reading")}
	defer p.checkReading(n, what, m)
	if s := f["sample"]; s != nil {
		m.Sample = p.value(s, what+".sample")
	}
	kinds := 0
	for _, k := range []string{"$any", "$absent", "$regex", "$one_of", "$optional", "$all", "$not", "$tar"} {
		if f[k] != nil {
			kinds++
		}
	}
	if kinds > 1 {
		p.Errorf(n.Line, "a matcher holds exactly one of $any, $absent, $regex, $one_of, $optional, $all, $not, $tar")
	}
	switch {
	case f["$all"] != nil:
		v := f["$all"]
		if v.Kind != yaml.SequenceNode || len(v.Content) < 2 {
			p.Errorf(v.Line, "$all needs a list of at least two templates, every one of which the value must match")
			return m
		}
		for i, c := range v.Content {
			m.All = append(m.All, p.value(c, fmt.Sprintf("%s.$all[%d]", what, i)))
		}
	case f["$not"] != nil:
		m.Not, m.Negated = p.value(f["$not"], what+".$not"), true
	case f["$one_of"] != nil:
		v := f["$one_of"]
		if v.Kind != yaml.SequenceNode || len(v.Content) < 2 {
			p.Errorf(v.Line, "$one_of needs a list of at least two templates, the answers the spec allows")
			return m
		}
		for i, c := range v.Content {
			m.OneOf = append(m.OneOf, p.value(c, fmt.Sprintf("%s.$one_of[%d]", what, i)))
		}
		if m.Sample == nil {
			m.Sample = m.OneOf[0]
		}
	case f["$optional"] != nil:
		m.Inner, m.Optional = p.value(f["$optional"], what+".$optional"), true
		if yamlstrict.IsNull(f["$optional"]) {
			p.Errorf(f["$optional"].Line, "$optional needs the template a present member must match")
		}
		if m.Sample == nil {
			m.Sample = m.Inner
		}
	case f["$any"] != nil:
		m.Any = p.String(f["$any"], "$any")
		if !slices.Contains([]string{"string", "number", "integer", "boolean", "object", "array", "null"}, m.Any) {
			p.Errorf(n.Line, "$any must name a JSON type (string, number, integer, boolean, object, array, null)")
		}
		if m.Sample == nil {
			m.Sample = map[string]Value{"string": "any", "number": json.Number("1"), "integer": json.Number("1"),
				"boolean": true, "object": map[string]Value{}, "array": []Value{}}[m.Any]
		}
	case f["$absent"] != nil:
		m.Absent = true
	case f["$regex"] != nil:
		m.Pattern = p.String(f["$regex"], "$regex")
		re, err := regexp.Compile(m.Pattern)
		if err != nil {
			p.Errorf(n.Line, "$regex: %v", err)
			return m
		}
		m.re = re
		s, ok := m.Sample.(string)
		if !ok || !re.MatchString(s) {
			p.Errorf(n.Line, "$regex needs a sample string that matches it, for scripted writers to send")
		}
	case f["$tar"] != nil:
		m.Tar = p.tarFiles(f["$tar"], what+".$tar")
		if f["sample"] != nil {
			p.Errorf(f["sample"].Line, "$tar takes no sample: a scripted writer sends the archive of its files")
		}
	default:
		p.Errorf(n.Line, "a matcher needs one of $any, $absent, $regex, $one_of, $optional, $all, $not, $tar")
	}
	return m
}

// tarFiles reads the files of a {$tar: ...} matcher: an object of clean workspace-relative file
// names to contents, each a template of a base64 string (a literal must decode).
func (p *parser) tarFiles(n *yaml.Node, what string) Value {
	if n.Kind != yaml.MappingNode {
		p.Errorf(n.Line, "$tar needs an object of file name to content (base64); {} for an archive with no files")
		return map[string]Value{}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := tarName(k.Value); err != nil {
			p.Errorf(k.Line, "$tar: %v", err)
		}
		if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && !strings.Contains(v.Value, "${") {
			if _, err := base64.StdEncoding.DecodeString(v.Value); err != nil {
				p.Errorf(v.Line, "$tar: the content of %q must be base64 (standard, padded): %v", k.Value, err)
			}
		}
	}
	files := p.value(n, what)
	if obj, ok := files.(map[string]Value); ok {
		for _, name := range sortedKeys(obj) {
			if _, isStr := obj[name].(string); !isStr && !isMatcher(obj[name]) {
				p.Errorf(n.Line, "$tar: the content of %q must be a base64 string, a ${placeholder} or a matcher", name)
			}
		}
	}
	return files
}

func isMatcher(v Value) bool { _, ok := v.(*Matcher); return ok }

// codeMembers are the members whose value is a code, a state or an outcome the spec fixes case by
// case: accepting more than one there is a reading of the spec, and names it.
var codeMembers = []string{"error_code", "code", "reason", "state", "outcome", "status", "engine_error_code"}

// checkReading refuses a relaxation of a code without the spec reading that allows it: a
// $one_of of plain values, or an $optional, at a code member must say reading: <entry of
// docs/spec-readings.md>; and a reading may be named only on such a relaxation.
func (p *parser) checkReading(n *yaml.Node, what string, m *Matcher) {
	member := what[strings.LastIndexAny(what, ".")+1:]
	if i := strings.IndexByte(member, '['); i >= 0 {
		member = member[:i]
	}
	plain := m.OneOf != nil && !slices.ContainsFunc(m.OneOf, func(v Value) bool { _, isMap := v.(map[string]Value); return isMap })
	switch {
	case m.Reading != "" && !readingRE.MatchString(m.Reading):
		p.Errorf(n.Line, "%s: reading %q is not an entry name (lowercase words joined by -, as the headings of docs/spec-readings.md)", what, m.Reading)
	case m.Reading != "":
	case (m.Optional || plain) && slices.Contains(codeMembers, member):
		p.Errorf(n.Line, "%s accepts more than one answer: name the spec reading that allows it, reading: <entry of docs/spec-readings.md>", what)
	case m.OneOf != nil && !plain && codesDiffer(m.OneOf):
		p.Errorf(n.Line, "%s accepts answers with different codes, states or outcomes: name the spec reading that allows it, reading: <entry of docs/spec-readings.md>", what)
	}
}

// codesDiffer reports whether alternatives of a $one_of differ in a code member, at any depth
// of the objects they have in common.
func codesDiffer(alts []Value) bool {
	var objs []map[string]Value
	for _, a := range alts {
		if o, ok := a.(map[string]Value); ok {
			objs = append(objs, o)
		}
	}
	if len(objs) < 2 {
		return false
	}
	keys := map[string]bool{}
	for _, o := range objs {
		for k := range o {
			keys[k] = true
		}
	}
	for k := range keys {
		var vals []Value
		for _, o := range objs {
			vals = append(vals, o[k])
		}
		if slices.Contains(codeMembers, k) {
			for _, v := range vals[1:] {
				if fmt.Sprint(v) != fmt.Sprint(vals[0]) {
					return true
				}
			}
		}
		if codesDiffer(vals) {
			return true
		}
	}
	return false
}

var readingRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// capabilities expands {$capabilities: [names]} into a complete declaration: every field false
// except the named ones, so scenarios need not spell out 30 booleans.
func (p *parser) capabilities(n *yaml.Node) Value {
	names := p.Strings(n, "$capabilities")
	out := map[string]Value{}
	for _, c := range proto.CapabilityNames() {
		out[c] = false
	}
	for i, name := range names {
		if _, ok := out[name]; !ok {
			p.Errorf(n.Content[i].Line, "$capabilities: %q is not a capability", name)
			continue
		}
		out[name] = true
	}
	return out
}

// MaxRepeatBytes bounds what one $repeat may expand to: past the 4 MiB frame limit nothing can be
// sent whole, and the catalog stays small in memory.
const MaxRepeatBytes = 4 << 20

// repeat expands {$repeat: {text: x, count: n}} into the string of n copies of text, so a
// scenario can write a value past a size limit (a runtime_prepare frame over 1 MiB, RP-10)
// without spelling it out. The expansion is a literal: it holds no placeholder. {$repeat: {item:
// v, count: n}} is the list of n copies of the template v, ${i} in the copy numbered i (1 to n)
// that number, as in a repeat step's body (repeat.go): a list of 1,025 contract events, say.
func (p *parser) repeat(n *yaml.Node) Value {
	f := p.fields(n, "$repeat", "text", "count", "item")
	if f == nil {
		return ""
	}
	count, ok := 0, f["count"] != nil
	if ok {
		count, ok = yamlstrict.Int(f["count"])
	}
	if item := f["item"]; item != nil {
		if f["text"] != nil {
			p.Errorf(n.Line, "$repeat takes text (copies of a string) or item (a list of copies), not both")
			return []Value{}
		}
		if !ok || count < 1 || count > MaxRepeat {
			p.Errorf(n.Line, "$repeat.count of an item must be an integer from 1 to %d", MaxRepeat)
			return []Value{}
		}
		return p.copies(item, count, n.Line)
	}
	text := p.String(f["text"], "$repeat.text")
	switch {
	case text == "" || strings.Contains(text, "${"):
		p.Errorf(n.Line, "$repeat.text must be a non-empty literal (no placeholder)")
	case !ok || count < 1:
		p.Errorf(n.Line, "$repeat.count must be a positive integer")
	case len(text)*count > MaxRepeatBytes:
		p.Errorf(n.Line, "$repeat expands to %d bytes, more than %d", len(text)*count, MaxRepeatBytes)
	default:
		return strings.Repeat(text, count)
	}
	return ""
}
