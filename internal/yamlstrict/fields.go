package yamlstrict

import (
	"iter"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Members yields the key and value nodes of mapping n in order, reporting each key that repeats
// an earlier one as "<what>: duplicate key". n must be a mapping.
func (w *Walker) Members(n *yaml.Node, what string) iter.Seq2[*yaml.Node, *yaml.Node] {
	return func(yield func(k, v *yaml.Node) bool) {
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if seen[k.Value] {
				w.Errorf(k.Line, "%s: duplicate key %q", what, k.Value)
			}
			seen[k.Value] = true
			if !yield(k, v) {
				return
			}
		}
	}
}

// Fields checks mapping n's keys against the allowed ones and returns key → value node and
// key → key node (for the lines of errors about a key). It reports a node that is not a mapping
// and returns nil maps; an unknown key is reported and left out.
func (w *Walker) Fields(n *yaml.Node, what string, allowed ...string) (vals, keys map[string]*yaml.Node) {
	if n.Kind != yaml.MappingNode {
		w.Errorf(n.Line, "%s must be a mapping", what)
		return nil, nil
	}
	vals, keys = map[string]*yaml.Node{}, map[string]*yaml.Node{}
	for k, v := range w.Members(n, what) {
		if !slices.Contains(allowed, k.Value) {
			w.Errorf(k.Line, "%s: unknown key %q (allowed: %s)", what, k.Value, strings.Join(allowed, ", "))
			continue
		}
		vals[k.Value], keys[k.Value] = v, k
	}
	return vals, keys
}

// Options is Fields for a mapping of options that may be left empty: a null (`drop:`) stands for
// no options.
func (w *Walker) Options(n *yaml.Node, what string, allowed ...string) (vals, keys map[string]*yaml.Node) {
	if IsNull(n) {
		return map[string]*yaml.Node{}, map[string]*yaml.Node{}
	}
	return w.Fields(n, what, allowed...)
}

// IsNull reports whether n is a null scalar (`~`, `null` or nothing at all).
func IsNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }
