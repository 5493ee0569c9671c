package fault

import (
	"errors"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/internal/yamlstrict"
)

// LoadError is one problem in a schedule file, at file:line.
type LoadError = yamlstrict.Error

// LoadErrors is every problem found in one file, one per line.
type LoadErrors = yamlstrict.Errors

// scheduleLang is how the walker words what it refuses in schedules.
var scheduleLang = yamlstrict.Lang{Files: "fault schedules", DurationExamples: "500ms, 31s or 5m"}

// scheduleValues: payload values compare as JSON decoding gives them, so numbers are float64.
var scheduleValues = yamlstrict.Values{Number: func(lit string) any {
	f, _ := strconv.ParseFloat(lit, 64) // the walker checked it is a JSON number
	return f
}}

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
	p := &loader{yamlstrict.New(file, scheduleLang)}
	var root *yaml.Node
	docs := 0
	for doc := range p.Documents(data) {
		if docs++; docs > 1 {
			p.Errorf(doc.Line, "a schedule file holds one YAML document")
			break
		}
		if !doc.Refused {
			root = doc.Root
		}
	}
	if docs == 0 && len(p.Errs) == 0 {
		p.Errorf(1, "the file is empty; a schedule needs rules")
	}
	if root == nil {
		return nil, p.Err()
	}
	s := p.schedule(root)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseRule decodes one rule from a YAML node: the body of a scenario's `fault:` step, or one
// entry of a schedule's rules. Errors carry file and the node's lines.
func ParseRule(file string, n *yaml.Node) (Rule, error) {
	p := &loader{yamlstrict.New(file, scheduleLang)}
	if !p.Check(n) {
		return Rule{}, p.Errs
	}
	r := p.rule(n)
	if err := p.Err(); err != nil {
		return Rule{}, err
	}
	return *r, nil
}

// loader reads a schedule with the strict walker, which holds the file and its errors.
type loader struct {
	*yamlstrict.Walker
}

func (p *loader) schedule(n *yaml.Node) *Schedule {
	f, _ := p.Fields(n, "schedule", "seed", "rules")
	if f == nil {
		return nil
	}
	s := &Schedule{}
	if v := f["seed"]; v != nil {
		seed, err := strconv.ParseUint(v.Value, 10, 64)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
			p.Errorf(v.Line, "seed must be an unsigned 64-bit integer, got %q", v.Value)
		}
		s.Seed = seed
	}
	rules := f["rules"]
	if rules == nil {
		p.Errorf(n.Line, "schedule: rules is required")
		return s
	}
	if rules.Kind != yaml.SequenceNode {
		p.Errorf(rules.Line, "rules must be a list of rules")
		return s
	}
	seen := map[string]int{}
	for _, rn := range rules.Content {
		r := p.rule(rn)
		if r == nil {
			continue
		}
		if first, dup := seen[r.Name]; dup && r.Name != "" {
			p.Errorf(rn.Line, "rule %q: the name is already used by the rule at line %d; names are unique", r.Name, first)
		}
		seen[r.Name] = rn.Line
		s.Rules = append(s.Rules, *r)
	}
	if len(rules.Content) == 0 {
		p.Errorf(rules.Line, "rules is empty; a schedule needs at least one rule")
	}
	return s
}

// rule decodes one rule and then validates it, reporting each problem at its member's line.
func (p *loader) rule(n *yaml.Node) *Rule {
	allowed := []string{"name", "match"}
	for _, k := range ActionKinds {
		allowed = append(allowed, string(k))
	}
	f, keys := p.Fields(n, "rule", allowed...)
	if f == nil {
		return nil
	}
	before := len(p.Errs)
	r := &Rule{}
	lines := map[string]int{"": n.Line, "name": n.Line}
	if v := f["name"]; v != nil {
		r.Name = p.String(v, "name")
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
			p.Errorf(keys[string(k)].Line, "rule %q: one action per rule; %s and %s are both given", r.Name, r.Action.Kind, k)
			continue
		}
		action = v
		lines[string(k)] = keys[string(k)].Line
		r.Action = p.action(k, v, lines)
	}
	if action == nil {
		p.Errorf(n.Line, "rule %q: an action is required: one of %s", r.Name, kindList())
		return r
	}
	if len(p.Errs) > before {
		return r
	}
	if err := r.Validate(); err != nil {
		var re *RuleError
		if errors.As(err, &re) {
			line, ok := lines[re.Member]
			if !ok {
				line = lines[strings.SplitN(re.Member, ".", 2)[0]]
			}
			p.Errorf(line, "%v", re)
		} else {
			p.Errorf(n.Line, "%v", err)
		}
	}
	return r
}

func (p *loader) match(n *yaml.Node, lines map[string]int) Match {
	f, _ := p.Options(n, "match", "direction", "type", "id", "id_from", "payload", "undecodable", "nth", "probability")
	var m Match
	for k, v := range f {
		lines["match."+k] = v.Line
	}
	if v := f["direction"]; v != nil {
		d, err := ParseDirection(p.String(v, "match.direction"))
		if err != nil {
			p.Errorf(v.Line, "match.direction: %v", err)
		}
		m.Direction = d
	}
	m.Type = p.String(f["type"], "match.type")
	if v := f["id"]; v != nil {
		id := p.String(v, "match.id")
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
			p.Errorf(v.Line, "match: give id or id_from, not both")
		}
		m.IDFrom = p.String(v, "match.id_from")
	}
	if v := f["payload"]; v != nil {
		if v.Kind != yaml.MappingNode {
			p.Errorf(v.Line, "match.payload must be a mapping of top-level payload members to values")
		} else {
			m.Payload = p.Value(v, "match.payload", scheduleValues).(map[string]any)
		}
	}
	m.Undecodable = p.Bool(f["undecodable"], "match.undecodable")
	m.Nth = p.integer(f["nth"], "match.nth")
	if v := f["probability"]; v != nil {
		prob, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") || err != nil {
			p.Errorf(v.Line, "match.probability must be a number between 0 and 1, got %q", v.Value)
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
	f, _ := p.Options(n, what, actionKeys[kind]...)
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
			p.Errorf(n.Line, "delay.for is required (e.g. 31s)")
		}
		a.For = p.Duration(opt("for"), "delay.for")
		a.Block = p.Bool(opt("block"), "delay.block")
	case ActDuplicate:
		a.Count = p.integer(opt("count"), "duplicate.count")
		if opt("count") != nil && a.Count == 0 {
			p.Errorf(opt("count").Line, "duplicate.count must be 1 or more")
		}
	case ActCorrupt:
		if opt("kind") == nil {
			p.Errorf(n.Line, "corrupt.kind is required: invalid_json, oversize or invalid_frame")
		}
		a.Corruption = Corruption(p.String(opt("kind"), "corrupt.kind"))
	case ActRefuseReconnect:
		a.Count = p.integer(opt("count"), "refuse_reconnect.count")
		if opt("count") != nil && a.Count == 0 {
			p.Errorf(opt("count").Line, "refuse_reconnect.count must be 1 or more")
		}
		a.Status = p.integer(opt("status"), "refuse_reconnect.status")
		a.Error = p.String(opt("error"), "refuse_reconnect.error")
	case ActClose:
		a.Code = p.integer(opt("code"), "close.code")
		a.Reason = p.String(opt("reason"), "close.reason")
		a.After = p.Duration(opt("after"), "close.after")
		a.HalfOpen = p.Bool(opt("half_open"), "close.half_open")
		if v := opt("stop"); v != nil {
			d, err := ParseDirection(p.String(v, "close.stop"))
			if err != nil {
				p.Errorf(v.Line, "close.stop: %v", err)
			}
			a.Stop = d
		}
	}
	return a
}

// integer reads a count, a status or a code: a non-negative decimal integer.
func (p *loader) integer(n *yaml.Node, what string) int {
	if n == nil {
		return 0
	}
	v, ok := yamlstrict.Int(n)
	if !ok || v < 0 {
		p.Errorf(n.Line, "%s must be a non-negative integer, got %q", what, n.Value)
		return 0
	}
	return v
}
