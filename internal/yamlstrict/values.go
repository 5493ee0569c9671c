package yamlstrict

import (
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Values lets a loader keep its own Go types where the two loaders differ.
type Values struct {
	// Number converts a JSON number literal (already checked): json.Number keeps it exact,
	// float64 compares it as JSON decoding would.
	Number func(literal string) any
	// Mapping, if set, may take a mapping the loader reads itself (a matcher); ok false leaves it
	// to Value.
	Mapping func(n *yaml.Node, what string) (v any, ok bool)
}

// Value converts n into the JSON value it stands for: map[string]any, []any, string, bool, nil,
// and numbers through vs.Number. what names n in errors; members extend it (payload.outcome,
// steps[2]).
func (w *Walker) Value(n *yaml.Node, what string, vs Values) any {
	switch n.Kind {
	case yaml.AliasNode:
		// Check refuses aliases; a node that was not checked still never expands one.
		w.refuse(n.Line, "YAML aliases (*"+n.Value+")", true)
		return nil
	case yaml.MappingNode:
		if vs.Mapping != nil {
			if v, ok := vs.Mapping(n, what); ok {
				return v
			}
		}
		out := make(map[string]any, len(n.Content)/2)
		for k, v := range w.Members(n, what) {
			out[k.Value] = w.Value(v, what+"."+k.Value, vs)
		}
		return out
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			out = append(out, w.Value(c, what+"["+strconv.Itoa(i)+"]", vs))
		}
		return out
	}
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		return isTrue(n)
	case "!!int", "!!float":
		if !IsJSONNumber(n.Value) {
			w.Errorf(n.Line, "%q is not a JSON number", n.Value)
			return nil
		}
		return vs.Number(n.Value)
	}
	return n.Value
}

var jsonNumberRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// IsJSONNumber reports whether s is spelled as JSON spells a number (YAML also takes +1, .5, 01,
// 0x1F and .inf) and fits a float64.
func IsJSONNumber(s string) bool {
	if !jsonNumberRE.MatchString(s) {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
