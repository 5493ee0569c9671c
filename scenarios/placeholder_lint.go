package scenarios

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var placeholderAtRE = regexp.MustCompile(`^\$\{[a-z][a-z0-9_]*\}`)

// malformedPlaceholder returns the first "${" of s that does not open a placeholder ${name}: left
// alone it would be sent as literal text, which no author means.
func malformedPlaceholder(s string) (string, bool) {
	for i := 0; ; {
		j := strings.Index(s[i:], "${")
		if j < 0 {
			return "", false
		}
		i += j
		if m := placeholderAtRE.FindString(s[i:]); m != "" {
			i += len(m)
			continue
		}
		frag := s[i:]
		if k := strings.IndexByte(frag, '}'); k >= 0 {
			frag = frag[:k+1]
		}
		if len(frag) > 24 {
			frag = frag[:24] + "…"
		}
		return frag, true
	}
}

// checkPlaceholders reports, at its line, every string of a template that holds a malformed
// placeholder (`${run`, `${}`, `${1bad}`). Mapping keys are names, not templates.
func (p *parser) checkPlaceholders(n *yaml.Node) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if bad, ok := malformedPlaceholder(n.Value); ok && n.Tag == "!!str" {
			p.Errorf(n.Line, "malformed placeholder %q: a placeholder is ${name}, a lowercase letter then lowercase letters, digits or _", bad)
		}
	case yaml.MappingNode:
		if len(n.Content) == 2 && n.Content[0].Value == "$repeat" {
			return // its item's copies are checked as they are made, ${i} replaced (repeat.go)
		}
		for i := 1; i < len(n.Content); i += 2 {
			p.checkPlaceholders(n.Content[i])
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			p.checkPlaceholders(c)
		}
	}
}
