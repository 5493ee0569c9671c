package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/wirecheck/wirecheck/proto"
)

// LoadError is one problem in a scenario file, with its position.
type LoadError struct {
	Pos Pos
	Msg string
}

func (e *LoadError) Error() string { return e.Pos.String() + ": " + e.Msg }

// LoadErrors collects every problem found; Error lists them one per line.
type LoadErrors []*LoadError

func (es LoadErrors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

var idRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)*$`)

// Parse reads every scenario (YAML document) of one file. It reports every error it finds, not
// only the first; includes are resolved later by the catalog.
func Parse(file string, data []byte) ([]*Scenario, error) {
	p := &parser{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Scenario
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := p.yamlErrLine(err)
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line))
			p.errorf(line, "%s", msg)
			break
		}
		if len(doc.Content) == 0 {
			continue
		}
		if sc := p.scenario(doc.Content[0]); sc != nil {
			out = append(out, sc)
		}
	}
	if len(p.errs) > 0 {
		return out, p.errs
	}
	return out, nil
}

type parser struct {
	file string
	errs LoadErrors
	vars map[string]Value // the current scenario's own vars, for checking its frames
}

func (p *parser) pos(n *yaml.Node) Pos { return Pos{File: p.file, Line: n.Line} }

func (p *parser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, &LoadError{Pos: Pos{File: p.file, Line: line}, Msg: fmt.Sprintf(format, args...)})
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func (p *parser) yamlErrLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

// fields checks a mapping's keys against the allowed set and returns key → value node.
func (p *parser) fields(n *yaml.Node, what string, allowed ...string) map[string]*yaml.Node {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "%s must be a mapping", what)
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(allowed, k.Value) {
			p.errorf(k.Line, "%s: unknown key %q (allowed: %s)", what, k.Value, strings.Join(allowed, ", "))
			continue
		}
		if _, dup := out[k.Value]; dup {
			p.errorf(k.Line, "%s: duplicate key %q", what, k.Value)
		}
		out[k.Value] = v
	}
	return out
}

func (p *parser) str(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float") {
		p.errorf(n.Line, "%s must be a string", what)
		return ""
	}
	return n.Value
}

func (p *parser) strs(n *yaml.Node, what string) []string {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n.Line, "%s must be a list of strings", what)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, p.str(c, what))
	}
	return out
}

func (p *parser) duration(n *yaml.Node, what string) time.Duration {
	s := p.str(n, what)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		p.errorf(n.Line, "%s must be a duration such as 50ms or 5m, got %q", what, s)
	}
	return d
}

func (p *parser) scenario(n *yaml.Node) *Scenario {
	f := p.fields(n, "scenario", "id", "title", "spec", "labels", "requires", "excludes", "tests", "heartbeat", "handshake", "vars", "include", "steps")
	if f == nil {
		return nil
	}
	sc := &Scenario{Pos: p.pos(n), Tests: SideBoth, Heartbeat: HeartbeatAuto}
	if f["id"] == nil {
		p.errorf(n.Line, "scenario: id is required")
	} else if sc.ID = p.str(f["id"], "id"); !idRE.MatchString(sc.ID) {
		p.errorf(f["id"].Line, "id %q must be lowercase segments separated by / (e.g. execution/cancel-waits)", sc.ID)
	}
	if f["title"] == nil {
		p.errorf(n.Line, "scenario %s: title is required", sc.ID)
	}
	sc.Title = p.str(f["title"], "title")
	sc.Spec = p.strs(f["spec"], "spec")
	sc.Labels = p.strs(f["labels"], "labels")
	sc.Requires = p.strs(f["requires"], "requires")
	for i, r := range sc.Requires {
		if !contains(proto.CapabilityNames(), r) {
			p.errorf(f["requires"].Content[i].Line, "requires: %q is not a capability", r)
		}
	}
	sc.Excludes = p.strs(f["excludes"], "excludes")
	for i, r := range sc.Excludes {
		if !contains(proto.CapabilityNames(), r) {
			p.errorf(f["excludes"].Content[i].Line, "excludes: %q is not a capability", r)
		}
	}
	if v := f["vars"]; v != nil {
		if v.Kind != yaml.MappingNode {
			p.errorf(v.Line, "vars must be a mapping of name to value")
		} else {
			sc.ownVars = map[string]Value{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				name := v.Content[i].Value
				if !varNameRE.MatchString(name) {
					p.errorf(v.Content[i].Line, "var %q must be lowercase letters, digits and _", name)
				}
				sc.ownVars[name] = p.value(v.Content[i+1])
			}
		}
	}
	p.vars = sc.ownVars
	for i, l := range sc.Labels {
		if !labelRE.MatchString(l) {
			p.errorf(f["labels"].Content[i].Line, "label %q must be lowercase letters, digits, - and _", l)
		}
	}
	if v := f["tests"]; v != nil {
		switch s := Side(p.str(v, "tests")); s {
		case SideBoth, SideCore, SideRuntime:
			sc.Tests = s
		default:
			p.errorf(v.Line, "tests must be both, core or runtime, got %q", s)
		}
	}
	if v := f["heartbeat"]; v != nil {
		switch s := p.str(v, "heartbeat"); s {
		case HeartbeatAuto, HeartbeatManual:
			sc.Heartbeat = s
		default:
			p.errorf(v.Line, "heartbeat must be auto or manual, got %q", s)
		}
	}
	if v := f["handshake"]; v != nil {
		sc.Handshake = p.handshake(v)
	}
	sc.Include = p.strs(f["include"], "include")
	if v := f["steps"]; v != nil {
		if v.Kind != yaml.SequenceNode {
			p.errorf(v.Line, "steps must be a list")
		} else {
			for _, s := range v.Content {
				if st := p.step(s, false); st != nil {
					sc.own = append(sc.own, st)
				}
			}
		}
	}
	if len(sc.own) == 0 && len(sc.Include) == 0 && (sc.Handshake == nil || sc.Handshake.Expect == nil) {
		p.errorf(n.Line, "scenario %s has no steps", sc.ID)
	}
	return sc
}

var (
	labelRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)
	varNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
)

func (p *parser) handshake(n *yaml.Node) *Handshake {
	f := p.fields(n, "handshake", "device_id", "credential", "version", "credential_in_query", "expect")
	if f == nil {
		return nil
	}
	h := &Handshake{}
	opt := func(k string) *string {
		if f[k] == nil {
			return nil
		}
		s := p.str(f[k], k)
		return &s
	}
	h.DeviceID, h.Credential, h.Version = opt("device_id"), opt("credential"), opt("version")
	if v := f["credential_in_query"]; v != nil {
		h.CredentialInQuery = v.Value == "true"
	}
	if v := f["expect"]; v != nil {
		e := p.fields(v, "handshake.expect", "status", "error")
		if e != nil {
			h.Expect = &HTTPExpect{Error: p.str(e["error"], "error")}
			if e["status"] == nil {
				p.errorf(v.Line, "handshake.expect.status is required")
			} else if st, err := strconv.Atoi(e["status"].Value); err != nil {
				p.errorf(e["status"].Line, "handshake.expect.status must be an HTTP status")
			} else {
				h.Expect.Status = st
			}
			if h.Expect.Error != "" && proto.HTTPStatusFor(h.Expect.Error) != h.Expect.Status {
				p.errorf(v.Line, "handshake.expect: error %q does not go with status %d (facts §1.2)", h.Expect.Error, h.Expect.Status)
			}
		}
	}
	return h
}

var stepKinds = []string{"core", "runtime", "silence", "settle", "disconnect", "reconnect", "advance", "any_order", "check", "include", "fault"}

func (p *parser) step(n *yaml.Node, inGroup bool) *Step {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		p.errorf(n.Line, "a step is a mapping with exactly one key, the step kind (%s)", strings.Join(stepKinds, ", "))
		return nil
	}
	k, v := n.Content[0], n.Content[1]
	st := &Step{Kind: StepKind(k.Value), Pos: p.pos(k)}
	if inGroup && st.Kind != StepCore && st.Kind != StepRuntime {
		p.errorf(k.Line, "any_order holds only core or runtime frame steps, not %q", k.Value)
		return nil
	}
	switch st.Kind {
	case StepCore, StepRuntime:
		st.From = proto.Peer(st.Kind)
		st.Frame = p.frame(v, st.From)
		if st.Frame == nil {
			return nil
		}
	case StepSilence:
		st.Window = DefaultSilenceWindow
		if v.Kind == yaml.ScalarNode {
			st.From = p.peer(v, "silence")
		} else if f := p.fields(v, "silence", "from", "window"); f != nil {
			st.From = p.peer(f["from"], "silence.from")
			if f["window"] != nil {
				st.Window = p.duration(f["window"], "silence.window")
			}
		}
	case StepSettle:
		st.From, st.Window = proto.Runtime, DefaultSilenceWindow
		if !isEmpty(v) {
			if f := p.fields(v, "settle", "window", "advance"); f != nil {
				if f["window"] != nil {
					st.Window = p.duration(f["window"], "settle.window")
				}
				if f["advance"] != nil {
					st.Advance = p.duration(f["advance"], "settle.advance")
				}
			}
		}
	case StepDisconnect:
		st.Close = &CloseSpec{By: proto.Runtime}
		if !isEmpty(v) {
			if f := p.fields(v, "disconnect", "by", "code", "reason"); f != nil {
				if f["by"] != nil {
					st.Close.By = p.peer(f["by"], "disconnect.by")
				}
				if f["code"] != nil {
					c, err := strconv.Atoi(f["code"].Value)
					if err != nil || c < 1000 || c > 4999 {
						p.errorf(f["code"].Line, "disconnect.code must be a WebSocket close code (1000–4999)")
					}
					st.Close.Code = c
				}
				st.Close.Reason = p.str(f["reason"], "disconnect.reason")
			}
		}
	case StepReconnect:
		if !isEmpty(v) {
			p.errorf(v.Line, "reconnect takes no options")
		}
	case StepAdvance:
		st.Advance = p.duration(v, "advance")
	case StepAnyOrder:
		if v.Kind != yaml.SequenceNode || len(v.Content) < 2 {
			p.errorf(v.Line, "any_order needs a list of at least two frame steps")
			return nil
		}
		for _, c := range v.Content {
			if g := p.step(c, true); g != nil {
				if len(st.Group) > 0 && g.From != st.Group[0].From {
					p.errorf(g.Pos.Line, "any_order frames must all come from one peer")
				}
				st.Group = append(st.Group, g)
			}
		}
		if len(st.Group) > 0 {
			st.From = st.Group[0].From
		}
	case StepCheck:
		st.Check = p.check(v)
	case "include":
		st.Included = p.str(v, "include")
	case StepFault:
		if v.Kind != yaml.MappingNode {
			p.errorf(v.Line, "fault takes one rule of the fault schedule language (docs/fault-injection.md)")
			return nil
		}
		st.Fault = &FaultStep{Node: v, Pos: p.pos(v)}
	default:
		p.errorf(k.Line, "unknown step kind %q (one of %s)", k.Value, strings.Join(stepKinds, ", "))
		return nil
	}
	return st
}

func isEmpty(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode && len(n.Content) == 0) || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func (p *parser) peer(n *yaml.Node, what string) proto.Peer {
	if n == nil {
		p.errorf(0, "%s: a peer (core or runtime) is required", what)
		return ""
	}
	switch s := proto.Peer(p.str(n, what)); s {
	case proto.Core, proto.Runtime:
		return s
	default:
		p.errorf(n.Line, "%s must be core or runtime, got %q", what, s)
		return ""
	}
}

func (p *parser) check(n *yaml.Node) *Check {
	f := p.fields(n, "check", "capabilities", "turn")
	if f == nil {
		return nil
	}
	c := &Check{Pos: p.pos(n)}
	if len(f) != 1 {
		p.errorf(n.Line, "check needs exactly one of capabilities, turn")
		return nil
	}
	if v := f["capabilities"]; v != nil {
		cf := p.fields(v, "check.capabilities", "kind", "declared")
		if cf != nil {
			c.Capabilities = &CapabilitiesCheck{Kind: p.str(cf["kind"], "kind"), Declared: p.str(cf["declared"], "declared")}
			if c.Capabilities.Declared != "none" && c.Capabilities.Declared != "complete" {
				p.errorf(v.Line, "check.capabilities.declared must be none or complete")
			}
		}
	}
	if v := f["turn"]; v != nil {
		tf := p.fields(v, "check.turn", "run", "status", "reason", "engine")
		if tf != nil {
			c.Turn = &TurnCheck{Status: p.str(tf["status"], "status"), Reason: p.str(tf["reason"], "reason"), Engine: p.str(tf["engine"], "engine")}
			if tf["run"] == nil {
				p.errorf(v.Line, "check.turn.run is required")
			} else {
				c.Turn.Run = p.str(tf["run"], "run")
			}
			if !proto.KnownTurnStatus(c.Turn.Status) {
				p.errorf(v.Line, "check.turn.status must be completed, failed or cancelled")
			}
			if c.Turn.Reason != "" && !proto.KnownTurnReason(c.Turn.Reason) {
				p.errorf(v.Line, "check.turn.reason %q is not a listed Turn outcome reason (facts §6.2)", c.Turn.Reason)
			}
		}
	}
	return c
}

func (p *parser) frame(n *yaml.Node, from proto.Peer) *FrameTemplate {
	f := p.fields(n, string(from)+" frame", "type", "id", "payload", "invalid", "raw", "lost", "copies", "corrupted")
	if f == nil {
		return nil
	}
	ft := &FrameTemplate{Pos: p.pos(n), Invalid: p.str(f["invalid"], "invalid")}
	if v := f["lost"]; v != nil {
		ft.Lost = v.Value == "true"
	}
	if v := f["copies"]; v != nil {
		c, err := strconv.Atoi(v.Value)
		if err != nil || c < 2 {
			p.errorf(v.Line, "copies must be a number of at least 2")
		}
		ft.Copies = c
	}
	if v := f["corrupted"]; v != nil {
		ft.Corrupted = p.str(v, "corrupted")
		if !contains([]string{"invalid_json", "invalid_frame", "oversize"}, ft.Corrupted) {
			p.errorf(v.Line, "corrupted must be invalid_json, invalid_frame or oversize")
		}
	}
	for _, k := range []string{"lost", "copies", "corrupted"} {
		if f[k] != nil && f["raw"] != nil {
			p.errorf(f[k].Line, "%s describes a fault on a real frame, not on raw bytes", k)
		}
	}
	if v := f["raw"]; v != nil {
		s := p.str(v, "raw")
		ft.Raw = &s
		if len(f) > 1 && !(len(f) == 2 && f["invalid"] != nil) && f["lost"] == nil && f["copies"] == nil && f["corrupted"] == nil {
			p.errorf(n.Line, "a raw frame carries only raw (and invalid)")
		}
		if ft.Invalid == "" {
			p.errorf(n.Line, "a raw frame must declare the error it provokes with invalid:")
		}
		return ft
	}
	if f["type"] == nil {
		p.errorf(n.Line, "%s frame: type is required", from)
		return nil
	}
	ft.Type = p.str(f["type"], "type")
	spec, ok := proto.Lookup(ft.Type)
	if !ok {
		if ft.Invalid == "" {
			p.errorf(f["type"].Line, "unknown message type %q", ft.Type)
		}
	} else if spec.From != from && ft.Invalid == "" {
		p.errorf(f["type"].Line, "%s is sent by %s, not %s", ft.Type, spec.From, from)
	}
	if v := f["id"]; v != nil {
		ft.ID = p.str(v, "id")
	}
	if v := f["payload"]; v != nil {
		ft.Payload = p.value(v)
	}
	if spec != nil {
		if err := CheckFrame(ft, p.vars); err != nil {
			p.errorf(n.Line, "%v", err)
		}
	}
	return ft
}

// value converts a YAML node into a template value.
func (p *parser) value(n *yaml.Node) Value {
	switch n.Kind {
	case yaml.AliasNode:
		// An alias re-expands its anchor at every use: a few lines can stand for millions of nodes.
		// Scenarios share frames through include and vars instead.
		p.errorf(n.Line, "YAML aliases (*%s) are not supported in scenarios: use include or vars", n.Value)
		return nil
	case yaml.MappingNode:
		if len(n.Content) == 2 && n.Content[0].Value == "$capabilities" {
			return p.capabilities(n.Content[1])
		}
		if m := p.matcher(n); m != nil {
			return m
		}
		out := make(map[string]Value, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = p.value(n.Content[i+1])
		}
		return out
	case yaml.SequenceNode:
		out := make([]Value, 0, len(n.Content))
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
		num := json.Number(n.Value)
		if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
			p.errorf(n.Line, "%q is not a JSON number", n.Value)
		}
		return num
	}
	return n.Value
}

// matcher recognises {$any: type}, {$absent: true}, {$regex: pattern}, each with an optional sample.
func (p *parser) matcher(n *yaml.Node) *Matcher {
	if len(n.Content) == 0 || !strings.HasPrefix(n.Content[0].Value, "$") {
		return nil
	}
	f := p.fields(n, "matcher", "$any", "$absent", "$regex", "sample", "optional")
	m := &Matcher{Optional: f["optional"] != nil && f["optional"].Value == "true"}
	if s := f["sample"]; s != nil {
		m.Sample = p.value(s)
	}
	switch {
	case f["$any"] != nil:
		m.Any = p.str(f["$any"], "$any")
		if !contains([]string{"string", "number", "integer", "boolean", "object", "array", "null"}, m.Any) {
			p.errorf(n.Line, "$any must name a JSON type (string, number, integer, boolean, object, array, null)")
		}
		if m.Sample == nil {
			m.Sample = map[string]Value{"string": "any", "number": json.Number("1"), "integer": json.Number("1"),
				"boolean": true, "object": map[string]Value{}, "array": []Value{}}[m.Any]
		}
	case f["$absent"] != nil:
		m.Absent = true
	case f["$regex"] != nil:
		m.Pattern = p.str(f["$regex"], "$regex")
		re, err := regexp.Compile(m.Pattern)
		if err != nil {
			p.errorf(n.Line, "$regex: %v", err)
			return m
		}
		m.re = re
		s, ok := m.Sample.(string)
		if !ok || !re.MatchString(s) {
			p.errorf(n.Line, "$regex needs a sample string that matches it, for scripted writers to send")
		}
	default:
		p.errorf(n.Line, "a matcher needs one of $any, $absent, $regex")
	}
	return m
}

// capabilities expands {$capabilities: [names]} into a complete declaration: every field false
// except the named ones, so scenarios need not spell out 30 booleans.
func (p *parser) capabilities(n *yaml.Node) Value {
	names := p.strs(n, "$capabilities")
	out := map[string]Value{}
	for _, c := range proto.CapabilityNames() {
		out[c] = false
	}
	for i, name := range names {
		if _, ok := out[name]; !ok {
			p.errorf(n.Content[i].Line, "$capabilities: %q is not a capability", name)
			continue
		}
		out[name] = true
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
