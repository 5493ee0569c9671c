package fault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// LoadError is one problem in a schedule file, at file:line.
type LoadError struct {
	File string
	Line int
	Msg  string
}

func (e *LoadError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// LoadErrors is every problem found in one file, one per line.
type LoadErrors []*LoadError

func (es LoadErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// LoadFile reads a schedule file (see LoadSchedule).
func LoadFile(path string) (*Schedule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadSchedule(path, data)
}

// LoadSchedule decodes a schedule:
//
//	seed: 42                       # optional; reproduces the random choices of a run
//	rules:
//	  - name: lose-written         # required, unique
//	    match: {direction: runtime→core, type: prompt_steer_ack, payload: {phase: written}, nth: 1}
//	    drop: {}                   # exactly one action key
//
// The loader is strict: an unknown key, a wrong type or a value out of range is an error naming
// file:line, and every error in the file is reported, not only the first.
func LoadSchedule(file string, data []byte) (*Schedule, error) {
	p := &loader{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(1, "the file is empty; a schedule needs rules")
			return nil, p.errs
		}
		p.yamlError(err)
		return nil, p.errs
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(extra.Line, "a schedule file holds one YAML document")
	} else if !errors.Is(err, io.EOF) {
		p.yamlError(err)
	}
	if len(doc.Content) == 0 {
		p.errorf(doc.Line, "the document is empty; a schedule needs rules")
		return nil, p.errs
	}
	s := p.schedule(doc.Content[0])
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return s, nil
}

// ParseRule decodes one rule from a YAML node: the body of a scenario's `fault:` step, or one
// entry of a schedule's rules. Errors carry file and the node's lines.
func ParseRule(file string, n *yaml.Node) (Rule, error) {
	p := &loader{file: file}
	r := p.rule(n)
	if len(p.errs) > 0 {
		return Rule{}, p.errs
	}
	return *r, nil
}

type loader struct {
	file string
	errs LoadErrors
}

func (p *loader) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &LoadError{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): `)

func (p *loader) yamlError(err error) {
	msg, line := err.Error(), 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	p.errorf(line, "%s", strings.TrimPrefix(msg, "yaml: "))
}

// fields checks a mapping's keys against the allowed ones and returns key → value; the key nodes
// are returned too, for the lines of errors about them.
func (p *loader) fields(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, map[string]*yaml.Node) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return map[string]*yaml.Node{}, map[string]*yaml.Node{}
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "%s must be a mapping", what)
		return nil, nil
	}
	vals, keys := map[string]*yaml.Node{}, map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(allowed, k.Value) {
			p.errorf(k.Line, "%s: unknown key %q (allowed: %s)", what, k.Value, strings.Join(allowed, ", "))
			continue
		}
		if _, dup := vals[k.Value]; dup {
			p.errorf(k.Line, "%s: duplicate key %q", what, k.Value)
		}
		vals[k.Value], keys[k.Value] = v, k
	}
	return vals, keys
}

func (p *loader) schedule(n *yaml.Node) *Schedule {
	f, _ := p.fields(n, "schedule", "seed", "rules")
	if f == nil {
		return nil
	}
	s := &Schedule{}
	if v := f["seed"]; v != nil {
		seed, err := strconv.ParseUint(v.Value, 10, 64)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
			p.errorf(v.Line, "seed must be an unsigned 64-bit integer, got %q", v.Value)
		}
		s.Seed = seed
	}
	rules := f["rules"]
	if rules == nil {
		p.errorf(n.Line, "schedule: rules is required")
		return s
	}
	if rules.Kind != yaml.SequenceNode {
		p.errorf(rules.Line, "rules must be a list of rules")
		return s
	}
	seen := map[string]int{}
	for _, rn := range rules.Content {
		r := p.rule(rn)
		if r == nil {
			continue
		}
		if first, dup := seen[r.Name]; dup && r.Name != "" {
			p.errorf(rn.Line, "rule %q: the name is already used by the rule at line %d; names are unique", r.Name, first)
		}
		seen[r.Name] = rn.Line
		s.Rules = append(s.Rules, *r)
	}
	if len(rules.Content) == 0 {
		p.errorf(rules.Line, "rules is empty; a schedule needs at least one rule")
	}
	return s
}

// rule decodes one rule and then validates it, reporting each problem at its member's line.
func (p *loader) rule(n *yaml.Node) *Rule {
	allowed := []string{"name", "match"}
	for _, k := range ActionKinds {
		allowed = append(allowed, string(k))
	}
	f, keys := p.fields(n, "rule", allowed...)
	if f == nil {
		return nil
	}
	before := len(p.errs)
	r := &Rule{}
	lines := map[string]int{"": n.Line, "name": n.Line}
	if v := f["name"]; v != nil {
		r.Name = p.str(v, "name")
		lines["name"] = v.Line
	}
	if v := f["match"]; v != nil {
		lines["match"] = v.Line
		r.Match = p.match(v, lines)
	}
	var action *yaml.Node
	for _, k := range ActionKinds {
		v := f[string(k)]
		if v == nil {
			continue
		}
		if action != nil {
			p.errorf(keys[string(k)].Line, "rule %q: one action per rule; %s and %s are both given", r.Name, r.Action.Kind, k)
			continue
		}
		action = v
		lines[string(k)] = keys[string(k)].Line
		r.Action = p.action(k, v, lines)
	}
	if action == nil {
		p.errorf(n.Line, "rule %q: an action is required: one of %s", r.Name, kindList())
		return r
	}
	if len(p.errs) > before {
		return r
	}
	if err := r.Validate(); err != nil {
		var re *RuleError
		if errors.As(err, &re) {
			line, ok := lines[re.Member]
			if !ok {
				line = lines[strings.SplitN(re.Member, ".", 2)[0]]
			}
			p.errorf(line, "%v", re)
		} else {
			p.errorf(n.Line, "%v", err)
		}
	}
	return r
}

func (p *loader) match(n *yaml.Node, lines map[string]int) Match {
	f, _ := p.fields(n, "match", "direction", "type", "id", "id_from", "payload", "undecodable", "nth", "probability")
	var m Match
	for k, v := range f {
		lines["match."+k] = v.Line
	}
	if v := f["direction"]; v != nil {
		d, err := ParseDirection(p.str(v, "match.direction"))
		if err != nil {
			p.errorf(v.Line, "match.direction: %v", err)
		}
		m.Direction = d
	}
	m.Type = p.str(f["type"], "match.type")
	if v := f["id"]; v != nil {
		id := p.str(v, "match.id")
		// ${name} is a placeholder, as in scenarios: the same as id_from: name.
		if name, ok := strings.CutPrefix(id, "${"); ok && strings.HasSuffix(name, "}") {
			m.IDFrom = strings.TrimSuffix(name, "}")
			lines["match.id_from"] = v.Line
		} else {
			m.ID = id
		}
	}
	if v := f["id_from"]; v != nil {
		if m.IDFrom != "" {
			p.errorf(v.Line, "match: give id or id_from, not both")
		}
		m.IDFrom = p.str(v, "match.id_from")
	}
	if v := f["payload"]; v != nil {
		if v.Kind != yaml.MappingNode {
			p.errorf(v.Line, "match.payload must be a mapping of top-level payload members to values")
		} else {
			m.Payload = map[string]any{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				k := v.Content[i]
				if _, dup := m.Payload[k.Value]; dup {
					p.errorf(k.Line, "match.payload: duplicate key %q", k.Value)
				}
				m.Payload[k.Value] = p.value(v.Content[i+1])
			}
		}
	}
	m.Undecodable = p.boolean(f["undecodable"], "match.undecodable")
	m.Nth = p.integer(f["nth"], "match.nth")
	if v := f["probability"]; v != nil {
		prob, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil {
			p.errorf(v.Line, "match.probability must be a number between 0 and 1, got %q", v.Value)
		}
		m.Probability = prob
	}
	return m
}

// actionKeys lists the options of each action.
var actionKeys = map[ActionKind][]string{
	ActDrop:            nil,
	ActDelay:           {"for", "block"},
	ActDuplicate:       {"count"},
	ActReorder:         nil,
	ActCorrupt:         {"kind"},
	ActCut:             nil,
	ActRefuseReconnect: {"count", "status", "error"},
	ActClose:           {"code", "reason", "after", "half_open", "stop"},
}

func (p *loader) action(kind ActionKind, n *yaml.Node, lines map[string]int) Action {
	what := string(kind)
	f, _ := p.fields(n, what, actionKeys[kind]...)
	a := Action{Kind: kind}
	if f == nil {
		return a
	}
	for k, v := range f {
		lines[what+"."+k] = v.Line
	}
	opt := func(k string) *yaml.Node { return f[k] }
	switch kind {
	case ActDelay:
		if opt("for") == nil {
			p.errorf(n.Line, "delay.for is required (e.g. 31s)")
		}
		a.For = p.duration(opt("for"), "delay.for")
		a.Block = p.boolean(opt("block"), "delay.block")
	case ActDuplicate:
		a.Count = p.integer(opt("count"), "duplicate.count")
		if opt("count") != nil && a.Count == 0 {
			p.errorf(opt("count").Line, "duplicate.count must be 1 or more")
		}
	case ActCorrupt:
		if opt("kind") == nil {
			p.errorf(n.Line, "corrupt.kind is required: invalid_json, oversize or invalid_frame")
		}
		a.Corruption = Corruption(p.str(opt("kind"), "corrupt.kind"))
	case ActRefuseReconnect:
		a.Count = p.integer(opt("count"), "refuse_reconnect.count")
		if opt("count") != nil && a.Count == 0 {
			p.errorf(opt("count").Line, "refuse_reconnect.count must be 1 or more")
		}
		a.Status = p.integer(opt("status"), "refuse_reconnect.status")
		a.Error = p.str(opt("error"), "refuse_reconnect.error")
	case ActClose:
		a.Code = p.integer(opt("code"), "close.code")
		a.Reason = p.str(opt("reason"), "close.reason")
		a.After = p.duration(opt("after"), "close.after")
		a.HalfOpen = p.boolean(opt("half_open"), "close.half_open")
		if v := opt("stop"); v != nil {
			d, err := ParseDirection(p.str(v, "close.stop"))
			if err != nil {
				p.errorf(v.Line, "close.stop: %v", err)
			}
			a.Stop = d
		}
	}
	return a
}

func (p *loader) str(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!map" || n.Tag == "!!seq" {
		p.errorf(n.Line, "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (p *loader) integer(n *yaml.Node, what string) int {
	if n == nil {
		return 0
	}
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil || v < 0 {
		p.errorf(n.Line, "%s must be a non-negative integer, got %q", what, n.Value)
		return 0
	}
	return v
}

func (p *loader) boolean(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		p.errorf(n.Line, "%s must be true or false, got %q", what, n.Value)
		return false
	}
	return n.Value == "true"
}

func (p *loader) duration(n *yaml.Node, what string) time.Duration {
	if n == nil {
		return 0
	}
	s := p.str(n, what)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		p.errorf(n.Line, "%s must be a duration such as 500ms, 31s or 5m, got %q", what, s)
		return 0
	}
	return d
}

// value converts a YAML node to the JSON value it stands for.
func (p *loader) value(n *yaml.Node) any {
	switch n.Kind {
	case yaml.AliasNode:
		// An alias re-expands its anchor at every use: a few lines can stand for millions of nodes.
		p.errorf(n.Line, "YAML aliases (*%s) are not supported in fault schedules", n.Value)
		return nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = p.value(n.Content[i+1])
		}
		return out
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, p.value(c))
		}
		return out
	}
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		return n.Value == "true"
	case "!!int", "!!float":
		f, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			p.errorf(n.Line, "%q is not a JSON number", n.Value)
		}
		return f
	}
	return n.Value
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
