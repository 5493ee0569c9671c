package yamlstrict

import (
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// text returns a scalar that reads as a string: one written as a string or a number. Booleans,
// nulls and timestamps do not, so `name: true` is not taken for "true".
func text(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		return "", false
	}
	return n.Value, true
}

// String returns a string scalar ("" for a missing node), reporting any other node.
func (w *Walker) String(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	s, ok := text(n)
	if !ok {
		w.Errorf(n.Line, "%s must be a string", what)
	}
	return s
}

// Strings returns a list of strings (nil for a missing node).
func (w *Walker) Strings(n *yaml.Node, what string) []string {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		w.Errorf(n.Line, "%s must be a list of strings", what)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, w.String(c, what))
	}
	return out
}

// Bool returns a boolean scalar (false for a missing node), reporting any other node.
func (w *Walker) Bool(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		w.Errorf(n.Line, "%s must be true or false, got %q", what, n.Value)
		return false
	}
	return isTrue(n)
}

// isTrue reads a !!bool scalar: YAML spells true as true, True or TRUE.
func isTrue(n *yaml.Node) bool { return strings.EqualFold(n.Value, "true") }

// Int returns an integer scalar written in decimal. It reports nothing: each loader words the
// range it wants.
func Int(n *yaml.Node) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	return v, err == nil
}

// Duration returns a non-negative duration such as 5m (0 for a missing node), reporting anything
// else once.
func (w *Walker) Duration(n *yaml.Node, what string) time.Duration {
	if n == nil {
		return 0
	}
	s, _ := text(n)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		w.Errorf(n.Line, "%s must be a duration such as %s, got %q", what, w.Lang.DurationExamples, n.Value)
		return 0
	}
	return d
}
