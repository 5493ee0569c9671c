package scenarios

import (
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/internal/yamlstrict"
	"github.com/wirecheck/wirecheck/proto"
)

// A repeat step stands for its body written count times, at load time: `repeat: {count: n,
// steps: [...]}`. In the copy numbered i (1 to n) every ${i} in a string of the body is the
// decimal i, and ${i+k} or ${i-k} (k a decimal) is i+k or i-k, so ids stay distinct (p-${i} is
// p-1 … p-n) and a copy can name its neighbour's (the request that follows decision p-${i} is
// p-${i+1}). These are no placeholders there. A body holds steps written out: no include and no
// repeat. The copies are ordinary steps, each with its own index; a mistake in the body is
// reported once, at its line. {$repeat: {item: v, count: n}} copies a template the same way
// (load_matchers.go).

// stepRepeat is the key of a repeat step; it never reaches a Step.Kind.
const stepRepeat StepKind = "repeat"

// repeatIndexRE matches what a repeated body writes for the number of its copy: ${i}, ${i+k},
// ${i-k}.
var repeatIndexRE = regexp.MustCompile(`\$\{i(?:([+-])([0-9]{1,4}))?\}`)

func isRepeat(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Value == string(stepRepeat)
}

// repeatSteps expands a repeat step into the steps of its copies.
func (p *parser) repeatSteps(n *yaml.Node) []*Step {
	v := n.Content[1]
	f := p.fields(v, "repeat", "count", "steps")
	if f == nil {
		return nil
	}
	count, ok := 0, false
	if f["count"] != nil {
		count, ok = yamlstrict.Int(f["count"])
	}
	if !ok || count < 1 || count > MaxRepeat {
		p.Errorf(v.Line, "repeat.count must be an integer from 1 to %d", MaxRepeat)
		return nil
	}
	body := f["steps"]
	if body == nil || body.Kind != yaml.SequenceNode || len(body.Content) == 0 {
		p.Errorf(v.Line, "repeat.steps: a list of the steps written count times")
		return nil
	}
	for _, s := range body.Content {
		if s.Kind == yaml.MappingNode && len(s.Content) == 2 && (s.Content[0].Value == string(stepRepeat) || s.Content[0].Value == "include") {
			p.Errorf(s.Line, "repeat.steps holds steps written out: no %s", s.Content[0].Value)
			return nil
		}
	}
	var out []*Step
	if !p.expand(body, count, v.Line, func(c *yaml.Node) {
		for _, s := range c.Content {
			if st := p.step(s, false); st != nil {
				out = append(out, st)
			}
		}
	}) {
		return nil
	}
	return out
}

// copies is {$repeat: {item, count}}: the list of count copies of item.
func (p *parser) copies(item *yaml.Node, count, line int) []Value {
	out := make([]Value, 0, count)
	if !p.expand(item, count, line, func(c *yaml.Node) {
		p.checkPlaceholders(c)
		out = append(out, p.value(c, "$repeat.item"))
	}) {
		return []Value{}
	}
	return out
}

// expand hands each copy of body, numbered 1 to count, to read, within the file's
// MaxRepeatNodes. It stops at the first copy with a mistake: the body's mistakes are reported
// once, not once per copy.
func (p *parser) expand(body *yaml.Node, count, line int, read func(*yaml.Node)) bool {
	if p.expanded += count * countNodes(body); p.expanded > MaxRepeatNodes {
		p.Errorf(line, "the repeats of this file expand to %d YAML nodes, more than the %d they may", p.expanded, MaxRepeatNodes)
		return false
	}
	for i := 1; i <= count; i++ {
		before := len(p.Errs)
		read(withIndex(body, i))
		if len(p.Errs) > before {
			return false
		}
	}
	return true
}

// withIndex copies n with every ${i}, ${i+k} and ${i-k} in its strings replaced by the number. A
// string stays a string (its tag is kept): ${i} alone is the string "7", never a number.
func withIndex(n *yaml.Node, index int) *yaml.Node {
	c := *n
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${i") {
		c.Value = repeatIndexRE.ReplaceAllStringFunc(n.Value, func(m string) string {
			sub := repeatIndexRE.FindStringSubmatch(m)
			k, _ := strconv.Atoi(sub[2])
			if sub[1] == "-" {
				k = -k
			}
			return strconv.Itoa(index + k)
		})
	}
	if len(n.Content) > 0 {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = withIndex(k, index)
		}
	}
	return &c
}

func countNodes(n *yaml.Node) int {
	total := 1
	for _, c := range n.Content {
		total += countNodes(c)
	}
	return total
}

// checkStalledReads: a core frame step played while the scripted Runtime reads nothing (after
// stop_reading: runtime) is read at the resume_reading: runtime that follows, so one must follow.
func (p *parser) checkStalledReads(sc *Scenario) {
	stopped := false
	var unread *Step
	for _, st := range sc.own {
		switch {
		case st.From == proto.Runtime && st.Kind == StepStopReading:
			stopped = true
		case st.From == proto.Runtime && st.Kind == StepResumeReading:
			stopped, unread = false, nil
		case stopped && unread == nil && st.From == proto.Core && (st.Kind == StepCore || st.Kind == StepAnyOrder):
			unread = st
		}
	}
	if unread != nil {
		p.Errorf(unread.Pos.Line, "a core frame step after stop_reading: runtime is read once the scripted Runtime reads again: a resume_reading: runtime must follow it")
	}
}
